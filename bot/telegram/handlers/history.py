"""/history, /show, /export and /forget: a chat's earlier runs found, replayed, downloaded and
deleted.

Every command and every button works out its scope afresh from the chat it comes from and
the user who sent it: a group reaches the group's runs, a private chat only its user's.
Button data carries numbers only (a search keyword stays in the chat's own memory under a
small number), so forged data can name nothing outside that scope.
"""

from __future__ import annotations

import asyncio
import re
from datetime import timedelta
from typing import Any

from telegram import Chat, MaybeInaccessibleMessage, Message, Update, User
from telegram.constants import ChatType
from telegram.ext import BaseHandler, CallbackQueryHandler, CommandHandler

from agent.lang import Lang
from bot.store.records import Scope, telegram_chat
from bot.store.transcripts import MAX_SEARCH_WORDS, search_words
from bot.telegram.context import Context
from bot.telegram.delivery.outbox import Notice
from bot.telegram.handlers.common import (
    Sender,
    chat_settings,
    is_admin,
    lang_of,
    sender_of,
    tap_lang,
    words_lang,
)
from bot.view.buttons import Button, Keyboard
from bot.view.export import export_html
from bot.view.history_view import history_keyboard, history_text, show_pages
from bot.view.i18n import text
from bot.view.textlen import shorten
from bot.view.when import wait_text

SEARCHES_KEPT = 32
"""Keywords a chat's ◀ ▶ buttons can refer to; older lists say they have expired."""
_NUMBER = re.compile(r"#?([0-9]{1,9})")
_PAGE = re.compile(r"[0-9]{1,6}")
_PAGE_DATA = re.compile(r"hist:([0-9]{1,6})(?::([0-9]{1,9}))?")
_SHOW_DATA = re.compile(r"show:([0-9]{1,9})")
_FORGET_ALL_DATA = re.compile(r"fa:(yes|no):([0-9]{1,15})")


def handlers() -> list[BaseHandler]:  # type: ignore[type-arg]
    return [
        CommandHandler("history", history_command),
        CommandHandler("show", show_command),
        CommandHandler("export", export_command),
        CommandHandler("forget", forget_command),
        CallbackQueryHandler(history_tapped, pattern=r"^hist:"),
        CallbackQueryHandler(show_tapped, pattern=r"^show:"),
        CallbackQueryHandler(forget_all_tapped, pattern=r"^fa:"),
    ]


def scope_of(chat: Chat, user: User) -> Scope:
    """A group sees all its runs; a private chat only its user's."""
    return Scope(chat.id, user.id) if chat.type == ChatType.PRIVATE else Scope(chat.id)


async def _command(update: Update, context: Context) -> tuple[Message, Chat, User, Lang, str]:
    """The command's message, chat, sender, the language of the reply (the chat's, if it
    set one, else the sender's), and what follows it."""
    msg, chat, user = update.effective_message, update.effective_chat, update.effective_user
    assert msg is not None and msg.text is not None and chat is not None and user is not None
    rest = msg.text.split(maxsplit=1)
    lang = await words_lang(context, chat.id, lang_of(user))
    return msg, chat, user, lang, rest[1].strip() if len(rest) > 1 else ""



def number_of(arg: str) -> int | None:
    """The run number a command names ('12' or '#12'); None for anything else."""
    found = _NUMBER.fullmatch(arg)
    return int(found[1]) if found else None


# --- /history and its buttons -------------------------------------------------------------

async def history_command(update: Update, context: Context) -> None:
    """`/history`, `/history 2` (a page) or `/history 杭州 天气` (a search: its first
    MAX_SEARCH_WORDS words, and the reply says so when there were more)."""
    msg, chat, user, lang, arg = await _command(update, context)
    sender = sender_of(update)
    limited = too_often(context, sender.id, lang)
    if limited:
        await context.parts.outbox.notice(chat.id, msg.message_id, sender.id, limited,
                                    Notice.TOO_OFTEN, "history")
        return
    page, keyword = (int(arg), "") if _PAGE.fullmatch(arg) else (1, arg)
    words = search_words(keyword)
    keyword = " ".join(words[:MAX_SEARCH_WORDS])
    search = _remember(context, keyword) if keyword else None
    html, buttons = await _history(context, scope_of(chat, user), lang, page, keyword, search)
    if len(words) > MAX_SEARCH_WORDS:
        html += "\n\n" + text(lang, "history_words_capped", most=MAX_SEARCH_WORDS)
    await context.parts.outbox.say(chat.id, msg.message_id, html, buttons)


def too_often(context: Context, sender_id: int, lang: Lang) -> str:
    """Counts one list for `sender_id` against HISTORY_RATE_LIMIT; if they are over it, the
    line saying when they may list again (else "")."""
    wait = context.parts.searches.take(sender_id) if context.parts.searches else 0.0
    return text(lang, "history_rate_limited",
                wait=wait_text(timedelta(seconds=wait), lang)) if wait else ""


async def history_tapped(update: Update, context: Context) -> None:
    """◀ ▶ under a list: the list message turns to that page."""
    query = update.callback_query
    assert query is not None
    lang = await tap_lang(update, context)
    found = _PAGE_DATA.fullmatch(query.data or "")
    search = int(found[2]) if found and found[2] else None
    keyword = _searches(context).get(search, None) if search is not None else ""
    if found is None or keyword is None or not isinstance(query.message, Message):
        await query.answer(text(lang, "history_expired"), show_alert=True)
        return
    limited = too_often(context, query.from_user.id, lang)
    if limited:
        await query.answer(limited, show_alert=True)
        return
    await query.answer()
    scope = scope_of(query.message.chat, query.from_user)
    html, buttons = await _history(context, scope, lang, int(found[1]), keyword, search)
    await _edit(context, query.message, html, buttons)


async def _history(context: Context, scope: Scope, lang: Lang, page: int, keyword: str,
                   search: int | None) -> tuple[str, Keyboard]:
    shown = await context.services.store.history(scope, page=page, keyword=keyword)
    zone = (await chat_settings(context, scope.chat_id)).timezone
    return history_text(shown, lang, keyword, zone), history_keyboard(shown, search)


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
    msg, chat, user, lang, arg = await _command(update, context)
    n = number_of(arg)
    if n is None:
        await context.parts.outbox.say(chat.id, msg.message_id,
                                       text(lang, "run_usage", command="show"))
        return
    pages = await _replay(context, scope_of(chat, user), n, lang)
    await context.parts.outbox.say(chat.id, msg.message_id, pages or text(lang, "no_run", n=n))


async def show_tapped(update: Update, context: Context) -> None:
    """A run's button in a list: the run, replayed in reply to the list."""
    query = update.callback_query
    assert query is not None
    lang = await tap_lang(update, context)
    found = _SHOW_DATA.fullmatch(query.data or "")
    if found is None or query.message is None:
        await query.answer(text(lang, "stale_button"), show_alert=True)
        return
    n = int(found[1])
    pages = await _replay(context, scope_of(query.message.chat, query.from_user), n, lang)
    if pages is None:
        await query.answer(text(lang, "no_run", n=n), show_alert=True)
        return
    await query.answer()
    await context.parts.outbox.say(query.message.chat.id, query.message.message_id, pages)


async def _replay(context: Context, scope: Scope, n: int, lang: Lang) -> list[str] | None:
    """Run `n`'s /show pages (history_view.show_pages), None if it is not in scope. They are
    built in a thread: a run of thousands of steps takes long enough to stall other chats."""
    record = await context.services.store.get(scope, n)
    if record is None:
        return None
    chat = await chat_settings(context, record.chat_id)
    run_lang = chat.run_lang(record.question, lang)  # as the run's message spoke
    lanes = await context.services.store.events(record.id)
    return await asyncio.to_thread(show_pages, record, lanes, run_lang, chat.timezone,
                                   remarks=chat.remarks)


# --- /export -------------------------------------------------------------------------------

async def export_command(update: Update, context: Context) -> None:
    """The run as a self-contained HTML file, sent as a document (built in a thread, as
    /show's pages are)."""
    msg, chat, user, lang, arg = await _command(update, context)
    n = number_of(arg)
    record = None if n is None else await context.services.store.get(scope_of(chat, user), n)
    if record is None:
        reply = text(lang, "run_usage", command="export") if n is None else text(
            lang, "no_run", n=n)
        await context.parts.outbox.say(chat.id, msg.message_id, reply)
        return
    settings = await chat_settings(context, chat.id)
    run_lang = settings.run_lang(record.question, lang)
    lanes = await context.services.store.events(record.id)
    photos = await context.services.store.photos.all(record.id)
    page = await asyncio.to_thread(export_html, record, lanes, run_lang, settings.timezone,
                                   remarks=settings.remarks, photos=photos)
    caption = text(run_lang, "export_caption", n=record.n, question=shorten(record.question))
    await context.parts.outbox.send_document(chat.id, msg.message_id, page.encode("utf-8"),
                                       f"glassbox-{record.n}.html", caption)


# --- /forget --------------------------------------------------------------------------------

async def forget_command(update: Update, context: Context) -> None:
    """`/forget 12`: your own run (an admin: any run of the chat). `/forget all`: ask first.
    Posted as a channel, "your own" is the channel's; posted as the group, an admin's."""
    msg, chat, user, lang, arg = await _command(update, context)
    sender = sender_of(update)
    if arg.lower() == "all":
        await _confirm_forget_all(context, msg, chat, user, sender, lang)
        return
    n = number_of(arg)
    scope = scope_of(chat, user)
    record = None if n is None else await context.services.store.get(scope, n)
    if n is None:
        reply = text(lang, "run_usage", command="forget")
    elif record is None:
        reply = text(lang, "no_run", n=n)
    elif record.user_id != sender.id and not await is_admin(context, chat.id, sender):
        reply = text(lang, "forget_not_yours", n=n)
    else:
        await context.services.store.forget(scope, n)
        context.services.hub.forgotten(telegram_chat(chat.id), (record.id,))
        context.services.runs.forgotten(telegram_chat(chat.id), (record.id,))
        reply = text(lang, "forgotten", n=n)
    await context.parts.outbox.say(chat.id, msg.message_id, reply)


async def _confirm_forget_all(context: Context, msg: Message, chat: Chat, user: User,
                              sender: Sender, lang: Lang) -> None:
    """Admins only (in a private chat, its user): a button to confirm, for this user alone.
    An anonymous admin's taps come from their own account, which the bot cannot tie to the
    group's name: their button (owner 0) is for any admin of the group."""
    say = context.parts.outbox.say
    if chat.type != ChatType.PRIVATE and not await is_admin(context, chat.id, sender):
        await say(chat.id, msg.message_id, text(lang, "forget_all_admins"))
        return
    total = (await context.services.store.history(Scope(chat.id), per_page=1)).total
    if not total:
        await say(chat.id, msg.message_id, text(lang, "history_empty"))
        return
    owner = 0 if sender.anonymous_admin else user.id
    buttons = ((Button(text(lang, "forget_all_yes"), f"fa:yes:{owner}"),
                Button(text(lang, "forget_all_no"), f"fa:no:{owner}")),)
    await say(chat.id, msg.message_id, text(lang, "forget_all_confirm", total=total), buttons)


async def forget_all_tapped(update: Update, context: Context) -> None:
    """The confirm buttons: only the admin who asked, and still an admin, can say yes."""
    query = update.callback_query
    assert query is not None
    user, lang = query.from_user, await tap_lang(update, context)
    found = _FORGET_ALL_DATA.fullmatch(query.data or "")
    if found is None or not isinstance(query.message, Message):
        await query.answer(text(lang, "stale_button"), show_alert=True)
        return
    owner = int(found[2])
    if owner not in (0, user.id):  # 0: any admin (see _confirm_forget_all)
        await query.answer(text(lang, "not_your_button"), show_alert=True)
        return
    chat = query.message.chat
    if (found[1] == "yes" or owner == 0) and chat.type != ChatType.PRIVATE and \
            not await context.parts.admins.check(chat.id, user.id):
        await query.answer(text(lang, "forget_all_admins"), show_alert=True)
        return
    await query.answer()
    if found[1] == "no":
        await _edit(context, query.message, text(lang, "forget_all_cancelled"))
        return
    count = await context.services.store.forget_all(chat.id)
    context.services.hub.forgotten(telegram_chat(chat.id))
    context.services.runs.forgotten(telegram_chat(chat.id), None)
    await _edit(context, query.message, text(lang, "forget_all_done", count=count))


async def _edit(context: Context, message: MaybeInaccessibleMessage, html: str,
                buttons: Keyboard | None = None) -> None:
    """Rewrite one of the bot's messages in place, paced like every message in the chat."""
    await context.parts.outbox.edit(message.chat.id, message.message_id, html, buttons)
