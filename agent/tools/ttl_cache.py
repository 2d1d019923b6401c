"""A small in-memory cache with a bound on its size and on its entries' age, for answers a
tool may reuse for a while (a place's coordinates): the least recently used entry goes
first when it is full, and an entry older than `ttl_s` is never returned."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class TtlCache(Generic[K, V]):
    def __init__(self, size: int, ttl_s: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.size, self.ttl_s, self._clock = size, ttl_s, clock
        self._entries: OrderedDict[K, tuple[float, V]] = OrderedDict()

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

    def __len__(self) -> int:
        return len(self._entries)
