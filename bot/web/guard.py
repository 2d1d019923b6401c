"""What keeps the HTTP server up when clients send slowly or not at all: every request must
come whole in time (its head within 10 s, head and body within 30 s, the body at a least
rate meanwhile), a connection answered before its body was read is closed, and the cap
(bot/web/connection_cap.py) caps connections as they open.

Without them a connection is held for as long as its client likes: uvicorn's keep-alive
timeout starts only after a response, and each byte of a body stops it again, so a few
hundred clients sending half a head, or a body a byte at a time, hold every connection
(or descriptor) the server has.
"""

from __future__ import annotations

import asyncio
import enum
from dataclasses import dataclass
from typing import Any

import h11
import uvicorn
from starlette.types import ASGIApp
from uvicorn.protocols.http.h11_impl import H11Protocol

from bot.web.connection_cap import ConnectionCap, Reserved

KEEP_ALIVE_S = 5


@dataclass(frozen=True)
class Timing:
    head_s: float = 10.0
    """A request head (the request line and headers, at most h11's 16 KB) must have come
    this long after the connection opened, or after its first byte when it follows a
    response."""
    request_s: float = 30.0
    """The whole request, head and body, must have come this long after it began (a
    webhook's 1 MB at 35 KB/s)."""
    window_s: float = 5.0
    min_bytes: int = 1024
    """A body must bring at least this many bytes in every `window_s` (or end), unless the
    application has not read what came."""
    linger_s: float = 2.0
    """A response sent before its request's body was read: the connection reads and drops
    what comes for this long, so the client sees the response before the close."""


class Phase(enum.Enum):
    HEAD = "head"  # a request head is coming
    BODY = "body"  # its body is coming
    SERVED = "served"  # nothing more is owed: the application answers, or keep-alive waits
    LINGER = "linger"  # answered with the body unread: what comes is dropped until the close


class GuardedH11(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with each request timed (`timing`) and each connection
    counted by `cap` (a new one it refuses is closed as it opens, never read). Made per
    server by `guarded_h11`.

    `their_state` is h11's public state of the client's side: IDLE until a request head
    has been read whole, SEND_BODY while its body comes."""

    cap: ConnectionCap
    timing: Timing

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._watch: asyncio.TimerHandle | None = None
        self._phase = Phase.SERVED
        self._began = 0.0
        self._received = 0
        self._window_from = 0
        self._client: str | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        client = str(peer[0]) if isinstance(peer, tuple) else ""
        if not self.cap.admit(client):
            transport.abort()  # never counted, never read: its descriptor is freed now
            return
        self._client = client
        super().connection_made(transport)  # type: ignore[arg-type]
        self._begin()

    def data_received(self, data: bytes) -> None:
        if self._phase is Phase.LINGER:
            return
        self._received += len(data)
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        if self.conn.their_state is h11.SEND_BODY and not self.transport.is_closing():
            self._linger()
        super().on_response_complete()
        if self._phase is not Phase.LINGER and self.conn.their_state is not h11.IDLE:
            self._follow()  # a request pipelined behind this one has begun

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_watch()
        if self._client is not None:  # not refused in connection_made
            self.cap.release(self._client)
            self._client = None
            super().connection_lost(exc)

    def _begin(self) -> None:
        """A request begins: its head is due."""
        self._phase = Phase.HEAD
        self._began = self.loop.time()
        self._watch_in(self.timing.head_s)

    def _follow(self) -> None:
        """Time what the client's side of h11 is doing now."""
        state = self.conn.their_state
        if self.transport.is_closing():
            self._stop_watch()
        elif state is h11.IDLE:  # bytes of a head came
            if self._phase is Phase.SERVED:
                self._begin()  # a head begins after a response: it gets its own deadline
        elif state is h11.SEND_BODY:
            if self._phase is not Phase.BODY:
                if self._phase is Phase.SERVED:  # pipelined: it began when it was read
                    self._began = self.loop.time()
                self._phase = Phase.BODY
                self._window_from = self._received
                self._watch_in(self._next_window())
        elif self._phase is not Phase.SERVED:
            self._phase = Phase.SERVED
            self._stop_watch()

    def _linger(self) -> None:
        self._phase = Phase.LINGER
        if self.transport.can_write_eof():
            self.transport.write_eof()  # the response goes out whole, then the FIN
        self._watch_in(self.timing.linger_s)

    def _next_window(self) -> float:
        left = self._began + self.timing.request_s - self.loop.time()
        return max(0.0, min(self.timing.window_s, left))

    def _watch_in(self, seconds: float) -> None:
        self._stop_watch()
        self._watch = self.loop.call_later(seconds, self._check)

    def _stop_watch(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None

    def _check(self) -> None:
        self._watch = None
        if self.transport.is_closing():
            return
        if self._phase is Phase.BODY:
            late = self.loop.time() >= self._began + self.timing.request_s
            slow = (self._received - self._window_from < self.timing.min_bytes
                    and not self.flow.read_paused)
            if not (late or slow):
                self._window_from = self._received
                self._watch_in(self._next_window())
                return
        elif self._phase is Phase.HEAD and self.conn.their_state is not h11.IDLE:
            return
        self.transport.abort()


def guarded_h11(cap: ConnectionCap, timing: Timing) -> type[GuardedH11]:
    """The protocol class of one server: its connections counted by `cap`."""
    return type("GuardedH11", (GuardedH11,), {"cap": cap, "timing": timing})


def server_config(app: ASGIApp, cap: ConnectionCap, timing: Timing = Timing()) -> uvicorn.Config:
    """uvicorn's configuration for `app` behind the cap and the guard: no log config of
    its own, no access log, no lifespan; two seconds for open requests at a shutdown."""
    return uvicorn.Config(Reserved(app, cap), log_config=None, access_log=False,
                          lifespan="off", timeout_graceful_shutdown=2,
                          http=guarded_h11(cap, timing), timeout_keep_alive=KEEP_ALIVE_S,
                          h11_max_incomplete_event_size=16 * 1024)
