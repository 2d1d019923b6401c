"""Who may upload course notes now: one upload at a time per chat (reading and indexing one
costs a process and seconds of writes), and at most NOTES_UPLOAD_RATE_LIMIT per user; and
when a file is read: at most NOTES_READERS at once across all chats, each reader being a
process of up to NOTES_EXTRACT_MEMORY_MB. A voice message is an upload too: heard one at a
time per chat, with no rate of its own (its question counts in USER_RATE_LIMIT)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from enum import StrEnum

from bot.bot_settings import RateLimit
from bot.runs.quota import Cooldowns


class Refusal(StrEnum):
    BUSY = "busy"
    """The chat's previous upload is still being read or indexed."""
    RATE = "rate"


class Readers:
    """Files being read now, across all chats: at most `limit`, the others in turn."""

    def __init__(self, limit: int) -> None:
        self._free = asyncio.Semaphore(limit)

    def full(self) -> bool:
        """Whether a file asking now must wait for another to be read first."""
        return self._free.locked()

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        async with self._free:
            yield


@dataclass
class UploadLimits:
    """The limits an upload meets: its chat's one slot, its sender's rate, the readers."""

    rate: Cooldowns | None
    readers: Readers = field(default_factory=lambda: Readers(1))
    _busy: set[int] = field(default_factory=set)

    @classmethod
    def of(cls, limit: RateLimit | None, readers: int) -> UploadLimits:
        return cls(limit and Cooldowns(limit.runs, limit.window_s), Readers(readers))

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
