"""What a hostile or unlucky client does to the bot's HTTP server, as plain sockets: a body
sent while the server may refuse it, connections left with half a request head. Shared by
the fault tests and bench/hostile.py."""

from __future__ import annotations

import contextlib
import select
import socket
import time
from collections.abc import Iterator
from http.client import HTTPConnection, HTTPException

HALF_HEAD = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow"
ATTACKER = "127.0.0.2"
"""The local address attacks come from: the bot's own clients (the fake Bot API's webhook
calls, the health checks) use 127.0.0.1, another client to the bot."""


def status_while_sending(port: int, head: bytes, chunks: Iterator[bytes],
                          timeout: float = 10) -> int | None:
    """Send `head`, then `chunks` for as long as the server reads them; the status it
    answers with (None: no answer within `timeout`)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(head)
        sock.setblocking(False)
        pending, got = b"", b""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and b"\r\n" not in got:
            if not pending:
                pending = next(chunks, b"")
            readable, writable, _ = select.select([sock], [sock] if pending else [], [], 0.2)
            if readable:
                try:
                    data = sock.recv(4096)
                except ConnectionError:
                    break
                if not data:
                    break
                got += data
            elif writable:
                try:
                    pending = pending[sock.send(pending):]
                except ConnectionError:
                    pending = b""
                    chunks = iter(())
    line = got.split(b"\r\n", 1)[0].split()
    return int(line[1]) if len(line) > 1 else None


def body_head(path: str, length: int = 100_000) -> bytes:
    """A whole request head announcing a body of `length` bytes, for `path`."""
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\n\r\n").encode()


def half_open(port: int, count: int, head: bytes = HALF_HEAD,
              source: str = ATTACKER) -> list[socket.socket]:
    """`count` connections to the local `port` from the local address `source`, each
    sending `head` (by default half a request head); those that connect within a second."""
    opened = []
    for _ in range(count):
        sock = socket.socket()
        sock.settimeout(1)
        try:
            sock.bind((source, 0))
            sock.connect(("127.0.0.1", port))
            sock.sendall(head)
        except OSError:
            sock.close()
            continue
        opened.append(sock)
    return opened


def send_a_byte(socks: list[socket.socket]) -> None:
    """One more byte on each of `socks` (those the server has closed are passed over)."""
    for sock in socks:
        with contextlib.suppress(OSError):
            sock.send(b" ")


def healthz(port: int, timeout: float = 5, source: str = "127.0.0.1") -> int | None:
    """GET /healthz's status (None: no answer within `timeout`), asked from the local
    address `source`."""
    http = HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(source, 0))
    try:
        http.request("GET", "/healthz")
        return http.getresponse().status
    except (OSError, HTTPException):
        return None
    finally:
        http.close()


def closed_by_the_server(socks: list[socket.socket], within: float) -> int:
    """How many of `socks` the other side closed within `within` seconds."""
    open_ = {s.fileno(): s for s in socks}
    poll = select.poll()
    for fd in open_:
        poll.register(fd, select.POLLIN)
    closed = 0
    deadline = time.monotonic() + within
    while open_ and time.monotonic() < deadline:
        for fd, _ in poll.poll(500):
            try:
                data = open_[fd].recv(1024)
            except OSError:
                data = b""
            if not data:
                closed += 1
                poll.unregister(fd)
                del open_[fd]
    return closed
