"""The command menus Telegram shows: one for private chats and one for groups, each in
English (the default) and Chinese."""

from __future__ import annotations

from telegram import Bot, BotCommand, BotCommandScopeAllGroupChats, BotCommandScopeAllPrivateChats

_DESCRIPTIONS: dict[str, tuple[str, str]] = {
    "ask": ("用工具一步步回答问题", "Answer step by step, with tools"),
    "plain": ("只用模型回答，不用工具", "Answer with the model alone, no tools"),
    "compare": ("两种方式同时回答并对比", "Both at once, side by side"),
    "plan": ("先列计划，再一步步回答", "Make a plan first, then answer step by step"),
    "step": ("每次行动前暂停，由你决定", "Pause before every action: you decide"),
    "quiz": ("全班先猜模型下一步，再揭晓", "The class predicts each step, then sees it"),
    "examples": ("示例问题，点一下就运行", "Preset questions to tap"),
    "stop": ("停止你正在运行的问题", "Stop your running question"),
    "history": ("本聊天的记录：页码或关键词", "Earlier runs here: a page or a keyword"),
    "show": ("重放一次完整的过程：/show 编号", "Replay a whole chain: /show n"),
    "export": ("把一次记录导出为 HTML 文件", "Download a run as an HTML file"),
    "forget": ("删除一条记录，或 all（管理员）", "Delete a run, or all (admins)"),
    "board": ("课堂看板链接（投影用）", "The class board link, for a projector"),
    "settings": ("本聊天的设置（管理员可修改）", "This chat's settings (admins change them)"),
    "notes": ("课程笔记：带 /notes 说明发送文件即可添加",
              "Course notes: send a file captioned /notes"),
    "help": ("Glassbox 是什么，ReAct 怎么工作", "What Glassbox does and how ReAct works"),
    "start": ("开始使用 Glassbox", "Start using Glassbox"),
}
PRIVATE = ("ask", "plain", "compare", "plan", "step", "examples", "stop", "history", "show",
           "export", "forget", "board", "settings", "notes", "help", "start")
GROUP = ("ask", "plain", "compare", "plan", "step", "quiz", "examples", "stop", "history", "show",
         "export", "forget", "board", "settings", "notes", "help")


def menu(names: tuple[str, ...], lang: str) -> list[BotCommand]:
    return [BotCommand(name, _DESCRIPTIONS[name][0 if lang == "zh" else 1]) for name in names]


async def register_commands(bot: Bot) -> None:
    """`set_my_commands` for private chats and groups, in English and Chinese."""
    for names, scope in ((PRIVATE, BotCommandScopeAllPrivateChats()),
                         (GROUP, BotCommandScopeAllGroupChats())):
        await bot.set_my_commands(menu(names, "en"), scope=scope)
        await bot.set_my_commands(menu(names, "zh"), scope=scope, language_code="zh")
