"""/notes: course notes by upload. An admin sends a PDF, Markdown or text file with the caption
`/notes` (or replies `/notes` to one already in the chat); the bot downloads it through the
same Bot API server, reads it in a process of its own within limits (agent/tools/documents.py),
indexes it for this chat's search_notes and says what it kept and what it cut. A chat reads
one upload at a time, a user may make NOTES_UPLOAD_RATE_LIMIT of them, and at most
NOTES_READERS files are read at once across all chats (the others wait, and are told so).
`/notes` alone lists the chat's files; `/notes forget NAME` removes one (admins).
The file itself is not kept: only its passages, in the store's notes index."""

from __future__ import annotations

import logging
from datetime import timedelta

from telegram import Document, Message, Update
from telegram.constants import ChatType
from telegram.error import BadRequest, TelegramError
from telegram.ext import BaseHandler, CommandHandler, MessageHandler, filters

from agent.lang import Lang
from agent.tools.documents import Document as ReadDocument
from agent.tools.documents import DocumentError, Limits, Stop, kind_of, read_document
from agent.tools.notes_index import CourseNotes, Upload
from bot.bot_settings import BotSettings
from bot.runs.uploads import Refusal
from bot.telegram.context import Context
from bot.telegram.delivery.outbox import Notice
from bot.telegram.handlers.common import Sender, is_admin, sender_of, words_lang
from bot.view.i18n import text
from bot.view.when import wait_text

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
        await context.parts.outbox.say(msg.chat_id, msg.message_id, html)

    index = context.services.notes
    if index is None:
        await say(text(lang, "notes_off"))
        return
    if not await _may_change(context, msg, sender):
        await context.parts.outbox.notice(msg.chat_id, msg.message_id, sender.id,
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
    exempt = context.services.settings.is_admin(sender.id)
    with context.parts.uploads.enter(msg.chat_id, sender.id, exempt) as (refused, wait):
        said = "" if refused else await _read_and_index(context, msg, document, name, lang,
                                                          index)
    if refused is None:
        await say(said)  # the chat's slot is free by the time its uploader reads this
        return
    refusal, kind = ((text(lang, "notes_busy", name=name), Notice.BUSY)
                     if refused is Refusal.BUSY else
                     (text(lang, "notes_rate_limited",
                           wait=wait_text(timedelta(seconds=wait), lang)), Notice.TOO_OFTEN))
    await context.parts.outbox.notice(msg.chat_id, msg.message_id, sender.id, refusal, kind,
                                      "notes")


async def _read_and_index(context: Context, msg: Message, document: Document, name: str,
                          lang: Lang, index: CourseNotes) -> str:
    """Download, read and index the file; what to tell the uploader."""
    limits = upload_limits(context.services.settings)
    readers = context.parts.uploads.readers
    if readers.full():
        await context.parts.outbox.say(msg.chat_id, msg.message_id,
                                 text(lang, "notes_queued", name=name))
    async with readers.turn():  # downloaded in its turn: a waiting file holds no bytes
        read = await _download_and_read(context, msg, document, name, lang, limits)
    if isinstance(read, str):
        return read
    upload = Upload(read.name, read.kind, read.parts, read.chars)
    replaced = await index.put_upload(msg.chat_id, upload, [
        (section.location, section.heading, section.body) for section in read.sections])
    key = "notes_indexed_pdf" if read.kind == "pdf" else "notes_indexed_text"
    said = [text(lang, key, read.parts, name=name, parts=read.parts, chars=f"{read.chars:,}")]
    said += cut_lines(lang, read, limits)
    if replaced:
        said.append(text(lang, "notes_replaced"))
    return " ".join(said)


async def _download_and_read(context: Context, msg: Message, document: Document, name: str,
                             lang: Lang, limits: Limits) -> ReadDocument | str:
    """The file read; or what to tell the uploader when it cannot be."""
    size = document.file_size or 0
    try:
        file = await context.bot.get_file(document.file_id)
        data = bytes(await file.download_as_bytearray())
    except BadRequest as err:
        key = "notes_too_big" if "too big" in err.message.lower() else "notes_download_failed"
        return text(lang, key, name=name, mb=f"{size / 1024 / 1024:.1f}")
    except TelegramError as err:
        log.warning("chat %s: downloading %s failed (%s)", msg.chat_id, name, err)
        return text(lang, "notes_download_failed", name=name)
    try:
        return await read_document(name, data, limits)
    except DocumentError as err:
        return text(lang, f"notes_{err.reason}", name=name, mb="", s=f"{limits.seconds:g}")


def upload_limits(settings: BotSettings) -> Limits:
    return Limits(chars=settings.notes_max_chars, seconds=settings.notes_extract_timeout_s,
                  memory_mb=settings.notes_extract_memory_mb)


def cut_lines(lang: Lang, read: ReadDocument, limits: Limits) -> list[str]:
    """What of the file was not kept, and why (none: all of it was)."""
    lines = []
    if read.stop is not Stop.NONE:
        if read.kind != "pdf":
            key = "notes_cut_chars_text" if read.stop is Stop.CHARS else "notes_cut_text"
            lines.append(text(lang, key, kept=f"{read.chars:,}", total=f"{read.total:,}",
                              cap=f"{limits.chars:,}"))
        else:
            lines.append(text(lang, f"notes_cut_{read.stop.value}", read.parts,
                              pages=read.parts,
                              total=read.total, cap=f"{limits.chars:,}",
                              s=f"{limits.seconds:g}"))
    if read.long_pages:
        lines.append(text(lang, "notes_cut_long", read.long_pages, count=read.long_pages,
                          cap=f"{limits.page_chars:,}"))
    return lines


async def _forget(context: Context, msg: Message, sender: Sender, name: str) -> None:
    lang = await words_lang(context, msg.chat_id, sender.lang)
    index = context.services.notes
    if index is None:
        await context.parts.outbox.say(msg.chat_id, msg.message_id, text(lang, "notes_off"))
        return
    if not await _may_change(context, msg, sender):
        await context.parts.outbox.notice(msg.chat_id, msg.message_id, sender.id,
                                    text(lang, "notes_admins"), Notice.ADMINS_ONLY, "notes")
        return
    gone = bool(name) and await index.forget_upload(msg.chat_id, name)
    key = "notes_forgotten" if gone else "notes_not_found"
    await context.parts.outbox.say(msg.chat_id, msg.message_id, text(lang, key, name=name))


async def _list(context: Context, msg: Message, lang: Lang) -> None:
    index = context.services.notes
    if index is None:
        await context.parts.outbox.say(msg.chat_id, msg.message_id, text(lang, "notes_off"))
        return
    files = await index.uploads(msg.chat_id)
    if not files:
        await context.parts.outbox.say(msg.chat_id, msg.message_id, text(lang, "notes_none"))
        return
    lines = "\n".join(text(lang, "notes_line_pdf" if f.kind == "pdf" else "notes_line_text",
                           f.parts, name=f.name, parts=f.parts, chars=f"{f.chars:,}")
                      for f in files)
    await context.parts.outbox.say(msg.chat_id, msg.message_id,
                             text(lang, "notes_list") + "\n" + lines + "\n\n"
                             + text(lang, "notes_hint"))
