"""The bot's settings: the agent's, plus Telegram's, from the environment and `.env`."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import AliasChoices, Field, SecretStr, field_validator, model_validator
from pydantic_settings import NoDecode

from agent.model.photo_route import PhotoReading, with_ocr
from agent.settings import AgentSettings
from bot.store.database_url import DatabaseUrl
from bot.store.db import DEFAULT_POOL_SIZE

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


@dataclass(frozen=True, slots=True)
class RateLimit:
    """At most `runs` uses (questions, searches) per user in any `window_s` seconds."""

    runs: int
    window_s: int

    @classmethod
    def parse(cls, value: str) -> RateLimit | None:
        """`5/10m` (also `s`, `h`, `d`; a bare number is seconds); `off`, `0` or empty: none."""
        value = value.strip().lower()
        if value in ("", "off", "0", "none"):
            return None
        found = re.fullmatch(r"(\d+)\s*/\s*(\d+)\s*([smhd]?)", value)
        if found is None or int(found[1]) < 1 or int(found[2]) < 1:
            raise ValueError("expected runs/window such as 5/10m, or off")
        return cls(int(found[1]), int(found[2]) * _UNITS[found[3] or "s"])


class BotSettings(AgentSettings):
    telegram_bot_token: SecretStr
    telegram_api_base_url: str = "https://api.telegram.org/bot"
    """The token is appended to it, as python-telegram-bot's `base_url` does."""
    allowed_chat_ids: Annotated[frozenset[int], NoDecode] = frozenset()
    """Chats the bot answers in; empty means every chat."""
    admin_user_ids: Annotated[frozenset[int], NoDecode] = frozenset()
    """Users who may stop anyone's run."""
    webhook_url: str = ""
    """When set, Telegram pushes updates to this public URL (served by the HTTP server, at
    its path) instead of long polling."""
    http_listen: str = ""
    """`host:port` of the HTTP server (webhook, class board, API, /healthz); `off`: none.
    Empty: `0.0.0.0:$PORT` when PORT is set, else 127.0.0.1:8080."""
    port: int | None = Field(default=None, ge=1, le=65535)
    """Set by PaaS platforms: listen on 0.0.0.0:$PORT (unless HTTP_LISTEN says otherwise)."""
    public_url: str = ""
    """The base of links the bot hands out (the board); empty: the listen address."""
    api_tokens: Annotated[tuple[SecretStr, ...], NoDecode] = ()
    """Bearer tokens of the HTTP API, each its own scope; none: the API answers 404."""
    webhook_secret: SecretStr = SecretStr("")
    """Sent by Telegram with every webhook call, so strangers cannot post fake updates.
    Empty with WEBHOOK_URL set: a random one, made at start and registered by setWebhook
    (the bot sets the webhook at every start, so it never needs to be known elsewhere)."""
    database_path: Path = Path("data/glassbox.sqlite3")
    """The bot's SQLite file: transcripts, and the course-notes index search_notes uses."""
    database_url: DatabaseUrl = SecretStr("")
    """`postgresql://…` (or `postgres://…`, as PaaS platforms set it): the whole store on
    that PostgreSQL server instead, so it survives a redeploy; empty: SQLite at
    DATABASE_PATH."""
    database_pool_size: int = Field(default=DEFAULT_POOL_SIZE, ge=1, le=1000)
    """PostgreSQL connections this process opens at most; past them a statement waits for
    one. Every instance's, together, must fit the server's connection limit."""
    transcript_retention_days: int | None = Field(default=None, ge=1)
    """Runs older than this are deleted once a day; empty keeps them forever."""
    pause_timeout_s: float = Field(default=300.0, gt=0, validation_alias=AliasChoices(
        "PAUSE_TIMEOUT_S", "STEP_TIMEOUT_S", "pause_timeout_s"))
    """A pause for a person's decision (/step, AGENT_CONFIRM_TOOLS) that nobody decides
    within this many seconds stops the run. STEP_TIMEOUT_S, its earlier name, is read too."""
    quiz_timeout_s: float = Field(default=90.0, gt=0, le=3600)
    """Quiz mode: a class vote nobody reveals within this many seconds is closed, and the
    round goes on."""


    # --- Abuse and access ---
    user_rate_limit: Annotated[RateLimit | None, NoDecode] = RateLimit(5, 600)
    """Questions one user may start per window (USER_RATE_LIMIT=5/10m); None: no limit."""
    chat_daily_token_budget: int | None = Field(default=1_000_000, ge=1)
    """Tokens one chat may use per UTC day, counted from the store; None: no budget."""
    course_anonymous_askers: bool = False
    """The course page's CSV names askers "Student 1", "Student 2"… instead of as the chat
    shows them (COURSE_ANONYMOUS_ASKERS)."""
    history_rate_limit: Annotated[RateLimit | None, NoDecode] = RateLimit(10, 60)
    """/history lists and searches one sender may ask for per window (HISTORY_RATE_LIMIT),
    counted in memory; None: no limit."""

    notes_upload_rate_limit: Annotated[RateLimit | None, NoDecode] = RateLimit(10, 600)
    """/notes uploads one user may make per window (NOTES_UPLOAD_RATE_LIMIT), counted in
    memory; None: no limit. A chat reads one upload at a time whatever this says."""
    notes_max_chars: int = Field(default=1_000_000, ge=1000)
    """Characters of one uploaded file kept in the notes index; the rest is cut (and the
    uploader told)."""
    notes_extract_timeout_s: float = Field(default=30.0, gt=0)
    """Reading one uploaded file stops after this long; what was read by then is kept."""
    notes_extract_memory_mb: int = Field(default=768, ge=128)
    """The memory the process reading an uploaded file may use."""
    notes_readers: int = Field(default=2, ge=1, le=64)
    """Uploaded files read at once, across all chats (NOTES_READERS); the others wait their
    turn. The readers use at most NOTES_EXTRACT_MEMORY_MB times this."""

    # --- Voice questions ---
    voice: bool = True
    """VOICE=off: voice messages get the "text only" line, as stickers do."""
    voice_max_s: int = Field(default=60, ge=1, le=600)
    """The longest voice message heard, in seconds; a longer one is refused, the limit
    named."""
    whisper_model: str = "base"
    """The embedded Whisper's model: a name faster-whisper downloads on first use, or a
    directory holding a CTranslate2 conversion (model.bin, config.json, tokenizer.json,
    vocabulary.json)."""
    whisper_languages: str = "zh,en"
    """The languages (Whisper's codes, comma-separated) a voice message is heard in: the
    likeliest of them; empty: whichever Whisper hears."""
    whisper_api_url: str = ""
    """An OpenAI-compatible server's base URL (…/v1) whose /audio/transcriptions hears
    voice messages instead of the embedded Whisper; empty: the embedded one."""
    whisper_api_key: SecretStr = SecretStr("")
    whisper_api_model: str = "whisper-1"
    """The model name that server knows."""
    photo_ocr: bool = True
    """PHOTO_OCR: read the text of photos sent with a question with Glassbox's OCR (off:
    photos go to the model only; with PHOTO_READING=ocr they are refused with one line, as
    stickers are)."""
    photo_reading: PhotoReading = PhotoReading.AUTO
    """PHOTO_READING: who reads a question's photos: `model` gives them to the model as
    images, `ocr` gives it the text Glassbox's OCR read, `auto` the model when its endpoint
    takes images (a model known to take text only, or an endpoint that refused a photo once,
    gets the OCR's text)."""
    ocr_timeout_s: float = Field(default=60.0, gt=0)
    """Reading one photo stops after this long; the run goes on with the question alone."""
    ocr_memory_mb: int = Field(default=1536, ge=512)
    """The address space of the process reading a photo (ONNX Runtime maps ~1.2 GB)."""
    ocr_at_once: int = Field(default=1, ge=1, le=16)
    """Photos read at once on the machine (each uses OCR_THREADS cores)."""
    ocr_threads: int = Field(default=2, ge=1, le=16)
    """Cores one photo's reading uses."""
    album_max_photos: int = Field(default=4, ge=1, le=10)
    """Photos of one album (sent together) read for one question; the rest are left out and
    the asker told."""

    max_concurrent_runs: int = Field(default=100, ge=1)
    """Runs at once (MAX_CONCURRENT_RUNS); past it questions queue, fair across chats
    (measured in bench/scale.py, docs/scaling.md)."""

    @field_validator("user_rate_limit", "history_rate_limit", "notes_upload_rate_limit",
                     mode="before")
    @classmethod
    def _rate(cls, value: Any) -> Any:
        return RateLimit.parse(value) if isinstance(value, str) else value

    @field_validator("transcript_retention_days", "chat_daily_token_budget", "port",
                     mode="before")
    @classmethod
    def _empty_is_none(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("allowed_chat_ids", "admin_user_ids", mode="before")
    @classmethod
    def _id_list(cls, value: Any) -> Any:
        """`-100123, 42` or `-100123 42` in the environment; a list or set in code."""
        if isinstance(value, str):
            return frozenset(int(part) for part in value.replace(",", " ").split())
        return value

    @field_validator("api_tokens", mode="before")
    @classmethod
    def _tokens(cls, value: Any) -> Any:
        """`tok1, tok2` in the environment; a list in code."""
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value

    @field_validator("http_listen", mode="after")
    @classmethod
    def _listen(cls, value: str) -> str:
        if value.strip().lower() not in ("", "off"):
            listen_address(value)
        return value

    @field_validator("webhook_secret", mode="after")
    @classmethod
    def _secret(cls, value: SecretStr) -> SecretStr:
        """Telegram accepts 1-256 characters of A-Z, a-z, 0-9, _ and -."""
        if value.get_secret_value() and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}",
                                                         value.get_secret_value()):
            raise ValueError("expected 1 to 256 characters of A-Z, a-z, 0-9, _ and -")
        return value

    def database(self) -> Path | str:
        """Where the store lives: DATABASE_URL when set, else the file DATABASE_PATH."""
        return self.database_url.get_secret_value() or self.database_path

    @model_validator(mode="after")
    def _webhook(self) -> BotSettings:
        if not self.webhook_url:
            return self
        if self.http_address() is None:
            raise ValueError("WEBHOOK_URL needs the HTTP server, but HTTP_LISTEN is off")
        if not self.webhook_secret.get_secret_value():
            self.webhook_secret = SecretStr(secrets.token_urlsafe(32))
        return self

    def http_address(self) -> tuple[str, int] | None:
        """Where the HTTP server listens; None when HTTP_LISTEN is `off`."""
        value = self.http_listen.strip()
        if value.lower() == "off":
            return None
        if value:
            return listen_address(value)
        return ("0.0.0.0", self.port) if self.port else ("127.0.0.1", 8080)

    def base_url(self) -> str:
        """PUBLIC_URL without a trailing slash, or the listen address as a URL."""
        if self.public_url.strip():
            return self.public_url.strip().rstrip("/")
        host, port = self.http_address() or ("127.0.0.1", 8080)
        host = "localhost" if host in ("0.0.0.0", "::", "") else host
        return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"

    @property
    def photos_read_by(self) -> PhotoReading | None:
        """PHOTO_READING as PHOTO_OCR leaves it; None: photos are refused."""
        return with_ocr(self.photo_reading, self.photo_ocr)

    @property
    def telegram_file_base_url(self) -> str:
        """Where files are downloaded from: the same Bot API server, `…/bot` → `…/file/bot`
        (python-telegram-bot's `base_file_url`), so a self-hosted server serves them too."""
        base = self.telegram_api_base_url.rstrip("/")
        head, bot = base.rsplit("/", 1) if "/" in base else ("", base)
        return f"{head}/file/{bot}"

    def chat_allowed(self, chat_id: int) -> bool:
        return not self.allowed_chat_ids or chat_id in self.allowed_chat_ids

    def is_admin(self, user_id: int) -> bool:
        return user_id in self.admin_user_ids


def listen_address(value: str) -> tuple[str, int]:
    """`127.0.0.1:8080`, `0.0.0.0:80`, `[::1]:8080` or `:8080` (every address) as (host, port)."""
    host, sep, port = value.strip().rpartition(":")
    if not sep or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError("expected host:port such as 127.0.0.1:8080, or off")
    return host.strip("[]") or "0.0.0.0", int(port)
