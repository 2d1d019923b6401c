"""A cap on how often one kind of log line is written, so that nothing repeated in a loop
(an update redelivered, a call retried, polling failing) can fill the disk: of the lines of
one kind (a logger's template at one level) at most `burst` go out per window. The first
line of a kind let through after some were dropped says how many."""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

BURST = 10
"""Lines of one kind written per window: enough to see what happens, to the errors' details."""
WINDOW_S = 60.0
KINDS_KEPT = 1024
"""Kinds whose window is remembered (templates are few; a message built by formatting it
first would be a kind of its own each time, so the memory of them is bounded)."""

Kind = tuple[str, int, str]


@dataclass
class _Window:
    start: float
    written: int = 0
    dropped: int = 0


class RateLimit(logging.Filter):
    """At most `burst` lines of one kind per `window_s` seconds of `clock`."""

    def __init__(self, burst: int = BURST, window_s: float = WINDOW_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.burst, self.window_s, self.clock = burst, window_s, clock
        self._windows: OrderedDict[Kind, _Window] = OrderedDict()

    def filter(self, record: logging.LogRecord) -> bool:
        kind = (record.name, record.levelno,
                record.msg if isinstance(record.msg, str) else type(record.msg).__name__)
        now = self.clock()
        window = self._windows.get(kind)
        if window is None or now - window.start >= self.window_s:
            dropped = window.dropped if window is not None else 0
            window = self._windows[kind] = _Window(now)
            if dropped:
                record.msg = f"{record.msg} ({dropped} like this before it were not logged)"
        self._windows.move_to_end(kind)
        while len(self._windows) > KINDS_KEPT:
            self._windows.popitem(last=False)
        if window.written >= self.burst:
            window.dropped += 1
            return False
        window.written += 1
        return True
