"""Telegram's global send rate: about 30 messages a second for the whole bot, shared by
priority, woken by events (a call ending, the oldest call leaving the window), never polled.

Telegram counts a message when it arrives; we cannot see that moment, only that it lies
between the grant and the end of the call. So a call holds its place from the grant until
`window_s` after it *ended*: however the event loop's lag bunches the sends, no window of
arrivals ever holds more than `most` calls (each counted call's held span covers the end
of any window its arrival falls in). The cost is a little throughput (`most` per
`window_s` + the call's latency), the gain is no 429 from bunching.

Waiters are served by priority (asked again at each grant: a draft that became the final
state meanwhile moves up), then first come, first served.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(eq=False)
class _Waiter:
    priority: Callable[[], int]
    order: int
    granted: asyncio.Future[None]

    def rank(self) -> tuple[int, int]:
        return self.priority(), self.order


class SendRate:
    def __init__(self, most: int, window_s: float) -> None:
        self.most, self.window_s = most, window_s
        self._in_flight = 0
        self._ended: deque[float] = deque()
        """When the calls of the last window ended (each still holds its place)."""
        self._waiting: list[_Waiter] = []
        self._order = itertools.count()
        self._timer: asyncio.TimerHandle | None = None

    async def take(self, priority: Callable[[], int]) -> None:
        """Wait for a place; the caller makes one call, then `release()` (always)."""
        if not self._waiting and self._room():
            self._in_flight += 1
            return
        me = _Waiter(priority, next(self._order), asyncio.get_running_loop().create_future())
        self._waiting.append(me)
        # A full window of calls that have all ended wakes no one by itself: set the timer
        # for the oldest one leaving it (or grant at once if there is room after all).
        self._grant()
        try:
            await me.granted
        except BaseException:
            if me in self._waiting:
                self._waiting.remove(me)
            elif me.granted.done() and not me.granted.cancelled():
                self.release(used=False)  # granted just as it was cancelled: hand it on
            raise

    def try_take(self) -> bool:
        """A place now if one is free and no one waits (for what may be skipped: typing)."""
        if self._waiting or not self._room():
            return False
        self._in_flight += 1
        return True

    def release(self, used: bool = True) -> None:
        """The call ended (`used`: it was made, so it counts for the next `window_s`)."""
        self._in_flight -= 1
        if used:
            self._ended.append(time.monotonic())
        self._grant()

    def _room(self) -> bool:
        now = time.monotonic()
        while self._ended and now - self._ended[0] >= self.window_s:
            self._ended.popleft()
        return self._in_flight + len(self._ended) < self.most

    def _grant(self) -> None:
        """Hand free places to the most urgent waiters; if some still wait, wake up when the
        oldest counted call leaves the window (a call ending wakes us through `release`)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        while self._waiting and self._room():
            nxt = min(self._waiting, key=_Waiter.rank)
            self._waiting.remove(nxt)
            if not nxt.granted.done():
                self._in_flight += 1
                nxt.granted.set_result(None)
        if self._waiting and self._ended:
            delay = self._ended[0] + self.window_s - time.monotonic()
            self._timer = asyncio.get_running_loop().call_later(max(delay, 0.0), self._grant)
