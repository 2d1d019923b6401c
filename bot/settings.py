"""The bot's settings: the agent's, plus Telegram's, from the environment and `.env`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import NoDecode

from agent.settings import AgentSettings

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
    """When set, Telegram pushes updates to this public URL instead of long polling."""
    webhook_listen: str = "0.0.0.0"
    port: int = Field(default=8443, ge=1, le=65535)
    """Where the webhook server listens (PaaS platforms set PORT)."""
    webhook_secret: SecretStr = SecretStr("")
    """Sent by Telegram with every webhook call, so strangers cannot post fake updates."""
    database_path: Path = Path("data/glassbox.sqlite3")
    """The bot's SQLite file: transcripts, and the course-notes index search_notes uses."""
    transcript_retention_days: int | None = Field(default=None, ge=1)
    """Runs older than this are deleted once a day; empty keeps them forever."""


    # --- Abuse and access (issue 7) ---
    user_rate_limit: Annotated[RateLimit | None, NoDecode] = RateLimit(5, 600)
    """Questions one user may start per window (USER_RATE_LIMIT=5/10m); None: no limit."""
    chat_daily_token_budget: int | None = Field(default=1_000_000, ge=1)
    """Tokens one chat may use per UTC day, counted from the store; None: no budget."""
    history_rate_limit: Annotated[RateLimit | None, NoDecode] = RateLimit(10, 60)
    """/history lists and searches one sender may ask for per window (HISTORY_RATE_LIMIT),
    counted in memory; None: no limit."""

    max_concurrent_runs: int = Field(default=100, ge=1)
    """Runs at once (MAX_CONCURRENT_RUNS); past it questions queue, fair across chats
    (issue 16: measured in bench/scale.py, docs/scaling.md)."""

    @field_validator("user_rate_limit", "history_rate_limit", mode="before")
    @classmethod
    def _rate(cls, value: Any) -> Any:
        return RateLimit.parse(value) if isinstance(value, str) else value

    @field_validator("transcript_retention_days", "chat_daily_token_budget", mode="before")
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

    def chat_allowed(self, chat_id: int) -> bool:
        return not self.allowed_chat_ids or chat_id in self.allowed_chat_ids

    def is_admin(self, user_id: int) -> bool:
        return user_id in self.admin_user_ids
