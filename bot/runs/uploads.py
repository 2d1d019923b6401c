"""Who may upload course notes now: one upload at a time per chat (reading and indexing one
costs a process and seconds of writes), and at most NOTES_UPLOAD_RATE_LIMIT per user."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import StrEnum

from bot.runs.quota import Cooldowns
from bot.settings import RateLimit


class Refusal(StrEnum):
    BUSY = "busy"
    """The chat's previous upload is still being read or indexed."""
    RATE = "rate"


@dataclass
class UploadGate:
    rate: Cooldowns | None
    _busy: set[int] = field(default_factory=set)

    @classmethod
    def of(cls, limit: RateLimit | None) -> UploadGate:
        return cls(limit and Cooldowns(limit.runs, limit.window_s))

    @contextmanager
    def enter(self, chat_id: int, user_id: int,
              exempt: bool = False) -> Iterator[tuple[Refusal | None, float]]:
        """(None, 0.0) and the chat's slot until the block ends; or why not, and the seconds
        until the user may upload again (RATE). A refused upload uses none of the rate.
        `exempt`: no rate limit (ADMIN_USER_IDS)."""
        if chat_id in self._busy:
            yield Refusal.BUSY, 0.0
            return
        wait = 0.0 if exempt or self.rate is None else self.rate.take(user_id)
        if wait:
            yield Refusal.RATE, wait
            return
        self._busy.add(chat_id)
        try:
            yield None, 0.0
        finally:
            self._busy.discard(chat_id)
