"""A recording stand-in for a model endpoint: each chat completion is passed on to a real
server (a local model), its body streamed on as it comes (so the client's read timeout
holds as against the server itself) and kept, byte for byte, for a replay test to serve
from the fake model server later."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import httpx

from testkit.fakes.model import SSE_HEADERS
from testkit.fakes.server import FakeServer, Reply, Request


class RecordingProxy(FakeServer):
    """Forwards POST …/chat/completions to `upstream` (a base URL ending in /v1); `bodies`:
    each response body, in the order the requests came."""

    def __init__(self, upstream: str, timeout_s: float = 1200) -> None:
        super().__init__(self._forward)
        self.upstream = upstream.rstrip("/")
        self.timeout_s = timeout_s
        self.bodies: list[bytearray] = []
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    def _forward(self, request: Request) -> Reply:
        path = request.path.removeprefix("/v1")
        if not path.endswith("/chat/completions"):
            answer = httpx.request(request.method, self.upstream + path, timeout=30)
            return Reply(answer.status_code, answer.content, dict(answer.headers))
        kept = bytearray()
        with self._lock:  # the requests in the order they came
            self.bodies.append(kept)
        return Reply(200, self._streamed(request.body, kept), dict(SSE_HEADERS))

    def _streamed(self, body: bytes, kept: bytearray) -> Iterator[tuple[float, bytes]]:
        """The server's body as it comes, each piece kept too."""
        with httpx.stream("POST", self.upstream + "/chat/completions", content=body,
                          headers={"Content-Type": "application/json"},
                          timeout=self.timeout_s) as answer:
            for piece in answer.iter_raw():
                kept.extend(piece)
                yield 0.0, piece
