"""A real HTTP server on 127.0.0.1 for fakes: each request goes to a handler that
returns a Reply; replies can stream in timed pieces, stall, or cut the connection. The
server can also refuse connections for a while, as a host that is down does."""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

WIRE = Path(__file__).resolve().parents[2] / "tests" / "wire"


def wire(name: str) -> bytes:
    """A wire sample's bytes, e.g. wire('openai/chat_stream_text.sse')."""
    return (WIRE / name).read_bytes()


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    peer: tuple[str, int] = ("", 0)
    """The client's address and port: requests on one kept-alive connection share it."""

    def json(self) -> Any:
        return json.loads(self.body or b"null")

    def form(self) -> dict[str, str]:
        """A form or JSON body as a flat dict of strings (as python-telegram-bot posts)."""
        ctype = self.headers.get("content-type", "")
        if "json" in ctype:
            return {
                k: v if isinstance(v, str) else json.dumps(v)
                for k, v in (self.json() or {}).items()
            }
        if "multipart" in ctype:
            return {name: value.decode("utf-8", "replace")
                    for name, _, value in _multipart(self.body, ctype)}
        return {k: v[0] for k, v in parse_qs(self.body.decode()).items()}

    def files(self) -> dict[str, tuple[str, bytes]]:
        """A multipart body's uploaded files: field name -> (file name, bytes)."""
        ctype = self.headers.get("content-type", "")
        if "multipart" not in ctype:
            return {}
        return {name: (filename, value) for name, filename, value in _multipart(self.body, ctype)
                if filename is not None}


@dataclass
class Reply:
    status: int = 200
    body: bytes | list[tuple[float, bytes]] | Iterator[tuple[float, bytes]] = b""
    """Whole body, or (delay in s, piece) pairs sent chunked as they come (an iterator: as
    it yields them, e.g. a real server's body passed on)."""
    headers: dict[str, str] = field(default_factory=dict)
    cut: bool = False
    """Close the connection after the pieces, without ending the body."""
    reset: bool = False
    """Answer nothing: reset the connection (TCP RST) instead."""

    @classmethod
    def json(cls, value: Any, status: int = 200, **headers: str) -> Reply:
        data = value if isinstance(value, bytes) else json.dumps(value).encode()
        return cls(status, data, {"Content-Type": "application/json", **headers})


Handler = Callable[[Request], Reply]


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 128
    """Connections waiting to be accepted (the default, 5, drops a burst's SYNs, and the
    client's connect then times out: a fault of the fake, not of the bot)."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up (a bot shutting down closes its idle connections) is no
        error of the fake's: say nothing. Anything else is printed, as by default."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@dataclass
class _Connection:
    """An open client connection: the path of its latest request, and whether one is being
    served now."""

    path: str = ""
    busy: bool = False


POLL_INTERVAL_S = 0.01
"""How often the serving thread looks up from accepting to see whether it is to stop: every
test stops its fakes, and waited on average half of this for each (a select that wakes this
often costs next to nothing)."""


class FakeServer:
    """Serve `handler` on a free port in a background thread; a context manager."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.requests: list[Request] = []
        self.stopping = threading.Event()
        self._httpd = _HTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._connections: dict[socket.socket, _Connection] = {}
        self._connections_lock = threading.Lock()
        self._thread = self._serving()

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeServer:
        self._thread.start()
        return self

    def refuse_connections(self, keep: Callable[[str], bool] = lambda path: False) -> None:
        """Until `accept_connections()`, a connection attempt is refused at once (the port
        stays ours, but nothing listens on it), so a client knows its request was never
        sent. Idle kept-alive connections are closed, so a client's next call must connect;
        those whose latest request's path `keep` accepts stay open."""
        self._httpd.shutdown()
        address = self._httpd.server_address
        self._httpd.socket.close()
        self._httpd.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._httpd.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._httpd.socket.bind(address)
        with self._connections_lock:
            for sock, state in self._connections.items():
                if not state.busy and not keep(state.path):
                    with contextlib.suppress(OSError):  # the client closed it already
                        sock.shutdown(socket.SHUT_RDWR)

    def accept_connections(self) -> None:
        """Listen again after `refuse_connections()`."""
        self._httpd.server_activate()
        self._thread = self._serving()
        self._thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _serving(self) -> threading.Thread:
        return threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": POLL_INTERVAL_S},
            daemon=True)


def _make_handler(fake: FakeServer) -> type[BaseHTTPRequestHandler]:
    class _Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True
        """TCP_NODELAY, as real API servers set it: the headers and the body go as two
        writes, and with Nagle's algorithm the body waited for the client's delayed ACK
        (up to 40 ms a reply, which benchmarks counted as the bot's own time)."""

        def log_message(self, *args: object) -> None:
            pass

        def setup(self) -> None:
            super().setup()
            with fake._connections_lock:
                fake._connections[self.connection] = _Connection()

        def finish(self) -> None:
            with fake._connections_lock:
                fake._connections.pop(self.connection, None)
            super().finish()

        def _serve(self) -> None:
            with fake._connections_lock:
                fake._connections[self.connection] = _Connection(self.path, busy=True)
            try:
                self._answer()
            finally:
                with fake._connections_lock:
                    fake._connections[self.connection].busy = False

        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            parts = urlsplit(self.path)
            request = Request(
                self.command,
                parts.path,
                parse_qs(parts.query),
                {k.lower(): v for k, v in self.headers.items()},
                body,
                self.client_address[:2],
            )
            fake.requests.append(request)
            try:
                reply = fake.handler(request)
            except Exception as exc:  # a bug in a fake must show, not hang the client
                reply = Reply.json({"fake_error": repr(exc)}, status=599)
            self._write(reply)

        do_GET = do_POST = _serve

        def _write(self, reply: Reply) -> None:
            if reply.reset:
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                           struct.pack("ii", 1, 0))
                self.close_connection = True
                return
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            if isinstance(reply.body, bytes):
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                try:
                    self.wfile.write(reply.body)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up waiting
                    self.close_connection = True
                return
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            try:
                due = time.monotonic()
                for delay, piece in reply.body:
                    due += delay  # on a clock of its own: the sleeps' overshoots do not add up
                    if delay and fake.stopping.wait(max(0.0, due - time.monotonic())):
                        return
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                    self.wfile.flush()
                if reply.cut:
                    self.close_connection = True
                    return
                self.wfile.write(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

    return _Handler


def _multipart(body: bytes, ctype: str) -> list[tuple[str, str | None, bytes]]:
    """(field name, file name or None, raw value) of each part."""
    boundary = ctype.split("boundary=", 1)[1].strip('"').encode()
    parts: list[tuple[str, str | None, bytes]] = []
    for part in body.split(b"--" + boundary):
        head, _, value = part.partition(b"\r\n\r\n")
        if b'name="' not in head:
            continue
        name = head.split(b'name="', 1)[1].split(b'"', 1)[0].decode()
        filename = (head.split(b'filename="', 1)[1].split(b'"', 1)[0].decode()
                    if b'filename="' in head else None)
        parts.append((name, filename, value.rsplit(b"\r\n", 1)[0]))
    return parts
