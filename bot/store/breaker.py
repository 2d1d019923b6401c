"""A circuit breaker in front of the PostgreSQL server: once it has failed, statements fail at
once (StoreUnavailable) instead of each waiting out its timeout, so a frozen or unreachable
server does not hold every answer; a probe of its own asks the server whether it is back.

CLOSED: statements run. A statement that could not reach the server opens it at once; one
that timed out (a server that hangs, or only a slow statement) makes it HALF_OPEN: the probe
asks at once, and statements fail fast meanwhile. OPEN: the probe asks after a wait that
doubles while the server stays away. The probe succeeding closes it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from enum import Enum

log = logging.getLogger(__name__)

FIRST_WAIT_S = 1.0
"""Before the first probe of a server that failed; doubled after each failed probe."""
LONGEST_WAIT_S = 30.0


class BreakerState(Enum):
    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


class Failure(Enum):
    """How a statement failed, which decides how sure the breaker is that the server is gone."""

    UNREACHABLE = "unreachable"
    """Refused, reset, shutting down or starting up: the server said so, or the network did."""
    TIMED_OUT = "timed_out"
    """No answer in time: a server that hangs, or a statement that is only slow."""


class Breaker:
    def __init__(self, probe: Callable[[], Awaitable[None]], *,
                 first_wait_s: float = FIRST_WAIT_S, longest_wait_s: float = LONGEST_WAIT_S
                 ) -> None:
        self._probe = probe
        """Raises unless the server answers (bounded in time by itself)."""
        self.first_wait_s, self.longest_wait_s = first_wait_s, longest_wait_s
        self.state = BreakerState.CLOSED
        self._failed_at = 0.0
        self._why = ""
        self._probing: asyncio.Task[None] | None = None

    def refusal(self) -> str | None:
        """Why a statement may not go to the server now; None: it may."""
        if self.state is BreakerState.CLOSED:
            return None
        ago = time.monotonic() - self._failed_at
        return f"not tried: the database failed {ago:.0f} s ago ({self._why})"

    def failed(self, failure: Failure, why: str) -> None:
        if self.state is BreakerState.CLOSED:
            log.warning("the database failed (%s); statements fail at once until it answers "
                        "again", why)
            self._failed_at, self._why = time.monotonic(), why
            self.state = (BreakerState.HALF_OPEN if failure is Failure.TIMED_OUT
                          else BreakerState.OPEN)
        if self._probing is None:
            self._probing = asyncio.create_task(self._until_back(
                now=self.state is BreakerState.HALF_OPEN))

    async def _until_back(self, *, now: bool) -> None:
        wait = self.first_wait_s
        try:
            while True:
                if not now:
                    self.state = BreakerState.OPEN
                    await asyncio.sleep(wait)
                    wait = min(wait * 2, self.longest_wait_s)
                now = False
                self.state = BreakerState.HALF_OPEN
                try:
                    await self._probe()
                except Exception as err:
                    log.info("the database is still not answering (%s)", type(err).__name__)
                    continue
                break
        finally:
            self._probing = None
        self.state = BreakerState.CLOSED
        log.warning("the database answers again, %.0f s after it failed",
                    time.monotonic() - self._failed_at)

    async def close(self) -> None:
        if self._probing is not None:
            self._probing.cancel()
            await asyncio.gather(self._probing, return_exceptions=True)
