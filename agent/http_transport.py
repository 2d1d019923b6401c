"""httpx over aiohttp: the transport under the process's httpx clients (the model's openai
SDK client, python-telegram-bot's requests); the tools ask aiohttp directly
(agent/tools/http.py), with the same error names.

httpx's own transport (httpcore on anyio, h11 in pure Python, a connection pool scanned
whole on every request) costs about twice aiohttp's (a C parser, an O(1) pool) per request
and per streamed chunk; under load it was most of the bot's CPU (issue 16). httpx
stays the interface (the openai SDK and python-telegram-bot are built on it), so its
errors keep their meaning: each aiohttp failure is raised as the httpx error httpcore
raises for the same event, so "was anything sent?" (bot/telegram/delivery/call_errors.py) and the
model's error kinds (agent/model_errors.py) read them as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncIterator, Iterator
from functools import cache

import aiohttp
import httpx
from aiohttp.helpers import get_env_proxy_for_url
from yarl import URL

KEEPALIVE_S = 5.0
"""Idle connections close after this (httpx's default keep-alive expiry)."""

Proxy = tuple[URL | None, aiohttp.BasicAuth | None]


class EnvProxies:
    """The proxy HTTP(S)_PROXY / NO_PROXY name for each origin (where a school's network
    reaches the world only through one), looked up once per origin: aiohttp's own lookup
    (`trust_env`) reads the environment and ~/.netrc again for every request, 0.3 ms a
    request. Pass it as a request's `proxy`, `proxy_auth`."""

    def __init__(self) -> None:
        self._found: dict[str, Proxy] = {}

    def __call__(self, url: str) -> Proxy:
        origin = "/".join(url.split("/", 3)[:3])
        found = self._found.get(origin)
        if found is None:
            try:
                found = get_env_proxy_for_url(URL(url))
            except LookupError:  # no proxy for it, or NO_PROXY names it
                found = (None, None)
            self._found[origin] = found
        return found


def httpx_error(err: BaseException, *, reading: bool = False) -> type[httpx.HTTPError] | None:
    """The httpx error httpcore raises for the event aiohttp raised `err` for (see the
    module's docstring); None if `err` is not a failure of the connection."""
    if isinstance(err, httpx.HTTPError):
        return type(err)
    if isinstance(err, aiohttp.ConnectionTimeoutError):  # waiting for a pool slot or connecting
        return httpx.ConnectTimeout
    if isinstance(err, aiohttp.SocketTimeoutError):
        return httpx.ReadTimeout
    if isinstance(err, aiohttp.ClientConnectorError):  # refused, unreachable, no such host
        return httpx.ConnectError
    if isinstance(err, aiohttp.ServerDisconnectedError | aiohttp.ClientPayloadError
                  | aiohttp.ClientResponseError):
        return httpx.RemoteProtocolError
    if isinstance(err, aiohttp.ClientOSError | ConnectionError):  # reset after connecting
        return httpx.ReadError if reading else httpx.WriteError
    if isinstance(err, aiohttp.InvalidURL):
        return httpx.UnsupportedProtocol
    if isinstance(err, TimeoutError | aiohttp.ClientError):
        return httpx.NetworkError
    return None


@contextlib.contextmanager
def _as_httpx(request: httpx.Request, *, reading: bool = False) -> Iterator[None]:
    """aiohttp's exceptions as httpx's (see the module's docstring)."""
    try:
        yield
    except httpx.HTTPError:
        raise
    except Exception as err:
        error = httpx_error(err, reading=reading)
        if error is None:
            raise
        raise error(str(err) or type(err).__name__, request=request) from err


@cache
def ssl_context() -> ssl.SSLContext:
    """httpx's trust store (certifi, or SSL_CERT_FILE / SSL_CERT_DIR), not the system's;
    loaded once a process (each load parses the whole bundle: some 20 ms)."""
    return httpx.create_ssl_context()


def open_session(max_connections: int, *, decompress: bool = False,
                 headers: dict[str, str] | None = None, keepalive_s: float = KEEPALIVE_S,
                 content_type: bool = False) -> aiohttp.ClientSession:
    """An aiohttp session in the running event loop: no cookie jar, no headers of its own
    beyond `headers`, idle connections closed after `keepalive_s`. With `content_type`,
    aiohttp names a body's type when the request does not (a multipart upload's boundary);
    without, each request says all its headers itself (as httpx's do). No proxy of its own:
    under httpx, httpx mounts its own proxy transport; asking aiohttp directly, pass
    EnvProxies'."""
    connector = aiohttp.TCPConnector(limit=max_connections, keepalive_timeout=keepalive_s,
                                     ssl=ssl_context())
    return aiohttp.ClientSession(
        connector=connector, cookie_jar=aiohttp.DummyCookieJar(), headers=headers,
        auto_decompress=decompress,
        skip_auto_headers=("User-Agent",) if content_type else ("User-Agent", "Content-Type"))


class _Body(httpx.AsyncByteStream):
    """A response body as aiohttp reads it: the first piece as soon as it arrives. With
    `gather_s`, each later read first waits up to `gather_s` and takes everything that came
    meanwhile as one piece; the body's end cuts the wait short, so its last piece is never
    held back. A model streaming one token a chunk is then read a few times a second
    instead of forty, each read a walk through the whole chain (issue 16)."""

    def __init__(self, response: aiohttp.ClientResponse, request: httpx.Request,
                 gather_s: float = 0.0) -> None:
        self._response, self._request, self._gather_s = response, request, gather_s

    async def __aiter__(self) -> AsyncIterator[bytes]:
        content = self._response.content
        with _as_httpx(self._request, reading=True):
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

    def __init__(self, max_connections: int = 100, *, gather_s: float = 0.0) -> None:
        self._max_connections, self._gather_s = max_connections, gather_s
        self._session: aiohttp.ClientSession | None = None

    def _open(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            # httpx's request says everything; httpx decodes the body.
            self._session = open_session(self._max_connections)
        return self._session

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        timeouts = request.extensions.get("timeout", {})
        connect, pool = timeouts.get("connect"), timeouts.get("pool")
        timeout = aiohttp.ClientTimeout(
            total=None, sock_read=timeouts.get("read"), sock_connect=connect,
            connect=None if connect is None or pool is None else connect + pool)
        body = await request.aread()  # a multipart upload is a stream in httpx
        headers = [(name, value) for name, value in request.headers.multi_items()
                   if name != "transfer-encoding"]  # the body is whole now
        with _as_httpx(request):
            response = await self._open().request(
                request.method, str(request.url), headers=headers, data=body or None,
                allow_redirects=False, compress=False, timeout=timeout)
        return httpx.Response(
            response.status, headers=response.raw_headers,
            stream=_Body(response, request, self._gather_s), request=request,
            extensions={"http_version": b"HTTP/1.1",
                        "reason_phrase": (response.reason or "").encode()})

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
