"""The process's aiohttp sessions, made one way: the model's (under the openai SDK's httpx
client, wire/model_transport.py), Telegram's requests (wire/telegram_request.py) and the
tools' (wire/tools_client.py).

aiohttp carries every request: httpx's own transport (httpcore on anyio, h11 in pure Python,
a connection pool scanned whole on every request) cost about twice aiohttp's (a C parser,
an O(1) pool) per request and per streamed chunk; under load it was most of the bot's CPU.
"""
from __future__ import annotations

import ssl
from functools import cache

import aiohttp
import httpx
from aiohttp.helpers import get_env_proxy_for_url
from yarl import URL

from wire.limits import KEEPALIVE_S

Proxy = tuple[URL | None, aiohttp.BasicAuth | None]


class EnvProxies:
    """The proxy HTTP(S)_PROXY / NO_PROXY name for each origin (where a school's network
    reaches the world only through one), looked up once per origin: aiohttp's own lookup
    (`trust_env`) reads the environment and ~/.netrc again for every request. Pass it as a
    request's `proxy`, `proxy_auth`."""

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


@cache
def ssl_context() -> ssl.SSLContext:
    """httpx's trust store (certifi, or SSL_CERT_FILE / SSL_CERT_DIR), not the system's;
    loaded once a process (each load parses the whole bundle)."""
    return httpx.create_ssl_context()


def open_session(max_connections: int, *, decompress: bool = False,
                 headers: dict[str, str] | None = None, keepalive_s: float = KEEPALIVE_S,
                 content_type: bool = False) -> aiohttp.ClientSession:
    """An aiohttp session in the running event loop: no cookie jar, no headers of its own
    beyond `headers`, idle connections closed after `keepalive_s`. With `content_type`,
    aiohttp names a body's type when the request does not (a multipart upload's boundary);
    without, each request says all its headers itself (as httpx's do). No proxy of its own:
    under httpx, httpx mounts a transport of its own for the proxy; asking aiohttp directly,
    pass EnvProxies'."""
    connector = aiohttp.TCPConnector(limit=max_connections, keepalive_timeout=keepalive_s,
                                     ssl=ssl_context())
    return aiohttp.ClientSession(
        connector=connector, cookie_jar=aiohttp.DummyCookieJar(), headers=headers,
        auto_decompress=decompress,
        skip_auto_headers=("User-Agent",) if content_type else ("User-Agent", "Content-Type"))
