"""The tools' one shared HTTP client: GETs of JSON from public services (weather, currency,
Wikipedia), with bounded timeouts, an honest User-Agent, no cookies, and redirects followed
only where they stay on the service's own scheme, host and port.

The client is aiohttp itself, not httpx over aiohttp as for the model and Telegram: a tool
only GETs, and httpx's request building, cookies and response layers on top of aiohttp
would cost more CPU than the lookup itself (docs/scaling.md). What a failure means for
the tool that asked is agent/tools/upstream.py's business.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from urllib.parse import urljoin, urlsplit

import aiohttp

from wire.http_session import EnvProxies, open_session
from wire.limits import TOOLS_CONNECT_S, TOOLS_CONNECTIONS, TOOLS_KEEPALIVE_S, client_timeout
from wire.wire_errors import GlassboxError

USER_AGENT = "Glassbox/0.1 (a teaching bot for class chats)"
MAX_REDIRECTS = 5
REDIRECTS = frozenset({301, 302, 303, 307, 308})
_DEFAULT_PORTS = {"http": 80, "https": 443}


class RedirectRefusal(StrEnum):
    ELSEWHERE = "elsewhere"
    """A redirect to another scheme, host or port: a misbehaving service must not point the
    bot at 127.0.0.1 or an internal address."""
    TOO_MANY = "too many"
    """More than MAX_REDIRECTS in a row."""


class RedirectRefused(GlassboxError):
    """A GET that was not followed where the service sent it."""

    def __init__(self, refusal: RedirectRefusal, status: int) -> None:
        super().__init__(f"redirect refused: {refusal} ({status})")
        self.refusal, self.status = refusal, status


class HttpClient:
    """The tools' shared client: `timeout_s` to answer and to wait for a free connection,
    at most TOOLS_CONNECT_S to connect (wire/limits.py), through the proxy HTTPS_PROXY names
    (as httpx did). Its session opens at the first request, in the running event loop."""

    def __init__(self, timeout_s: float) -> None:
        self.timeout = client_timeout(timeout_s, min(timeout_s, TOOLS_CONNECT_S), timeout_s)
        self._session: aiohttp.ClientSession | None = None
        self.closed = False
        self.proxy = EnvProxies()

    def session(self) -> aiohttp.ClientSession:
        if self.closed:
            raise RuntimeError("the tools' HTTP client is closed")
        if self._session is None or self._session.closed:
            self._session = open_session(TOOLS_CONNECTIONS, decompress=True,
                                         headers={"User-Agent": USER_AGENT},
                                         keepalive_s=TOOLS_KEEPALIVE_S)
        return self._session

    async def aclose(self) -> None:
        self.closed = True
        if self._session is not None:
            await self._session.close()
            self._session = None


def make_client(timeout_s: float) -> HttpClient:
    return HttpClient(timeout_s)


async def get(http: HttpClient, url: str, params: Mapping[str, str | int | float],
              headers: Mapping[str, str] | None = None) -> tuple[int, bytes]:
    """GET: the status and the body. Raises RedirectRefused, or aiohttp's and asyncio's
    own errors (wire_errors.failure_of names them)."""
    query: dict[str, str] | None = {key: _query_value(value) for key, value in params.items()}
    target, hops = url, 0
    while True:
        proxy, proxy_auth = http.proxy(target)
        async with http.session().get(target, params=query, headers=headers,
                                      allow_redirects=False, timeout=http.timeout,
                                      proxy=proxy, proxy_auth=proxy_auth) as response:
            status = response.status
            location = response.headers.get("Location") if status in REDIRECTS else None
            if location is None:
                return status, await response.read()
            target, query = urljoin(str(response.url), location), None
        if _origin(target) != _origin(url):
            raise RedirectRefused(RedirectRefusal.ELSEWHERE, status)
        if hops == MAX_REDIRECTS:
            raise RedirectRefused(RedirectRefusal.TOO_MANY, status)
        hops += 1


def _origin(url: str) -> tuple[str, str | None, int | None]:
    """Scheme, host and port (a scheme's default port spelt out or not: the same)."""
    parts = urlsplit(url)
    return parts.scheme, parts.hostname, parts.port or _DEFAULT_PORTS.get(parts.scheme)


def _query_value(value: str | int | float) -> str:
    """A parameter as httpx wrote it: true/false for a bool, str() for a number."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else str(value)
