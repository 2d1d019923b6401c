"""The command menus Telegram shows: one for private chats and one for groups, each in
English (the default) and Chinese."""

from __future__ import annotations

from telegram import Bot, BotCommand, BotCommandScopeAllGroupChats, BotCommandScopeAllPrivateChats

from bot.view.i18n import phrase

PRIVATE = ("ask", "plain", "compare", "rerun", "plan", "step", "examples", "stop", "history",
           "show", "export", "forget", "board", "stats", "settings", "notes", "help", "start")
GROUP = ("ask", "plain", "compare", "rerun", "plan", "step", "quiz", "examples", "stop", "history",
         "show", "export", "forget", "board", "stats", "settings", "notes", "help")


def menu(names: tuple[str, ...], lang: str) -> list[BotCommand]:
    return [BotCommand(name, phrase(lang, f"command_{name}")) for name in names]


async def register_commands(bot: Bot) -> None:
    """`set_my_commands` for private chats and groups, in English and Chinese."""
    for names, scope in ((PRIVATE, BotCommandScopeAllPrivateChats()),
                         (GROUP, BotCommandScopeAllGroupChats())):
        await bot.set_my_commands(menu(names, "en"), scope=scope)
        await bot.set_my_commands(menu(names, "zh"), scope=scope, language_code="zh")
