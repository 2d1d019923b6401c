"""Voice questions: a voice message or an audio file in a private chat, or an asking command
(/ask, /plain, /compare, /plan, /step, /quiz) sent as a reply to one in a group, is downloaded
through the same Bot API server, heard (bot/voice/) and asked as if it had been typed; the
run speaks the language it was heard in unless the chat set one. A chat's messages are
heard one at a time; a message longer than VOICE_MAX_S is refused with the limit named,
before it is downloaded when Telegram's duration says so, else once its sound does."""

from __future__ import annotations

import logging
from datetime import timedelta

from telegram import Audio, Message, Update, Voice
from telegram.constants import ChatType
from telegram.error import TelegramError
from telegram.ext import BaseHandler, CommandHandler, MessageHandler, filters

from agent.events import InputKind, InputRead, ReadSegment
from agent.lang import Lang
from bot.runs.uploads import Refusal
from bot.store.kinds import RunMode
from bot.telegram.context import Context
from bot.telegram.delivery.outbox import Notice
from bot.telegram.handlers.ask_command import MODES, Command, start_question
from bot.telegram.handlers.common import chat_settings, lang_of, sender_of
from bot.view.i18n import text
from bot.voice.transcriber import Heard, NotHeard, Transcriber, Unheard

log = logging.getLogger(__name__)

MAX_DOWNLOAD_BYTES = 20 * 1024 * 1024
"""Telegram's limit on what a bot may download (getFile)."""


class _RepliesToSound(filters.MessageFilter):
    def filter(self, message: Message) -> bool:
        replied = message.reply_to_message
        return replied is not None and sound_of(replied) is not None


def handlers() -> list[BaseHandler]:  # type: ignore[type-arg]
    """Before the asking commands' own handlers, which would take the reply as text."""
    return [
        MessageHandler((filters.VOICE | filters.AUDIO) & filters.ChatType.PRIVATE,
                       voice_message),
        CommandHandler([*MODES, "plan", "step", "quiz"], ask_about_sound,
                       filters=_RepliesToSound()),
    ]


def sound_of(msg: Message) -> Voice | Audio | None:
    return msg.voice or msg.audio


def _seconds(duration: int | timedelta | None) -> float:
    """Telegram's duration (python-telegram-bot gives a timedelta, or whole seconds)."""
    if isinstance(duration, timedelta):
        return duration.total_seconds()
    return float(duration or 0)


async def voice_message(update: Update, context: Context) -> None:
    """A voice message or audio file in a private chat: what it says is the question."""
    msg = update.effective_message
    assert msg is not None
    await _ask_heard(update, context, msg, msg, Command(RunMode.ASK, "", ""))


async def ask_about_sound(update: Update, context: Context) -> None:
    """An asking command as a reply to a voice message or audio file: the command's own
    words, if any, ask about what it says (as about a quoted text message)."""
    msg = update.effective_message
    assert msg is not None and msg.reply_to_message is not None
    await _ask_heard(update, context, msg, msg.reply_to_message, Command.of(msg))


async def _ask_heard(update: Update, context: Context, msg: Message, sounded: Message,
                     asked: Command) -> None:
    sender = sender_of(update)
    chat = await chat_settings(context, msg.chat_id)
    lang = chat.words_lang(sender.lang)
    voice = context.services.voice

    async def notice(key: str, kind: Notice, about: str = "voice", **values: object) -> None:
        await context.parts.outbox.notice(msg.chat_id, msg.message_id, sender.id,
                                    text(lang, key, **values), kind, about)

    sound = sound_of(sounded)
    assert sound is not None
    if voice is None:
        await notice("text_only", Notice.USAGE)
        return
    if asked.quiz and msg.chat.type == ChatType.PRIVATE:
        await notice("quiz_private", Notice.USAGE, "quiz")
        return
    if _seconds(sound.duration) > voice.max_s:
        await notice("voice_too_long", Notice.TOO_LONG, limit=voice.max_s)
        return
    if (sound.file_size or 0) > MAX_DOWNLOAD_BYTES:
        await notice("voice_too_big", Notice.TOO_LONG,
                     mb=f"{(sound.file_size or 0) / 1024 / 1024:.1f}")
        return
    with context.parts.hearings.enter(msg.chat_id, sender.id) as (refused, _):
        if refused is Refusal.BUSY:
            await notice("voice_chat_busy", Notice.BUSY)
            return
        speaker = lang_of(sounded.from_user) if sounded.from_user else sender.lang
        hint = chat.lang if chat.lang != "auto" else speaker
        async with context.parts.typing.shown(msg.chat_id):
            heard = await _hear(context, msg, sound, voice, hint)
    if isinstance(heard, Unheard):
        key, kind = UNHEARD[heard]
        await notice(key, kind, limit=voice.max_s)
        return
    question = heard.text
    if asked.typed.strip():
        question = asked.typed.strip() + "\n\n" + "\n".join(
            f"> {line}" for line in heard.text.splitlines())
    await start_question(update, context, asked.mode, question, msg, replies_count=False,
                         planner=asked.planner, command=asked.name, walkthrough=asked.walkthrough,
                         quiz=asked.quiz, spoken=heard.lang,
                         heard=(heard_step(heard, voice.engine),))


def heard_step(heard: Heard, engine: str) -> InputRead:
    """What was heard, as the run's first step: Glassbox's, by `engine`, a segment a line."""
    return InputRead(round=0, kind=InputKind.VOICE, engine=engine,
                     seconds=round(heard.seconds, 1),
                     segments=tuple(ReadSegment(text.strip(), round(sure, 3), line)
                                    for line, (text, sure) in enumerate(heard.segments, 1)
                                    if text.strip()))


async def _hear(context: Context, msg: Message, sound: Voice | Audio, voice: Transcriber,
                hint: Lang) -> Heard | Unheard:
    try:
        file = await context.bot.get_file(sound.file_id)
        data = bytes(await file.download_as_bytearray())
    except TelegramError as err:
        log.warning("chat %s: downloading a voice message failed (%s)", msg.chat_id,
                    type(err).__name__)
        return Unheard.FAILED
    try:
        return await voice.hear(data, hint)
    except NotHeard as err:
        return err.reason


UNHEARD: dict[Unheard, tuple[str, Notice]] = {
    Unheard.TOO_LONG: ("voice_too_long", Notice.TOO_LONG),
    Unheard.NOT_AUDIO: ("voice_not_audio", Notice.USAGE),
    Unheard.SILENT: ("voice_silent", Notice.USAGE),
    Unheard.BUSY: ("voice_busy", Notice.BUSY),
    Unheard.FAILED: ("voice_failed", Notice.FAILED),
}
