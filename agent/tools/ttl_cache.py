"""A small in-memory cache with a bound on its size and on its entries' age, for answers a
tool may reuse for a while (a place's coordinates): the least recently used entry goes
first when it is full, and an entry older than `ttl_s` is never returned. `get_or_fetch`
also shares a fetch under way: a class asking about a new city at once makes one lookup."""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class TtlCache(Generic[K, V]):
    def __init__(self, size: int, ttl_s: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.size, self.ttl_s, self._clock = size, ttl_s, clock
        self._entries: OrderedDict[K, tuple[float, V]] = OrderedDict()
        self._fetching: dict[K, asyncio.Future[V]] = {}

    def get(self, key: K) -> V | None:
        """The value kept for `key`, if kept less than `ttl_s` ago."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        if self._clock() - entry[0] >= self.ttl_s:
            del self._entries[key]
            return None
        self._entries.move_to_end(key)
        return entry[1]

    def put(self, key: K, value: V) -> None:
        self._entries[key] = (self._clock(), value)
        self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)

    async def get_or_fetch(self, key: K, fetch: Callable[[], Awaitable[V]]) -> V:
        """The value kept for `key`, or else `fetch()`'s, then kept. Callers asking for a
        key while its fetch is under way wait for that fetch instead of starting their own;
        one that fails keeps nothing, and every caller waiting on it gets its error. A
        caller that is cancelled leaves the fetch running for the others."""
        value = self.get(key)
        if value is not None:
            return value
        fetching = self._fetching.get(key)
        if fetching is None:
            fetching = asyncio.ensure_future(self._fetch(key, fetch))
            # Retrieved even when every caller was cancelled: no "never retrieved" log.
            fetching.add_done_callback(lambda done: done.cancelled() or done.exception())
            self._fetching[key] = fetching
        return await asyncio.shield(fetching)

    async def _fetch(self, key: K, fetch: Callable[[], Awaitable[V]]) -> V:
        try:
            value = await fetch()
            self.put(key, value)
            return value
        finally:
            del self._fetching[key]

    def __len__(self) -> int:
        return len(self._entries)
