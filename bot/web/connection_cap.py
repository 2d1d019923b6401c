"""How many connections the HTTP server holds, and whose: a cap on all of them, a share per
client address, and a reserve that only /healthz and Telegram's webhook may use, so that
what is held elsewhere (boards' streams, slow clients) never silences the health check or
the updates.

The protocol (bot/web/guard.py) asks the cap as each connection opens; `Reserved` asks it
as each request's path is known.
"""

from __future__ import annotations

import contextlib
import logging
import resource
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass

from starlette.requests import ClientDisconnect
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

log = logging.getLogger(__name__)

RESERVE_BASE = 256
"""Descriptors kept from the HTTP server for everything else: the Bot API's connections,
the database, log files, the tools' upstreams…"""
RESERVE_PER_RUN = 2
"""… and per run that may be running at once (its model stream and a tool's request)."""
MAX_CONNECTIONS = 4096
"""Connections held at most, however many descriptors there are (each may hold a 16 KB
head being read)."""
CLIENT_SHARE = 8
"""One client address may hold this fraction of the connections (an eighth): a class
behind one school's NAT fits, one attacker's address does not fill the server."""
RESERVE_SHARE = 16
"""This fraction of the connections (a sixteenth) is kept for the reserved paths."""
BUSY_RETRY_S = 5


def raise_descriptor_limit() -> int:
    """Raise the soft limit of open files to the hard one (a process may); the limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError) as err:
            log.warning("could not raise the open-files limit from %d: %s", soft, err)
    return soft


def connection_cap(descriptors: int, max_concurrent_runs: int) -> int:
    """Connections the HTTP server may hold with `descriptors` open files in all."""
    reserve = RESERVE_BASE + RESERVE_PER_RUN * max_concurrent_runs
    return max(16, min(MAX_CONNECTIONS, descriptors - reserve))


@dataclass(frozen=True)
class ConnectionLimits:
    cap: int
    """Connections held at most; one past it is closed as it opens."""
    per_client: int
    """Connections one client address may hold; one past it is closed as it opens."""
    reserve: int
    """The last this many of `cap` serve only `reserved_paths`; other requests get 503."""
    reserved_paths: frozenset[str]

    @classmethod
    def of(cls, cap: int, reserved_paths: Collection[str]) -> ConnectionLimits:
        return cls(cap, max(8, cap // CLIENT_SHARE), max(4, cap // RESERVE_SHARE),
                   frozenset(reserved_paths))


class ConnectionCap:
    """The connections one server holds, counted by client address."""

    def __init__(self, limits: ConnectionLimits) -> None:
        self.limits = limits
        self.held = 0
        self._by_client: Counter[str] = Counter()

    def admit(self, client: str) -> bool:
        """Count a new connection from `client`, if the cap and its share allow it."""
        if self.held >= self.limits.cap or self._by_client[client] >= self.limits.per_client:
            return False
        self.held += 1
        self._by_client[client] += 1
        return True

    def release(self, client: str) -> None:
        self.held -= 1
        self._by_client[client] -= 1
        if not self._by_client[client]:
            del self._by_client[client]

    def serves(self, path: str) -> bool:
        """Whether a request for `path` may be served now: a reserved path always; another
        while more connections than the reserve are free."""
        limits = self.limits
        return path in limits.reserved_paths or self.held <= limits.cap - limits.reserve


class Reserved:
    """ASGI: a request outside the reserved paths is answered 503 (and its connection
    closed) while the cap has only its reserve left; a request whose client went away
    while its body was read ends quietly (the guard cuts slow bodies off)."""

    def __init__(self, app: ASGIApp, cap: ConnectionCap) -> None:
        self.app, self.cap = app, cap

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self.cap.serves(scope["path"]):
            busy = PlainTextResponse("Too many connections; try again shortly.\n", 503,
                                     headers={"Retry-After": str(BUSY_RETRY_S),
                                              "Connection": "close"})
            await busy(scope, receive, send)
            return
        with contextlib.suppress(ClientDisconnect):  # nobody is left to answer
            await self.app(scope, receive, send)
