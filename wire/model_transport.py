"""The model's HTTP client: the openai SDK's httpx client, keeping no cookies, on an httpx
transport over aiohttp that reads a streamed reply a few times a second (_Body).

httpx-aiohttp (the openai SDK's `aiohttp` extra) carries httpx over aiohttp too, but reads a
body chunk by chunk: a model sending a token a chunk, 40 a second, then walks the whole chain
(httpx's body, the SSE reader, the loop's generators, the fold, the listeners) 40 times a
second per run, where _Body gathers what comes in 0.2 s and lets the body's end through at
once. Gathering above httpx-aiohttp (sleeping after each read) would hold each stream's
last piece back up to 0.2 s, a slower answer for no CPU saved (docs/scaling.md, "One
wire"). Failures are aiohttp's own: the SDK wraps them
(APIConnectionError, raised from them) and agent/model/model_errors.py reads them in
Glassbox's words (wire/wire_errors.py).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import aiohttp
import httpx
import openai

from wire.http_session import open_session
from wire.limits import MODEL_CONNECTIONS, client_timeout

STREAM_GATHER_S = 0.2
"""A stream is read at most this often (its end at once, see _Body): a model sending a token
a chunk at 40 a second costs five passes through the chain, not forty, and a chat shows at
most one new state a second anyway."""


class _Body(httpx.AsyncByteStream):
    """A response body as aiohttp reads it: the first piece as soon as it arrives. With
    `gather_s`, each later read first waits up to `gather_s` and takes everything that came
    meanwhile as one piece; the body's end cuts the wait short, so its last piece is never
    held back."""

    def __init__(self, response: aiohttp.ClientResponse, gather_s: float = 0.0) -> None:
        self._response, self._gather_s = response, gather_s

    async def __aiter__(self) -> AsyncIterator[bytes]:
        content = self._response.content
        while piece := await content.readany():
            yield piece
            if self._gather_s:
                with contextlib.suppress(TimeoutError):  # the body goes on: read it
                    async with asyncio.timeout(self._gather_s):
                        await content.wait_eof()

    async def aclose(self) -> None:
        self._response.release()


class AiohttpTransport(httpx.AsyncBaseTransport):
    """An httpx transport that sends with one aiohttp session (opened at the first request,
    in the running event loop). `gather_s`: how response bodies are read (see _Body)."""

    def __init__(self, max_connections: int = MODEL_CONNECTIONS, *,
                 gather_s: float = 0.0) -> None:
        self._max_connections, self._gather_s = max_connections, gather_s
        self._session: aiohttp.ClientSession | None = None

    def _open(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            # httpx's request says everything; httpx decodes the body.
            self._session = open_session(self._max_connections)
        return self._session

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        timeouts = request.extensions.get("timeout", {})
        timeout = client_timeout(timeouts.get("read"), timeouts.get("connect"),
                                 timeouts.get("pool"))
        body = await request.aread()
        response = await self._open().request(
            request.method, str(request.url), headers=request.headers.multi_items(),
            data=body or None, allow_redirects=False, compress=False, timeout=timeout)
        return httpx.Response(
            response.status, headers=response.raw_headers,
            stream=_Body(response, self._gather_s), request=request,
            extensions={"http_version": b"HTTP/1.1",
                        "reason_phrase": (response.reason or "").encode()})

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


class _NoCookies(httpx.Cookies):
    """A jar that keeps no cookie: httpx reads every response's Set-Cookie into its client's
    jar through a urllib request built from the request's headers, a tenth of the SDK's and
    httpx's CPU for opening a stream, for cookies an API called with a key does not need."""

    def extract_cookies(self, response: httpx.Response) -> None:
        pass


_NO_COOKIES = _NoCookies()


def model_transport() -> AiohttpTransport:
    """The model's transport: MODEL_CONNECTIONS at most, streams read every STREAM_GATHER_S."""
    return AiohttpTransport(MODEL_CONNECTIONS, gather_s=STREAM_GATHER_S)


class ModelHttpClient(openai.DefaultAsyncHttpxClient):
    """The SDK's httpx client, with the SDK's defaults, on AiohttpTransport, that keeps no
    cookies. `transport`: one that wraps model_transport()'s, to see what goes by (the
    benchmarks record a real model's streams that way)."""

    def __init__(self, transport: httpx.AsyncBaseTransport | None = None) -> None:
        super().__init__(transport=transport or model_transport())

    @property
    def cookies(self) -> httpx.Cookies:
        return _NO_COOKIES
