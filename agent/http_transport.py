"""httpx over aiohttp: the transport under every HTTP client of the process (the model's
openai SDK client, the tools' client, python-telegram-bot's requests).

httpx's own transport (httpcore on anyio, h11 in pure Python, a connection pool scanned
whole on every request) costs about twice aiohttp's (a C parser, an O(1) pool) per request
and per streamed chunk; under load it was most of the bot's CPU (issue 16). httpx
stays the interface (the openai SDK and python-telegram-bot are built on it), so its
errors keep their meaning: each aiohttp failure is raised as the httpx error httpcore
raises for the same event, so "was anything sent?" (bot/delivery/call_errors.py) and the
model's error kinds (agent/model_errors.py) read them as before.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager

import aiohttp
import httpx

KEEPALIVE_S = 5.0
"""Idle connections close after this (httpx's default keep-alive expiry)."""


@contextmanager
def _as_httpx(request: httpx.Request, *, reading: bool = False) -> Iterator[None]:
    """aiohttp's exceptions as httpx's (see the module's docstring)."""
    try:
        yield
    except httpx.HTTPError:
        raise
    except aiohttp.ConnectionTimeoutError as err:  # waiting for a pool slot or connecting
        raise httpx.ConnectTimeout(str(err) or "connect timeout", request=request) from err
    except aiohttp.SocketTimeoutError as err:
        raise httpx.ReadTimeout(str(err) or "read timeout", request=request) from err
    except aiohttp.ClientConnectorError as err:  # refused, unreachable, no such host
        raise httpx.ConnectError(str(err), request=request) from err
    except (aiohttp.ServerDisconnectedError, aiohttp.ClientPayloadError,
            aiohttp.ClientResponseError) as err:
        raise httpx.RemoteProtocolError(str(err) or type(err).__name__,
                                        request=request) from err
    except (aiohttp.ClientOSError, ConnectionError) as err:  # reset after connecting
        error = httpx.ReadError if reading else httpx.WriteError
        raise error(str(err) or type(err).__name__, request=request) from err
    except aiohttp.InvalidURL as err:
        raise httpx.UnsupportedProtocol(str(err), request=request) from err
    except (TimeoutError, aiohttp.ClientError) as err:
        raise httpx.NetworkError(str(err) or type(err).__name__, request=request) from err


class _Body(httpx.AsyncByteStream):
    """A response body as aiohttp reads it: each piece as soon as it arrives (a stream's
    chunks are not held back to fill a buffer)."""

    def __init__(self, response: aiohttp.ClientResponse, request: httpx.Request) -> None:
        self._response, self._request = response, request

    async def __aiter__(self) -> AsyncIterator[bytes]:
        with _as_httpx(self._request, reading=True):
            async for piece in self._response.content.iter_any():
                yield piece

    async def aclose(self) -> None:
        self._response.release()


class AiohttpTransport(httpx.AsyncBaseTransport):
    """An httpx transport that sends with one aiohttp session (opened at the first request,
    in the running event loop)."""

    def __init__(self, max_connections: int = 100) -> None:
        self._max_connections = max_connections
        self._session: aiohttp.ClientSession | None = None

    def _open(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            # httpx's trust store (certifi, or SSL_CERT_FILE / SSL_CERT_DIR), not the system's
            connector = aiohttp.TCPConnector(limit=self._max_connections,
                                             keepalive_timeout=KEEPALIVE_S,
                                             ssl=httpx.create_ssl_context())
            # No cookie jar, no added headers: httpx's request says everything.
            self._session = aiohttp.ClientSession(
                connector=connector, cookie_jar=aiohttp.DummyCookieJar(),
                auto_decompress=False, skip_auto_headers=("User-Agent", "Content-Type"))
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
            response.status, headers=response.raw_headers, stream=_Body(response, request),
            request=request, extensions={"http_version": b"HTTP/1.1",
                                         "reason_phrase": (response.reason or "").encode()})

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
