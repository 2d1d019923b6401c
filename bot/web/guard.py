"""What keeps the HTTP server up when connections are opened and left half-sent: a deadline
for each request head, a cap on connections, and a descriptor limit raised at start.

Without them every connection that sends half a request head is held forever (uvicorn's
keep-alive timeout only starts after a response), so 1,100 of them used all 1,024
descriptors of the usual soft limit: /healthz, the boards, the API and the webhook all
stopped answering for as long as they were held.
"""

from __future__ import annotations

import asyncio
import logging
import resource
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger(__name__)

HEAD_TIMEOUT_S = 10.0
"""A request head (the request line and headers, at most h11's 16 KB) must have come this
long after the connection opened, or after its first byte when it follows a response."""
RESERVE_BASE = 256
"""Descriptors kept from the HTTP server for everything else: the Bot API's connections,
the database, log files, the tools' upstreams…"""
RESERVE_PER_RUN = 2
"""… and per run that may be running at once (its model stream and a tool's request)."""
MAX_CONNECTIONS = 4096
"""Connections held at most, however many descriptors there are (each may hold a 16 KB
head being read)."""


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


class GuardedH11(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a deadline for each request head, and a connection
    past the server's limit (`Config.limit_concurrency`) closed as soon as it opens.

    `their_state` is h11's public state of the client's side: IDLE until a request head
    has been read whole."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        limit = self.limit_concurrency
        if limit is not None and len(self.connections) >= limit:
            transport.abort()  # never counted, never read: its descriptor is freed now
            return
        super().connection_made(transport)  # type: ignore[arg-type]
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._disarm()
        elif self._head_deadline is None and not self.transport.is_closing():
            self._arm()  # a head begins after a response: it gets its own deadline

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self.transport is not None:  # not refused in connection_made
            super().connection_lost(exc)

    def _arm(self) -> None:
        self._head_deadline = self.loop.call_later(HEAD_TIMEOUT_S, self._head_late)

    def _disarm(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _head_late(self) -> None:
        self._head_deadline = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.abort()
