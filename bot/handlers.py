"""What the bot does with each update. Handlers are short: they work out the question,
check it, and start the run in the background (so no update waits for an answer)."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Message, Update
from telegram.ext import (
    Application,
    ApplicationHandlerStop,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    TypeHandler,
    filters,
)

from agent.lang import Lang
from agent.prompts import Turn
from bot.admins import is_admin
from bot.i18n import MAX_QUESTION_CHARS, lang_of, text
from bot.live import LiveMessage
from bot.render import to_plain
from bot.runs import Mode, Question, execute
from bot.services import Services, services

Context = ContextTypes.DEFAULT_TYPE
MODES: tuple[Mode, ...] = ("ask", "plain", "compare")


def register(app: Application) -> None:  # type: ignore[type-arg]
    app.add_handler(TypeHandler(Update, gate), group=-1)
    app.add_handler(CommandHandler(["start", "help"], help_command))
    app.add_handler(CommandHandler([*MODES, "plan"], ask_command))
    app.add_handler(CommandHandler("examples", examples_command))
    app.add_handler(CommandHandler("stop", stop_command))
    app.add_handler(CallbackQueryHandler(stop_tapped, pattern=r"^stop:\d+$"))
    app.add_handler(CallbackQueryHandler(example_tapped, pattern=r"^ex:"))
    text_only = filters.TEXT & ~filters.COMMAND
    app.add_handler(MessageHandler(text_only & filters.ChatType.PRIVATE, private_text))
    app.add_handler(MessageHandler(text_only & filters.ChatType.GROUPS & filters.REPLY,
                                   group_reply))


async def say(svc: Services, chat_id: int, reply_to: int | None, html: str | list[str],
              markup: InlineKeyboardMarkup | None = None) -> list[int]:
    """Send a message of the bot's own (or several pages, later ones replying to the first),
    paced like every other message in the chat."""
    live = LiveMessage(svc.bot, svc.pacer, chat_id, reply_to, button=None, to_plain=to_plain)
    return await live.finish([html] if isinstance(html, str) else html, markup)


async def gate(update: Update, context: Context) -> None:
    """Chats outside ALLOWED_CHAT_IDS get no answer at all."""
    chat = update.effective_chat
    if chat is not None and not services(context).settings.chat_allowed(chat.id):
        raise ApplicationHandlerStop


async def help_command(update: Update, context: Context) -> None:
    msg = update.effective_message
    assert msg is not None
    await say(services(context), msg.chat_id, msg.message_id,
              text(lang_of(update.effective_user), "help"))


async def ask_command(update: Update, context: Context) -> None:
    """/ask, /plain, /compare and /plan (an ask that makes a plan first), with the question
    after the command (or @BotName)."""
    msg = update.effective_message
    assert msg is not None and msg.text is not None
    command, *rest = msg.text.split(maxsplit=1)
    name = command.lstrip("/").split("@", 1)[0].lower()
    mode = "ask" if name == "plan" else name
    await start_question(update, context, mode, rest[0] if rest else "", msg,  # type: ignore[arg-type]
                         planner=True if name == "plan" else None, command=name)


async def private_text(update: Update, context: Context) -> None:
    """In a private chat, any text is a question."""
    msg = update.effective_message
    assert msg is not None and msg.text is not None
    await start_question(update, context, "ask", msg.text, msg)


async def group_reply(update: Update, context: Context) -> None:
    """In a group, a reply to one of the bot's answers is a follow-up; other talk is not ours."""
    msg = update.effective_message
    assert msg is not None and msg.text is not None
    replied = msg.reply_to_message
    if replied and replied.from_user and replied.from_user.id == context.bot.id:
        await start_question(update, context, "ask", msg.text, msg)


async def start_question(update: Update, context: Context, mode: Mode, typed: str,
                         msg: Message, *, replies_count: bool = True,
                         planner: bool | None = None, command: str = "") -> None:
    """Check the question and start its run (replying to `msg`), or say why not.
    `replies_count`: whether the message `msg` replies to gives context; `planner`: plan
    first (/plan), or None for the AGENT_PLANNER setting."""
    svc = services(context)
    user = update.effective_user
    assert user is not None
    lang = lang_of(user)
    question, history, parent = await _resolve(svc, msg if replies_count else None, typed,
                                               context.bot.id)
    reply_to = msg.message_id
    if not question.strip():
        await say(svc, msg.chat_id, reply_to, text(lang, "usage", command=command or mode))
        return
    if len(question) > MAX_QUESTION_CHARS:
        await say(svc, msg.chat_id, reply_to, text(lang, "too_long", length=len(question)))
        return
    active = svc.active.claim(msg.chat_id, user.id, lang)
    if active is None:
        await say(svc, msg.chat_id, reply_to, text(lang, "busy"))
        return
    q = Question(mode, question.strip(), msg.chat_id, user.id, user.full_name, lang, reply_to,
                 history, parent, planner)
    svc.active.run(active, execute(svc, q, active))


async def _resolve(svc: Services, msg: Message | None, typed: str,
                   bot_id: int) -> tuple[str, tuple[Turn, ...], int | None]:
    """The question, its history and parent run. A reply to one of our answers continues that
    run; a reply to anyone else's message asks about that message's text."""
    replied = msg.reply_to_message if msg else None
    if replied is None:
        return typed, (), None
    if replied.from_user and replied.from_user.id == bot_id:
        record = await svc.store.by_message(replied.chat_id, replied.message_id)
        if record is None:
            return typed, (), None
        history = (Turn(record.question, record.answer),) if record.answer else ()
        return typed, history, record.id
    quoted = (replied.text or replied.caption or "").strip()
    if not quoted:
        return typed, (), None
    if not typed.strip():
        return quoted, (), None
    return typed.strip() + "\n\n" + "\n".join(f"> {line}" for line in quoted.splitlines()), (), None


async def examples_command(update: Update, context: Context) -> None:
    svc = services(context)
    msg = update.effective_message
    assert msg is not None
    lang = lang_of(update.effective_user)
    rows = [[InlineKeyboardButton(ex.in_lang(lang)[0], callback_data=f"ex:{ex.id}")]
            for ex in svc.examples]
    await say(svc, msg.chat_id, msg.message_id, text(lang, "examples"),
              InlineKeyboardMarkup(rows))


async def example_tapped(update: Update, context: Context) -> None:
    """A tap on a preset question runs it, as the person who tapped."""
    query = update.callback_query
    assert query is not None and query.data is not None
    svc = services(context)
    lang = lang_of(query.from_user)
    example = next((ex for ex in svc.examples if f"ex:{ex.id}" == query.data), None)
    await query.answer()
    if example is None or not isinstance(query.message, Message):
        return
    await start_question(update, context, "ask", example.in_lang(lang)[1], query.message,
                         replies_count=False)


async def stop_command(update: Update, context: Context) -> None:
    svc = services(context)
    msg, user = update.effective_message, update.effective_user
    assert msg is not None and user is not None
    lang = lang_of(user)
    active = svc.active.of_user(user.id)
    if active is None:
        await say(svc, msg.chat_id, msg.message_id, text(lang, "nothing_to_stop"))
        return
    active.stop()


async def stop_tapped(update: Update, context: Context) -> None:
    """⏹ under a running answer: the asker or an admin may stop it."""
    query = update.callback_query
    assert query is not None and query.data is not None
    svc = services(context)
    lang: Lang = lang_of(query.from_user)
    active = svc.active.get(int(query.data.split(":", 1)[1]))
    if active is None:
        await query.answer(text(lang, "not_running"))
        return
    user = query.from_user
    if user.id != active.user_id and not await is_admin(svc, active.chat_id, user.id):
        await query.answer(text(lang, "not_yours"), show_alert=True)
        return
    notice = "" if user.id == active.user_id else text(active.lang, "stopped_by",
                                                           name=user.full_name)
    active.stop(notice)
    await query.answer(text(lang, "stopping"))
