"""Glassbox's words for a failed request (wire/wire_errors.py), from what aiohttp really
raises against local servers that refuse, hang up, or never answer."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Awaitable, Callable

import aiohttp
import pytest

from wire.http_session import open_session
from wire.wire_errors import WireError, WireFailure, failure_of

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@contextlib.asynccontextmanager
async def _serve(handler: Handler) -> AsyncIterator[str]:
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.close()


async def _failure(url: str, read_s: float = 5.0) -> tuple[WireFailure | None, BaseException]:
    async with open_session(4) as session:
        try:
            async with session.post(url, data=b"{}", timeout=aiohttp.ClientTimeout(
                    total=None, sock_connect=2, sock_read=read_s)) as response:
                await response.read()
        except Exception as err:  # what the library raised, as any caller sees it
            return failure_of(err), err
    raise AssertionError("the request did not fail")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_a_refused_connection_is_surely_not_sent() -> None:
    failure, _ = await _failure(f"http://127.0.0.1:{_free_port()}/")
    assert failure is WireFailure.NOT_SENT
    assert not failure.may_have_happened


async def test_a_server_that_hangs_up_after_the_request_may_have_got_it() -> None:
    async def hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.close()

    async with _serve(hang_up) as url:
        failure, _ = await _failure(url)
    assert failure is WireFailure.MAYBE_SENT and failure.may_have_happened


async def test_a_body_cut_short_may_have_been_carried_out() -> None:
    async def cut(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"ok\":")
        await writer.drain()
        writer.close()

    async with _serve(cut) as url:
        failure, _ = await _failure(url)
    assert failure is WireFailure.MAYBE_SENT


async def test_no_answer_in_time_is_timed_out() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        await reader.read()  # says nothing until the client gives up and hangs up

    async with _serve(silent) as url:
        failure, _ = await _failure(url, read_s=0.2)
    assert failure is WireFailure.TIMED_OUT and failure.may_have_happened


async def test_the_failure_is_found_behind_the_errors_raised_from_it() -> None:
    _, err = await _failure(f"http://127.0.0.1:{_free_port()}/")
    try:
        try:
            raise RuntimeError("the SDK's wrapper") from err
        except RuntimeError as wrapped:
            raise ValueError("and another") from wrapped
    except ValueError as outer:
        assert failure_of(outer) is WireFailure.NOT_SENT
    assert failure_of(ValueError("a bug")) is None


def test_a_wire_error_names_the_kind_and_the_exception_never_its_text() -> None:
    secret = aiohttp.InvalidURL("https://api.telegram.org/bot123:SECRET/sendMessage")
    error = WireError(WireFailure.NOT_SENT, secret)
    assert str(error) == "surely not sent (InvalidURL)"
    assert failure_of(error) is WireFailure.NOT_SENT


@pytest.mark.parametrize("kind", list(WireFailure))
def test_only_maybe_sent_and_timed_out_may_have_happened(kind: WireFailure) -> None:
    assert kind.may_have_happened == (kind in (WireFailure.MAYBE_SENT, WireFailure.TIMED_OUT))
