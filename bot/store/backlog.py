"""A run's writes that met the store down, kept in memory in the order they were made and
written once it answers again: a run that started before an outage gets its steps, its end
and its messages' ids then, instead of staying `running` without them until a restart.

Bounded: past MOST_WRITES the oldest is given up (its run is marked interrupted at the next
start, as a run a restart cut short is, and so is every run whose writes a restart drops)."""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable

from bot.store.db import StoreUnavailable

log = logging.getLogger(__name__)

Write = Callable[[], Awaitable[None]]
MOST_WRITES = 10_000
"""Writes kept at most: a class's runs in flight when the store went down write a few each."""
FIRST_WAIT_S = 1.0
LONGEST_WAIT_S = 15.0
"""Between tries while the store is down: doubling from the first, up to the longest."""
ATTEMPTS_OF_A_FAILING_WRITE = 5
"""A write that fails for another reason than the store being down (a bug, a constraint) is
given up after this many tries, so it does not hold the writes behind it for ever."""


class Backlog:
    def __init__(self, most: int = MOST_WRITES) -> None:
        self.most = most
        self._writes: deque[tuple[Write, str]] = deque()
        self._draining: asyncio.Task[None] | None = None

    def __len__(self) -> int:
        return len(self._writes)

    def keep(self, write: Write, what: str) -> None:
        """Write `write` (which may be repeated) once the store answers, after those kept
        before it."""
        if len(self._writes) >= self.most:
            _, dropped = self._writes.popleft()
            log.error("%s is given up: more than %d writes wait for the database", dropped,
                      self.most)
        self._writes.append((write, what))
        if self._draining is None:
            self._draining = asyncio.create_task(self._drain())

    async def _drain(self) -> None:
        wait, failures = FIRST_WAIT_S, 0
        try:
            while self._writes:
                write, what = self._writes[0]
                try:
                    await write()
                except StoreUnavailable:
                    await asyncio.sleep(wait)
                    wait = min(wait * 2, LONGEST_WAIT_S)
                    continue
                except Exception as err:
                    failures += 1
                    if failures < ATTEMPTS_OF_A_FAILING_WRITE:
                        await asyncio.sleep(wait)
                        continue
                    log.error("storing %s failed %d times; given up: %s", what, failures, err)
                else:
                    log.info("stored %s, which had waited for the database", what)
                self._writes.popleft()
                wait, failures = FIRST_WAIT_S, 0
        finally:
            self._draining = None

    async def close(self) -> None:
        """Stop waiting (the store closes): what is left gets one last try, in order, up to
        the first that fails; the rest is lost, and start-up marks its runs interrupted."""
        if self._draining is not None:
            self._draining.cancel()
            await asyncio.gather(self._draining, return_exceptions=True)
        while self._writes:
            write, _ = self._writes[0]
            try:
                await write()
            except Exception:
                break
            self._writes.popleft()
        if self._writes:
            log.warning("%d writes that waited for the database are not stored",
                        len(self._writes))
            self._writes.clear()
