"""Questions about photos: a photo with `/ask …` (or /plain, /compare, /quiz, /step, /plan)
as its caption, `/ask` as a reply to a photo, any photo in a private chat (its caption is the
question; without one, "what does this show / solve it" in the chat's language), an album
(its photos together, at most ALBUM_MAX_PHOTOS), and a picture sent as a file the same ways.

The photo is downloaded at the largest size Telegram keeps within the pixel cap, checked
(agent/inputs/images.py) and handed to the run service, which reads it as the run's first
step. What cannot be read gets one line in the asker's language; nothing else waits."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable

from telegram import Document, Message, PhotoSize, Update
from telegram.constants import ChatType
from telegram.error import TelegramError
from telegram.ext import BaseHandler, CommandHandler, MessageHandler, filters

from agent.inputs.images import MAX_PIXELS, ImageProblem, ImageRefused, Picture, check
from bot.store.kinds import RunMode
from bot.telegram.context import Context
from bot.telegram.delivery.outbox import Notice
from bot.telegram.handlers.ask_command import start_question
from bot.telegram.handlers.common import chat_settings, sender_of
from bot.view.i18n import text

log = logging.getLogger(__name__)

MAX_DOWNLOAD_BYTES = 20 * 1024 * 1024
"""Telegram's limit on what a bot may download (getFile)."""
COMMANDS = ("ask", "plain", "compare", "quiz", "step", "plan")
_COMMAND = re.compile(r"/(\w{1,32})(?:@(\w{1,64}))?(?:\s+|$)")


class _RepliesToPicture(filters.MessageFilter):
    """A message that replies to a photo or a picture sent as a file."""

    def filter(self, message: Message) -> bool:
        replied = message.reply_to_message
        return replied is not None and bool(
            replied.photo or (replied.document and replied.document.mime_type
                              and replied.document.mime_type.startswith("image/")))


def handlers() -> list[BaseHandler]:  # type: ignore[type-arg]
    """Before the text questions' handlers: a command replying to a photo is about it."""
    return [CommandHandler(list(COMMANDS), reply_to_picture, filters=_RepliesToPicture()),
            MessageHandler(filters.PHOTO | filters.Document.IMAGE, photo_message)]


async def reply_to_picture(update: Update, context: Context) -> None:
    """`/ask …` sent as a reply to a photo: a question about that photo."""
    msg = update.effective_message
    assert msg is not None and msg.reply_to_message is not None
    await ask_about(update, context, [msg.reply_to_message], asked=msg)


def command_of(caption: str, username: str) -> tuple[str, str] | None:
    """('ask', the rest) for a caption that is one of our ask commands; None otherwise."""
    found = _COMMAND.match(caption)
    if found is None:
        return None
    name, target = found[1].lower(), found[2]
    if name not in COMMANDS or (target and target.lower() != username.lower()):
        return None
    return name, caption[found.end():]


def largest_within(sizes: tuple[PhotoSize, ...], max_pixels: int = MAX_PIXELS) -> PhotoSize | None:
    """The largest copy Telegram keeps within the pixel cap and its download limit."""
    fits = [s for s in sizes if s.width * s.height <= max_pixels
            and (s.file_size or 0) <= MAX_DOWNLOAD_BYTES]
    return max(fits, key=lambda s: s.width * s.height, default=None)


async def photo_message(update: Update, context: Context) -> None:
    """A photo (or a picture sent as a file): one of an album, or a question on its own."""
    msg = update.effective_message
    assert msg is not None
    if msg.media_group_id is not None:
        context.parts.albums.add(msg, lambda album: ask_about(update, context, album))
        return
    await ask_about(update, context, [msg])


async def ask_about(update: Update, context: Context, album: list[Message],
                    asked: Message | None = None) -> None:
    """Ask about the photos of `album` if one of our commands asks (`asked`: a reply's
    command, else a caption's), or the chat is private; anything else is not ours."""
    first = album[0]
    caption = next((m.caption for m in album if m.caption), "")
    said = asked or first
    command = command_of(said.text or caption, context.bot.username)
    if command is None and first.chat.type != ChatType.PRIVATE:
        return
    name, typed = command or ("ask", caption)
    if asked is not None and not typed.strip():
        typed = caption  # /ask alone under a photo: the photo's caption is the question
    sender = sender_of(update)
    chat = await chat_settings(context, first.chat_id)
    lang = chat.words_lang(sender.lang)

    async def notice(key: str, **values: object) -> None:
        await context.parts.outbox.notice(first.chat_id, said.message_id, sender.id,
                                    text(lang, key, **values), Notice.USAGE, f"photo_{key}")

    if context.services.settings.photos_read_by is None:
        await notice("photo_off")
        return
    if name == "quiz" and first.chat.type == ChatType.PRIVATE:
        await notice("quiz_private")
        return
    cap = context.services.settings.album_max_photos
    pictures: list[Picture] = []
    for msg in album[:cap]:
        picture = await _picture(context, msg, notice)
        if picture is None:
            return
        pictures.append(picture)
    if len(album) > cap:
        await notice("album_capped", n=cap, more=len(album) - cap)
    question = typed.strip() or text(lang, "photo_question")
    await start_question(update, context, RunMode.ASK if name in ("plan", "step", "quiz")
                         else RunMode(name), question, said, replies_count=False,
                         planner=True if name == "plan" else None, command=name,
                         walkthrough=name == "step", quiz=name == "quiz", photos=tuple(pictures))


async def _picture(context: Context, msg: Message,
                   notice: Callable[..., Awaitable[None]]) -> Picture | None:
    """The message's picture downloaded and checked; None (the asker told why) if it cannot
    be read."""
    file: PhotoSize | Document | None
    if msg.photo:
        file = largest_within(msg.photo)
    else:
        file = msg.document if (msg.document and (msg.document.file_size or 0)
                                <= MAX_DOWNLOAD_BYTES) else None
    if file is None:
        await notice("photo_too_large", mp=MAX_PIXELS // 1_000_000)
        return None
    try:
        data = bytes(await (await context.bot.get_file(file.file_id)).download_as_bytearray())
    except TelegramError as err:
        log.warning("chat %s: a photo could not be downloaded (%s)", msg.chat_id, err)
        await notice("photo_download_failed")
        return None
    try:
        return await asyncio.to_thread(check, data)
    except ImageRefused as refused:
        await notice({ImageProblem.NOT_IMAGE: "photo_not_image",
                      ImageProblem.TOO_LARGE: "photo_too_large",
                      ImageProblem.ANIMATED: "photo_animated"}[refused.problem],
                     mp=MAX_PIXELS // 1_000_000)
        return None
