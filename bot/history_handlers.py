"""/history, /show, /export and /forget: a chat's earlier runs found, replayed, downloaded and
deleted.

Every command and every button works out its scope afresh from the chat it comes from and
the user who sent it: a group reaches the group's runs, a private chat only its user's.
Button data carries numbers only (a search keyword stays in the chat's own memory under a
small number), so forged data can name nothing outside that scope.
"""

from __future__ import annotations

import re
from typing import Any

from telegram import (
    Chat,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputFile,
    MaybeInaccessibleMessage,
    Message,
    Update,
    User,
)
from telegram.constants import ChatType
from telegram.ext import Application, CallbackQueryHandler, CommandHandler, ContextTypes

from agent.lang import Lang
from bot.admins import is_admin
from bot.export import export_html, shorten
from bot.handlers import say
from bot.history_view import history_keyboard, history_text, run_header
from bot.i18n import lang_of, text
from bot.live import LiveMessage
from bot.render import to_plain, utf16_len
from bot.runs import replay
from bot.services import Services, services
from bot.spans import PAGE_LIMIT
from bot.store_records import Scope

Context = ContextTypes.DEFAULT_TYPE
SEARCHES_KEPT = 32
"""Keywords a chat's ◀ ▶ buttons can refer to; older lists say they have expired."""
_NUMBER = re.compile(r"#?([0-9]{1,9})")
_PAGE = re.compile(r"[0-9]{1,6}")
_PAGE_DATA = re.compile(r"hist:([0-9]{1,6})(?::([0-9]{1,9}))?")
_SHOW_DATA = re.compile(r"show:([0-9]{1,9})")
_FORGET_ALL_DATA = re.compile(r"fa:(yes|no):([0-9]{1,15})")


def register(app: Application) -> None:  # type: ignore[type-arg]
    app.add_handler(CommandHandler("history", history_command))
    app.add_handler(CommandHandler("show", show_command))
    app.add_handler(CommandHandler("export", export_command))
    app.add_handler(CommandHandler("forget", forget_command))
    app.add_handler(CallbackQueryHandler(history_tapped, pattern=r"^hist:"))
    app.add_handler(CallbackQueryHandler(show_tapped, pattern=r"^show:"))
    app.add_handler(CallbackQueryHandler(forget_all_tapped, pattern=r"^fa:"))
    app.add_handler(CallbackQueryHandler(unknown_tapped))  # last: no other handler took it


def scope_of(chat: Chat, user: User) -> Scope:
    """A group sees all its runs; a private chat only its user's."""
    return Scope(chat.id, user.id) if chat.type == ChatType.PRIVATE else Scope(chat.id)


def _command(update: Update) -> tuple[Message, Chat, User, Lang, str]:
    """The command's message, chat, sender, the sender's language, and what follows it."""
    msg, chat, user = update.effective_message, update.effective_chat, update.effective_user
    assert msg is not None and msg.text is not None and chat is not None and user is not None
    rest = msg.text.split(maxsplit=1)
    return msg, chat, user, lang_of(user), rest[1].strip() if len(rest) > 1 else ""


def _number(arg: str) -> int | None:
    found = _NUMBER.fullmatch(arg)
    return int(found[1]) if found else None


# --- /history and its buttons -------------------------------------------------------------

async def history_command(update: Update, context: Context) -> None:
    """`/history`, `/history 2` (a page) or `/history 杭州 天气` (a search)."""
    msg, chat, user, lang, arg = _command(update)
    page, keyword = (int(arg), "") if _PAGE.fullmatch(arg) else (1, arg)
    search = _remember(context, keyword) if keyword else None
    svc = services(context)
    html, markup = await _history(svc, scope_of(chat, user), lang, page, keyword, search)
    await say(svc, chat.id, msg.message_id, html, markup)


async def history_tapped(update: Update, context: Context) -> None:
    """◀ ▶ under a list: the list message turns to that page."""
    query = update.callback_query
    assert query is not None
    lang = lang_of(query.from_user)
    found = _PAGE_DATA.fullmatch(query.data or "")
    search = int(found[2]) if found and found[2] else None
    keyword = _searches(context).get(search, None) if search is not None else ""
    if found is None or keyword is None or not isinstance(query.message, Message):
        await query.answer(text(lang, "history_expired"), show_alert=True)
        return
    await query.answer()
    svc = services(context)
    scope = scope_of(query.message.chat, query.from_user)
    html, markup = await _history(svc, scope, lang, int(found[1]), keyword, search)
    await _edit(svc, query.message, html, markup)


async def _history(svc: Services, scope: Scope, lang: Lang, page: int, keyword: str,
                   search: int | None) -> tuple[str, InlineKeyboardMarkup | None]:
    shown = await svc.store.history(scope, page=page, keyword=keyword)
    return history_text(shown, lang, keyword), history_keyboard(shown, search)


def _searches(context: Context) -> dict[int, str]:
    """This chat's recent keywords by number (python-telegram-bot keeps chat_data per chat)."""
    data: dict[Any, Any] = context.chat_data if context.chat_data is not None else {}
    return data.setdefault("history_searches", {})  # type: ignore[no-any-return]


def _remember(context: Context, keyword: str) -> int:
    searches = _searches(context)
    for number, known in searches.items():
        if known == keyword:
            return number
    number = max(searches, default=0) + 1
    searches[number] = keyword
    if len(searches) > SEARCHES_KEPT:
        del searches[min(searches)]
    return number


# --- /show and the ▶ buttons ----------------------------------------------------------------

async def show_command(update: Update, context: Context) -> None:
    msg, chat, user, lang, arg = _command(update)
    svc = services(context)
    n = _number(arg)
    if n is None:
        await say(svc, chat.id, msg.message_id, text(lang, "run_usage", command="show"))
        return
    pages = await _replay(svc, scope_of(chat, user), n, lang)
    await say(svc, chat.id, msg.message_id, pages or text(lang, "no_run", n=n))


async def show_tapped(update: Update, context: Context) -> None:
    """A run's button in a list: the run, replayed in reply to the list."""
    query = update.callback_query
    assert query is not None
    lang = lang_of(query.from_user)
    found = _SHOW_DATA.fullmatch(query.data or "")
    if found is None or query.message is None:
        await query.answer(text(lang, "stale_button"), show_alert=True)
        return
    svc = services(context)
    n = int(found[1])
    pages = await _replay(svc, scope_of(query.message.chat, query.from_user), n, lang)
    if pages is None:
        await query.answer(text(lang, "no_run", n=n), show_alert=True)
        return
    await query.answer()
    await say(svc, query.message.chat.id, query.message.message_id, pages)


async def _replay(svc: Services, scope: Scope, n: int, lang: Lang) -> list[str] | None:
    """Run `n` drawn as it looked live, observations whole, a header on top; None if it is
    not in scope."""
    record = await svc.store.get(scope, n)
    if record is None:
        return None
    view = replay(record, await svc.store.events(record.id), lang)
    if record.status == "running":
        view.add_notice(text(lang, "still_running"))
    pages = view.pages(live=False)
    header = run_header(record, lang)
    if utf16_len(to_plain(header + "\n\n" + pages[0])) <= PAGE_LIMIT:
        return [header + "\n\n" + pages[0], *pages[1:]]
    return [header, *pages]


# --- /export -------------------------------------------------------------------------------

async def export_command(update: Update, context: Context) -> None:
    """The run as a self-contained HTML file, sent as a document."""
    msg, chat, user, lang, arg = _command(update)
    svc = services(context)
    n = _number(arg)
    record = None if n is None else await svc.store.get(scope_of(chat, user), n)
    if record is None:
        reply = text(lang, "run_usage", command="export") if n is None else text(
            lang, "no_run", n=n)
        await say(svc, chat.id, msg.message_id, reply)
        return
    page = export_html(record, await svc.store.events(record.id), lang)
    document = InputFile(page.encode("utf-8"), filename=f"glassbox-{record.n}.html")
    caption = text(lang, "export_caption", n=record.n, question=shorten(record.question))
    live = LiveMessage(svc.bot, svc.pacer, chat.id, msg.message_id, button=None,
                       to_plain=to_plain)
    await live.send_document(document, caption)


# --- /forget --------------------------------------------------------------------------------

async def forget_command(update: Update, context: Context) -> None:
    """`/forget 12`: your own run (an admin: any run of the chat). `/forget all`: ask first."""
    msg, chat, user, lang, arg = _command(update)
    svc = services(context)
    if arg.lower() == "all":
        await _confirm_forget_all(svc, msg, chat, user, lang)
        return
    n = _number(arg)
    scope = scope_of(chat, user)
    record = None if n is None else await svc.store.get(scope, n)
    if n is None:
        reply = text(lang, "run_usage", command="forget")
    elif record is None:
        reply = text(lang, "no_run", n=n)
    elif record.user_id != user.id and not await is_admin(svc, chat.id, user.id):
        reply = text(lang, "forget_not_yours", n=n)
    else:
        await svc.store.forget(scope, n)
        reply = text(lang, "forgotten", n=n)
    await say(svc, chat.id, msg.message_id, reply)


async def _confirm_forget_all(svc: Services, msg: Message, chat: Chat, user: User,
                              lang: Lang) -> None:
    """Admins only (in a private chat, its user): a button to confirm, for this user alone."""
    if chat.type != ChatType.PRIVATE and not await is_admin(svc, chat.id, user.id):
        await say(svc, chat.id, msg.message_id, text(lang, "forget_all_admins"))
        return
    total = (await svc.store.history(Scope(chat.id), per_page=1)).total
    if not total:
        await say(svc, chat.id, msg.message_id, text(lang, "history_empty"))
        return
    buttons = InlineKeyboardMarkup([[
        InlineKeyboardButton(text(lang, "forget_all_yes"), callback_data=f"fa:yes:{user.id}"),
        InlineKeyboardButton(text(lang, "forget_all_no"), callback_data=f"fa:no:{user.id}"),
    ]])
    await say(svc, chat.id, msg.message_id, text(lang, "forget_all_confirm", total=total),
              buttons)


async def forget_all_tapped(update: Update, context: Context) -> None:
    """The confirm buttons: only the admin who asked, and still an admin, can say yes."""
    query = update.callback_query
    assert query is not None
    user, lang = query.from_user, lang_of(query.from_user)
    found = _FORGET_ALL_DATA.fullmatch(query.data or "")
    if found is None or not isinstance(query.message, Message):
        await query.answer(text(lang, "stale_button"), show_alert=True)
        return
    if int(found[2]) != user.id:
        await query.answer(text(lang, "not_your_button"), show_alert=True)
        return
    svc, chat = services(context), query.message.chat
    if found[1] == "no":
        await query.answer()
        await _edit(svc, query.message, text(lang, "forget_all_cancelled"))
        return
    if chat.type != ChatType.PRIVATE and not await is_admin(svc, chat.id, user.id):
        await query.answer(text(lang, "forget_all_admins"), show_alert=True)
        return
    await query.answer()
    count = await svc.store.forget_all(chat.id)
    await _edit(svc, query.message, text(lang, "forget_all_done", count=count))


async def unknown_tapped(update: Update, context: Context) -> None:
    """A button no handler knows (from an older version, or forged): say so, do nothing."""
    query = update.callback_query
    assert query is not None
    await query.answer(text(lang_of(query.from_user), "stale_button"), show_alert=True)


async def _edit(svc: Services, message: MaybeInaccessibleMessage, html: str,
                markup: InlineKeyboardMarkup | None = None) -> None:
    """Rewrite one of the bot's messages in place, paced like every message in the chat."""
    live = LiveMessage.editing(svc.bot, svc.pacer, message.chat.id, [message.message_id],
                               to_plain=to_plain)
    await live.finish([html], markup)
