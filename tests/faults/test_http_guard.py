"""The HTTP server's guard and cap, each rule on its own, over real connections on loopback
to uvicorn configured as the bot configures it (bot/web/guard.server_config), with small
limits and short times: a body too slow is cut off, a body that never ends is cut off at the
request's deadline, a response sent before the body was read closes the connection once the
client has it, one address holds at most its share, and the reserve serves only /healthz and
the webhook's path."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from bot.web.bodies import capped_body
from bot.web.connection_cap import ConnectionCap, ConnectionLimits
from bot.web.guard import Timing, server_config

pytestmark = pytest.mark.usefixtures("no_crash")

LIMITS = ConnectionLimits(cap=12, per_client=8, reserve=4,
                          reserved_paths=frozenset({"/healthz", "/hook"}))
TIMING = Timing(head_s=2, request_s=3, window_s=0.5, min_bytes=64, linger_s=0.5)
SLACK_S = 0.5


@dataclass
class Server:
    port: int
    holding: asyncio.Condition
    held: list[None]
    release: asyncio.Event
    cap: ConnectionCap


def app(server: Server) -> Starlette:
    async def healthz(request: Request) -> Response:
        return PlainTextResponse("ok")

    async def hook(request: Request) -> Response:
        body = await capped_body(request, 1 << 20)
        return PlainTextResponse(str(len(body or b"")))

    async def hold(request: Request) -> Response:
        async with server.holding:
            server.held.append(None)
            server.holding.notify_all()
        await server.release.wait()
        return PlainTextResponse("released")

    return Starlette(routes=[Route("/healthz", healthz), Route("/hook", hook, methods=["POST"]),
                             Route("/hold", hold)])


@contextlib.asynccontextmanager
async def serving() -> AsyncIterator[Server]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    server = Server(sock.getsockname()[1], asyncio.Condition(), [], asyncio.Event(),
                    ConnectionCap(LIMITS))
    uv = uvicorn.Server(server_config(app(server), server.cap, TIMING))
    task = asyncio.create_task(uv.serve(sockets=[sock]))
    try:
        while not uv.started:
            await asyncio.sleep(0.01)
        yield server
    finally:
        server.release.set()
        uv.should_exit = True
        await asyncio.wait_for(task, 10)
        sock.close()


async def connect(port: int, source: str = "127.0.0.1"
                  ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))


async def until_closed(reader: asyncio.StreamReader, within: float) -> bytes:
    """All the server sends until it closes the connection (within `within` seconds)."""
    got = b""
    async with asyncio.timeout(within):
        try:
            while chunk := await reader.read(4096):
                got += chunk
        except ConnectionResetError:
            pass
    return got


def post(path: str, length: int) -> bytes:
    return f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {length}\r\n\r\n".encode()


async def send_for_ever(writer: asyncio.StreamWriter, piece: bytes, every: float) -> None:
    with contextlib.suppress(ConnectionError):
        while True:
            writer.write(piece)
            await writer.drain()
            await asyncio.sleep(every)


@contextlib.asynccontextmanager
async def sending(writer: asyncio.StreamWriter, piece: bytes, every: float
                  ) -> AsyncIterator[None]:
    task = asyncio.create_task(send_for_ever(writer, piece, every))
    try:
        yield
    finally:
        task.cancel()
        writer.close()


async def test_a_body_too_slow_is_cut_off_at_once_and_one_that_never_ends_at_its_deadline(
        ) -> None:
    async with serving() as server:
        reader, writer = await connect(server.port)
        writer.write(post("/hook", 100_000))
        began = time.monotonic()
        async with sending(writer, b"x", 0.1):  # 5 bytes a window: under the 64 asked for
            assert await until_closed(reader, TIMING.window_s + SLACK_S) == b""
        assert time.monotonic() - began < TIMING.window_s + SLACK_S

        reader, writer = await connect(server.port)
        writer.write(post("/hook", 100_000))
        began = time.monotonic()
        async with sending(writer, b"x" * 50, 0.1):  # 250 a window, but never the end
            assert await until_closed(reader, TIMING.request_s + SLACK_S) == b""
        assert time.monotonic() - began > TIMING.request_s - SLACK_S

        reader, writer = await connect(server.port)  # a body that comes whole, twice
        for _ in range(2):
            writer.write(post("/hook", 3) + b"abc")
            assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 200")
            assert await reader.readexactly(1) == b"3"
        writer.close()


async def test_a_response_sent_before_the_body_is_read_closes_the_connection() -> None:
    async with serving() as server:
        reader, writer = await connect(server.port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
        async with sending(writer, b"x" * 100, 0.05):  # fast enough, but nobody reads it
            began = time.monotonic()
            answer = await until_closed(reader, TIMING.linger_s + SLACK_S)
        assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"ok")
        assert time.monotonic() - began < TIMING.linger_s + SLACK_S


async def test_one_address_holds_its_share_and_the_reserve_serves_health_and_the_webhook(
        ) -> None:
    async with serving() as server:
        held = []
        for _ in range(LIMITS.per_client):
            reader, writer = await connect(server.port, "127.0.0.3")
            writer.write(b"GET /hold HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            held.append((reader, writer))
        async with server.holding:
            await server.holding.wait_for(lambda: len(server.held) == LIMITS.per_client)

        # Past its share, the address's next connection is closed as it opens.
        reader, writer = await connect(server.port, "127.0.0.3")
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert await until_closed(reader, SLACK_S) == b""

        # 8 of 12 held: what is left is the reserve, for /healthz and the webhook only.
        reader, writer = await connect(server.port, "127.0.0.4")
        writer.write(b"GET /hold HTTP/1.1\r\nHost: x\r\n\r\n")
        busy = await until_closed(reader, SLACK_S)
        assert busy.startswith(b"HTTP/1.1 503") and b"retry-after: 5" in busy.lower()
        reader, writer = await connect(server.port, "127.0.0.4")
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert (await until_closed(reader, SLACK_S)).startswith(b"HTTP/1.1 200")
        reader, writer = await connect(server.port, "127.0.0.4")
        writer.write(post("/hook", 2).replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n")
                     + b"{}")
        assert (await until_closed(reader, SLACK_S)).endswith(b"\r\n\r\n2")

        server.release.set()  # the held ones end; the address is served again
        for reader, _ in held:
            assert (await until_closed(reader, SLACK_S)).startswith(b"HTTP/1.1 200")
        async with asyncio.timeout(SLACK_S):
            while server.cap.held:  # each close is counted as its connection is lost
                await asyncio.sleep(0.01)
        reader, writer = await connect(server.port, "127.0.0.3")
        writer.write(b"GET /hold HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert (await until_closed(reader, SLACK_S)).startswith(b"HTTP/1.1 200")
