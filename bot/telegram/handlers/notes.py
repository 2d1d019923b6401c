"""/notes: course notes by upload. An admin sends a PDF, Markdown or text file with the caption
`/notes` (or replies `/notes` to one already in the chat); the bot downloads it through the
same Bot API server, indexes it for this chat's search_notes and says what it indexed.
`/notes` alone lists the chat's files; `/notes forget NAME` removes one (admins).
The file itself is not kept: only its passages, in the store's notes index."""

from __future__ import annotations

import asyncio
import logging

from telegram import Document, Message, Update
from telegram.constants import ChatType
from telegram.error import BadRequest, TelegramError
from telegram.ext import BaseHandler, CommandHandler, MessageHandler, filters

from agent.lang import Lang
from agent.tools.documents import DocumentError, kind_of, read_document
from agent.tools.notes_index import Upload
from bot.telegram.context import Context
from bot.telegram.delivery.outbox import Notice
from bot.telegram.handlers.common import Sender, is_admin, sender_of, words_lang
from bot.view.i18n import text

log = logging.getLogger(__name__)

MAX_DOWNLOAD_BYTES = 20 * 1024 * 1024
"""Telegram's limit on what a bot may download (getFile)."""


def handlers() -> list[BaseHandler]:  # type: ignore[type-arg]
    return [
        MessageHandler(filters.Document.ALL & filters.CaptionRegex(r"^/notes(@\w+)?(\s|$)"),
                       notes_caption),
        CommandHandler("notes", notes_command),
    ]


async def _may_change(context: Context, msg: Message, sender: Sender) -> bool:
    return msg.chat.type == ChatType.PRIVATE or await is_admin(context, msg.chat_id, sender)


async def notes_caption(update: Update, context: Context) -> None:
    """A file sent with the caption /notes."""
    msg = update.effective_message
    assert msg is not None and msg.document is not None
    await _index(update, context, msg, msg.document)


async def notes_command(update: Update, context: Context) -> None:
    """/notes as a reply to a file indexes it; `/notes forget NAME` removes one; else the
    chat's files."""
    msg, sender = update.effective_message, sender_of(update)
    assert msg is not None and msg.text is not None
    replied = msg.reply_to_message
    if replied is not None and replied.document is not None:
        await _index(update, context, msg, replied.document)
        return
    words = msg.text.split(maxsplit=2)[1:]
    if words and words[0].lower() == "forget":
        await _forget(context, msg, sender, words[1].strip() if len(words) > 1 else "")
        return
    await _list(context, msg, await words_lang(context, msg.chat_id, sender.lang))


async def _index(update: Update, context: Context, msg: Message, document: Document) -> None:
    sender = sender_of(update)
    lang = await words_lang(context, msg.chat_id, sender.lang)

    async def say(html: str) -> None:
        await context.outbox.say(msg.chat_id, msg.message_id, html)

    index = context.parts.notes
    if index is None:
        await say(text(lang, "notes_off"))
        return
    if not await _may_change(context, msg, sender):
        await context.outbox.notice(msg.chat_id, msg.message_id, sender.id,
                                    text(lang, "notes_admins"), Notice.ADMINS_ONLY, "notes")
        return
    name = document.file_name or "notes.txt"
    if kind_of(name) is None:
        await say(text(lang, "notes_type", name=name))
        return
    size = document.file_size or 0
    if size > MAX_DOWNLOAD_BYTES:
        await say(text(lang, "notes_too_big", name=name, mb=f"{size / 1024 / 1024:.1f}"))
        return
    try:
        file = await context.bot.get_file(document.file_id)
        data = bytes(await file.download_as_bytearray())
    except BadRequest as err:
        key = "notes_too_big" if "too big" in err.message.lower() else "notes_download_failed"
        await say(text(lang, key, name=name, mb=f"{size / 1024 / 1024:.1f}"))
        return
    except TelegramError as err:
        log.warning("chat %s: downloading %s failed (%s)", msg.chat_id, name, err)
        await say(text(lang, "notes_download_failed", name=name))
        return
    try:
        read = await asyncio.to_thread(read_document, name, data)
    except DocumentError as err:
        await say(text(lang, f"notes_{err.reason}", name=name, mb=""))
        return
    upload = Upload(read.name, read.kind, read.parts, read.chars)
    replaced = await index.put_upload(msg.chat_id, upload, [
        (section.location, section.heading, section.body) for section in read.sections])
    key = "notes_indexed_pdf" if read.kind == "pdf" else "notes_indexed_text"
    done = text(lang, key, name=name, parts=read.parts, chars=f"{read.chars:,}")
    await say(done + (" " + text(lang, "notes_replaced") if replaced else ""))


async def _forget(context: Context, msg: Message, sender: Sender, name: str) -> None:
    lang = await words_lang(context, msg.chat_id, sender.lang)
    index = context.parts.notes
    if index is None:
        await context.outbox.say(msg.chat_id, msg.message_id, text(lang, "notes_off"))
        return
    if not await _may_change(context, msg, sender):
        await context.outbox.notice(msg.chat_id, msg.message_id, sender.id,
                                    text(lang, "notes_admins"), Notice.ADMINS_ONLY, "notes")
        return
    gone = bool(name) and await index.forget_upload(msg.chat_id, name)
    key = "notes_forgotten" if gone else "notes_not_found"
    await context.outbox.say(msg.chat_id, msg.message_id, text(lang, key, name=name))


async def _list(context: Context, msg: Message, lang: Lang) -> None:
    index = context.parts.notes
    if index is None:
        await context.outbox.say(msg.chat_id, msg.message_id, text(lang, "notes_off"))
        return
    files = await index.uploads(msg.chat_id)
    if not files:
        await context.outbox.say(msg.chat_id, msg.message_id, text(lang, "notes_none"))
        return
    lines = "\n".join(text(lang, "notes_line_pdf" if f.kind == "pdf" else "notes_line_text",
                           name=f.name, parts=f.parts, chars=f"{f.chars:,}") for f in files)
    await context.outbox.say(msg.chat_id, msg.message_id,
                             text(lang, "notes_list") + "\n" + lines + "\n\n"
                             + text(lang, "notes_hint"))
