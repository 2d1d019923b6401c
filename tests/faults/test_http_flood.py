"""Connections opened and left half-sent (a slow or hostile client), against `python -m bot`
with the usual soft limit of 1,024 open files: /healthz still answers meanwhile, and every
half-sent connection is closed once its request head is late."""

from __future__ import annotations

import resource
import select
import socket
import time
import urllib.request
from pathlib import Path

import pytest

from bot.web.guard import HEAD_TIMEOUT_S
from tests.botkit import people
from tests.fakes.model import FakeModel
from tests.fakes.telegram import FakeTelegram
from tests.faults.process import bot_process, free_port, listening

HALF_OPEN = 1100
HALF_HEAD = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow"


def _room_for_the_flood() -> None:
    """This process holds the flood's sockets: raise its own soft limit (skip when the
    hard one leaves no room, as the bot then has none either)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < HALF_OPEN + 1024:
        pytest.skip(f"the hard limit of open files is {hard}")
    if soft < HALF_OPEN + 256:
        resource.setrlimit(resource.RLIMIT_NOFILE, (HALF_OPEN + 256, hard))


def _half_open(port: int) -> list[socket.socket]:
    opened = []
    for _ in range(HALF_OPEN):
        sock = socket.socket()
        sock.settimeout(1)
        try:
            sock.connect(("127.0.0.1", port))
            sock.sendall(HALF_HEAD)
        except OSError:
            sock.close()
            continue
        opened.append(sock)
    return opened


def _healthz(port: int) -> int | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as reply:
            return int(reply.status)
    except OSError:
        return None


def _closed_by_the_server(socks: list[socket.socket], within: float) -> int:
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


async def test_half_open_connections_leave_healthz_answering_and_are_closed(
        tmp_path: Path) -> None:
    _room_for_the_flood()
    port = free_port()
    with FakeTelegram() as tg, FakeModel() as model:
        people(tg)
        with bot_process(tg, model, tmp_path, open_files=1024,
                         HTTP_LISTEN=f"127.0.0.1:{port}") as bot:
            def up() -> bool:
                assert bot.proc.poll() is None, bot.output()
                return listening(port)
            await tg.wait(up, 30)
            socks = _half_open(port)
            try:
                assert len(socks) > 1050  # more than the bot's 1,024 (a few may time out)
                started = time.monotonic()
                answered = [_healthz(port) for _ in range(3)]
                assert answered == [200, 200, 200]
                closed = _closed_by_the_server(socks, HEAD_TIMEOUT_S + 15)
                took = time.monotonic() - started
                assert closed == len(socks), f"{closed} closed in {took:.0f} s"
                assert _healthz(port) == 200
            finally:
                for sock in socks:
                    sock.close()
            assert bot.terminate() == 0
