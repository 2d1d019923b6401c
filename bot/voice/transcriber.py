"""Hearing a voice message: the embedded Whisper (a process of its own, bot/voice/
whisper_worker.py) or a school's OpenAI-compatible `/audio/transcriptions` server
(WHISPER_API_URL). Either way the sound is measured first, within the cap, and what was
heard comes back with its language.

Bounded: one message heard at a time on this machine (a 2-core school server keeps a core
for the answers), at most MOST_WAITING waiting; a chat's one at a time is the caller's
(bot/runs/uploads.py)."""

from __future__ import annotations

import asyncio
import logging
import math
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from openai import APIError, AsyncOpenAI

from agent.lang import Lang
from bot.bot_settings import BotSettings
from bot.voice.audio import RATE, NotAudio, TooLong, decode
from bot.worker_process import Worker, WorkerError, WorkerFailed
from wire.wire_errors import GlassboxError

log = logging.getLogger(__name__)

MOST_WAITING = 16
HEAR_TIMEOUT_S = 180.0
"""One message, decoded and heard: a minute of speech takes seconds (docs/voice.md); the
rest is for Whisper's retries at higher temperatures on sound it cannot make out."""
LOAD_TIMEOUT_S = 900.0
"""The first message also waits for the model: loaded from disk in seconds, or downloaded
on a school's first use (about 145 MB)."""
LANGS: dict[str, Lang] = {"en": "en", "zh": "zh", "english": "en", "chinese": "zh",
                          "mandarin": "zh"}
"""Whisper's language codes, and the names OpenAI's verbose_json gives, that a run speaks."""


class Unheard(StrEnum):
    TOO_LONG = "too_long"
    NOT_AUDIO = "not_audio"
    SILENT = "silent"
    """Sound, but no words in it."""
    BUSY = "busy"
    """MOST_WAITING messages wait already."""
    FAILED = "failed"
    """The model or the server failed (logged)."""


class NotHeard(GlassboxError):
    def __init__(self, reason: Unheard) -> None:
        super().__init__(reason.value)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Heard:
    segments: tuple[tuple[str, float], ...]
    """What was said, piece by piece (Whisper's segments), each with the hearer's
    confidence in it (0–1: the mean probability of its tokens)."""
    lang: Lang | None
    """The language heard, when a run can speak it (else the text decides)."""
    seconds: float

    @property
    def text(self) -> str:
        return "".join(text for text, _ in self.segments).strip()


class Transcriber(Protocol):
    max_s: int
    engine: str
    """What hears, as the chain names it."""

    async def hear(self, data: bytes, hint: Lang | None = None) -> Heard:
        """What `data` says; `hint`: the language its speaker likely speaks (the chat's, or
        their Telegram's), taken when the sound alone does not tell. NotHeard: why not."""
        ...

    async def close(self) -> None: ...


class _Bounded:
    """MOST_WAITING at most, one heard at a time."""

    def __init__(self, max_s: int, most_waiting: int = MOST_WAITING) -> None:
        self.max_s, self.most_waiting = max_s, most_waiting
        self._waiting = 0
        self._one = asyncio.Lock()

    async def hear(self, data: bytes, hint: Lang | None = None) -> Heard:
        if self._waiting >= self.most_waiting:
            raise NotHeard(Unheard.BUSY)
        self._waiting += 1
        try:
            async with self._one:
                heard = await self._hear(data, hint)
        finally:
            self._waiting -= 1
        if not heard.text.strip():
            raise NotHeard(Unheard.SILENT)
        return heard

    async def _hear(self, data: bytes, hint: Lang | None) -> Heard:
        raise NotImplementedError


class EmbeddedWhisper(_Bounded):
    """faster-whisper in a process of its own, the model WHISPER_MODEL, hearing the
    languages WHISPER_LANGUAGES."""

    def __init__(self, model: str, max_s: int, languages: str = "zh,en",
                 most_waiting: int = MOST_WAITING) -> None:
        super().__init__(max_s, most_waiting)
        self._worker = Worker("bot.voice.whisper_worker", [model, languages], name="voice")
        self.engine = "Whisper"
        self._loaded = False

    async def _hear(self, data: bytes, hint: Lang | None) -> Heard:
        timeout = HEAR_TIMEOUT_S + (0 if self._loaded and self._worker.running
                                    else LOAD_TIMEOUT_S)
        try:
            said, lang, seconds = await self._worker.ask("hear", data, float(self.max_s),
                                                         hint, timeout_s=timeout)
        except WorkerError as err:
            reason = {"TooLong": Unheard.TOO_LONG, "NotAudio": Unheard.NOT_AUDIO}.get(
                err.kind, Unheard.FAILED)
            if reason is Unheard.FAILED:
                log.error("hearing a voice message failed: %s", err)
            raise NotHeard(reason) from None
        except WorkerFailed:
            raise NotHeard(Unheard.FAILED) from None
        self._loaded = True
        return Heard(tuple(said), LANGS.get(lang), seconds)

    async def close(self) -> None:
        await self._worker.close()


class WhisperEndpoint(_Bounded):
    """An OpenAI-compatible `/audio/transcriptions` (WHISPER_API_URL): the sound is measured
    here, then sent as it came."""

    def __init__(self, settings: BotSettings, most_waiting: int = MOST_WAITING) -> None:
        super().__init__(settings.voice_max_s, most_waiting)
        self.model = settings.whisper_api_model
        self.engine = settings.whisper_api_model
        self._client = AsyncOpenAI(base_url=settings.whisper_api_url,
                                   api_key=settings.whisper_api_key.get_secret_value()
                                   or "none", timeout=HEAR_TIMEOUT_S, max_retries=1)

    async def _hear(self, data: bytes, hint: Lang | None) -> Heard:
        try:
            sound = await asyncio.to_thread(decode, data, float(self.max_s))
        except TooLong:
            raise NotHeard(Unheard.TOO_LONG) from None
        except NotAudio:
            raise NotHeard(Unheard.NOT_AUDIO) from None
        seconds = sound.size / RATE
        del sound
        try:
            said = await self._client.audio.transcriptions.create(
                model=self.model, file=("voice.ogg", data), response_format="verbose_json")
        except APIError as err:
            log.error("the transcription server failed: %s", type(err).__name__)
            raise NotHeard(Unheard.FAILED) from None
        lang = (getattr(said, "language", None) or "").strip().lower()
        segments = tuple((s.text, math.exp(s.avg_logprob))
                         for s in getattr(said, "segments", None) or ())
        return Heard(segments or ((said.text, 1.0),), LANGS.get(lang), seconds)

    async def close(self) -> None:
        await self._client.close()


def transcriber(settings: BotSettings) -> Transcriber | None:
    """What VOICE and WHISPER_API_URL choose; None: voice messages are not heard."""
    if not settings.voice:
        return None
    if settings.whisper_api_url.strip():
        return WhisperEndpoint(settings)
    return EmbeddedWhisper(settings.whisper_model, settings.voice_max_s,
                           settings.whisper_languages)
