"""The per-chat send budget every live message in a chat shares.

Telegram allows about one message a second per chat, 20 a minute in a group and 30 a
second overall, and answers 429 `retry_after` beyond that. A group may spend its minute's
20 messages in a burst (still one a second), so a single answer is not held back by a
spread-out budget; a class asking at once still gets 20 a minute. Each chat gets its own
turn-taking lock and clock, so a busy or penalised chat never slows another one; waiters
in a chat are served first come, first served, so five answers in one group take turns.
The next call in a chat may start `interval` after the previous one *finished*, so the
gap Telegram sees is never shorter than the one we meant.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace


@dataclass(frozen=True, slots=True)
class Limits:
    chat_interval_s: float = 1.0
    group_per_window: int = 20
    group_window_s: float = 60.0
    global_per_window: int = 30
    global_window_s: float = 1.0

    def scaled(self, factor: float) -> Limits:
        """The same limits on a faster clock (tests run minutes of traffic in a second)."""
        return replace(self, chat_interval_s=self.chat_interval_s * factor,
                       group_window_s=self.group_window_s * factor,
                       global_window_s=self.global_window_s * factor)


@dataclass
class Turn:
    pacer: Pacer
    used: bool = False

    async def use(self) -> None:
        """Call before the API call; a turn not used costs no budget."""
        self.used = True
        await self.pacer._global_slot()


@dataclass
class _Chat:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    ready_at: float = 0.0
    sent: deque[float] = field(default_factory=deque)
    """When this group's calls of the last window finished."""


class Pacer:
    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits or Limits()
        self._chats: dict[int, _Chat] = {}
        self._global: deque[float] = deque()

    @asynccontextmanager
    async def turn(self, chat_id: int) -> AsyncIterator[Turn]:
        """Wait for this chat's next slot; the body makes at most one API call."""
        chat = self._chats.setdefault(chat_id, _Chat())
        async with chat.lock:
            await _sleep_until(chat.ready_at)
            if chat_id < 0:
                await _window_slot(chat.sent, self.limits.group_per_window,
                                   self.limits.group_window_s)
            turn = Turn(self)
            try:
                yield turn
            finally:
                if turn.used:
                    done = time.monotonic()
                    chat.ready_at = max(chat.ready_at, done + self.limits.chat_interval_s)
                    if chat_id < 0:
                        chat.sent.append(done)

    def penalise(self, chat_id: int, retry_after_s: float) -> None:
        """Telegram said 429 for this chat: nothing goes there before `retry_after_s`."""
        chat = self._chats.setdefault(chat_id, _Chat())
        chat.ready_at = max(chat.ready_at, time.monotonic() + retry_after_s)

    async def _global_slot(self) -> None:
        await _window_slot(self._global, self.limits.global_per_window,
                           self.limits.global_window_s)
        self._global.append(time.monotonic())


async def _window_slot(times: deque[float], most: int, window: float) -> None:
    """Wait until fewer than `most` of `times` fall in the last `window` seconds."""
    while True:
        now = time.monotonic()
        while times and now - times[0] >= window:
            times.popleft()
        if len(times) < most:
            return
        await asyncio.sleep(times[0] + window - now)


async def _sleep_until(when: float) -> None:
    delay = when - time.monotonic()
    if delay > 0:
        await asyncio.sleep(delay)
