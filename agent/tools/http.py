"""The one shared HTTP client of the tools, and how an upstream's failures become UpstreamErrors.

Every networked tool asks for JSON through `get_json`; whatever goes wrong (no connection,
timeout, 4xx/5xx, a body that is not JSON, a redirect to another host) comes back as an
UpstreamError with a short text naming the service, never as an exception of the HTTP
library.

The client is aiohttp itself, not httpx over aiohttp as for the model and Telegram: a tool
only GETs JSON, and httpx's request building, cookies and response layers on top of
aiohttp cost about 0.6 ms of the 1 ms a lookup took (four lookups an answer). A failure on
the wire is named in Glassbox's words (agent/wire_errors.py).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import urljoin, urlsplit

import aiohttp

from agent.http_session import EnvProxies, open_session
from agent.tool import UpstreamError
from agent.wire_errors import WireFailure, failure_of
from agent.words import say

USER_AGENT = "Glassbox/0.1 (a teaching bot for class chats)"
MAX_REDIRECTS = 5
MAX_CONNECTIONS = 100
KEEPALIVE_S = 60.0
"""Idle connections to the tools' services stay open this long (the model's and Telegram's
close after 5 s), so a class's lookups a minute apart do not each pay a new TCP and TLS
handshake (about 2.5 ms of CPU against 1 ms a lookup, and two round trips to a service
abroad). A tool only GETs, which aiohttp sends again on a new connection when a kept one
turns out closed by the server; it stays under the 75 s after which nginx, by default,
closes idle connections itself."""
REDIRECTS = frozenset({301, 302, 303, 307, 308})
_DEFAULT_PORTS = {"http": 80, "https": 443}


class HttpClient:
    """The tools' shared client: bounded timeouts (`timeout_s` to answer, at most 5 s to
    connect), an honest User-Agent, no cookies, through the proxy HTTPS_PROXY names (as
    httpx did). Its session opens at the first request, in the running event loop."""

    def __init__(self, timeout_s: float) -> None:
        connect = min(timeout_s, 5.0)
        self.timeout = aiohttp.ClientTimeout(total=None, sock_read=timeout_s,
                                             sock_connect=connect, connect=connect + timeout_s)
        self._session: aiohttp.ClientSession | None = None
        self.closed = False
        self.proxy = EnvProxies()

    def session(self) -> aiohttp.ClientSession:
        if self.closed:
            raise RuntimeError("the tools' HTTP client is closed")
        if self._session is None or self._session.closed:
            self._session = open_session(MAX_CONNECTIONS, decompress=True,
                                         headers={"User-Agent": USER_AGENT},
                                         keepalive_s=KEEPALIVE_S)
        return self._session

    async def aclose(self) -> None:
        self.closed = True
        if self._session is not None:
            await self._session.close()
            self._session = None


def make_client(timeout_s: float) -> HttpClient:
    return HttpClient(timeout_s)


async def _get(http: HttpClient, url: str, params: Mapping[str, str | int | float],
               headers: Mapping[str, str] | None, service: str,
               lang: str) -> tuple[int, bytes]:
    """GET: the status and the body. Redirects are followed only when they stay on the
    same scheme, host and port: a misbehaving upstream must not point the bot at 127.0.0.1
    or an internal address."""
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
            raise UpstreamError(say(lang, "http_redirect_elsewhere", service=service), status)
        if hops == MAX_REDIRECTS:
            raise UpstreamError(say(lang, "http_too_many_redirects", service=service), status)
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


async def get_json(
    http: HttpClient,
    url: str,
    params: Mapping[str, str | int | float],
    *,
    service: str,
    lang: str,
    headers: Mapping[str, str] | None = None,
) -> Any:
    """GET `url` and return its JSON body, or raise UpstreamError."""
    try:
        status, content = await _get(http, url, params, headers, service, lang)
    except UpstreamError:
        raise
    except Exception as exc:
        failure = failure_of(exc)
        if failure is None:
            raise
        if failure is WireFailure.TIMED_OUT or isinstance(exc, TimeoutError):
            raise UpstreamError(say(lang, "http_timed_out", service=service)) from None
        if failure is WireFailure.NOT_SENT:
            raise UpstreamError(say(lang, "http_not_reached", service=service)) from None
        raise UpstreamError(say(lang, "http_broke", service=service)) from None
    ok = 200 <= status < 300
    try:
        body = json.loads(content)
    except (json.JSONDecodeError, UnicodeDecodeError):
        body = None
        if ok:
            raise UpstreamError(say(lang, "http_not_json", service=service), status) from None
    if ok:
        return body
    reason = _reason(body)
    detail = f": {reason}" if reason else ""
    raise UpstreamError(say(lang, "http_error", service=service, status=status, detail=detail),
                        status, reason)


def _reason(body: Any) -> str:
    """The error text an upstream put in its JSON body (Open-Meteo `reason`,
    Frankfurter `message`, Wikimedia REST `detail`), bounded."""
    if not isinstance(body, dict):
        return ""
    for key in ("reason", "message", "detail"):
        value = body.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()[:200]
    return ""
