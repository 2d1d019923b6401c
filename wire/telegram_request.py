"""python-telegram-bot's requests straight on aiohttp: PTB's documented way to bring one's
own HTTP library (a `BaseRequest`).

Through PTB's HTTPXRequest (even with httpx on aiohttp) a Bot API
call built an httpx request, parsed its URL, encoded its form, ran it through httpx's
client (auth, redirects, cookies) and wrapped the reply: py-spy under `bench --scale` put
half of each call's CPU there. Here a call is one aiohttp request. A failure on the wire
is raised as PTB's `TimedOut` (a timeout) or `NetworkError`, *from* a WireError that says in
Glassbox's words whether the call was surely not sent (wire/wire_errors.py); `failure`
reads it back for whoever decides to make the call again (bot/telegram/delivery/live_message.py).
"""

from __future__ import annotations

import aiohttp
from telegram.error import NetworkError, TelegramError, TimedOut
from telegram.request import BaseRequest, RequestData

from wire.http_session import EnvProxies, open_session
from wire.limits import TELEGRAM_CONNECTIONS, TELEGRAM_POOL_S, TELEGRAM_TIMEOUT_S, client_timeout
from wire.wire_errors import WireError, WireFailure, failure_of

_JSON = {"Content-Type": "application/json"}

Timeout = float | None | object
"""A call's timeout as PTB passes it: seconds, None (none), or `BaseRequest.DEFAULT_NONE`
(the request's own default)."""


class TelegramRequest(BaseRequest):
    """One aiohttp session (opened at the first call, in the running loop) for a bot's
    calls; HTTPXRequest's settings and defaults. aiohttp has no write timeout: a call's
    `read_timeout` covers the whole exchange after connecting (`sock_read`). Like PTB's
    own HTTPXRequest, it goes through the proxy HTTP(S)_PROXY / NO_PROXY name for the Bot
    API's host (where Telegram is blocked, that is how a school reaches it)."""

    def __init__(self, connection_pool_size: int = TELEGRAM_CONNECTIONS,
                 read_timeout: float | None = TELEGRAM_TIMEOUT_S,
                 write_timeout: float | None = TELEGRAM_TIMEOUT_S,
                 connect_timeout: float | None = TELEGRAM_TIMEOUT_S,
                 pool_timeout: float | None = TELEGRAM_POOL_S) -> None:
        self._pool_size = connection_pool_size
        self._read, self._write = read_timeout, write_timeout
        self._connect, self._pool = connect_timeout, pool_timeout
        self._session: aiohttp.ClientSession | None = None
        self._proxy = EnvProxies()

    @property
    def read_timeout(self) -> float | None:
        return self._read

    async def initialize(self) -> None:
        """Nothing to do: the session opens with the first call."""

    async def shutdown(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    def _open(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = open_session(self._pool_size, decompress=True, content_type=True,
                                         headers={"User-Agent": self.USER_AGENT})
        return self._session

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Timeout = BaseRequest.DEFAULT_NONE,
        write_timeout: Timeout = BaseRequest.DEFAULT_NONE,
        connect_timeout: Timeout = BaseRequest.DEFAULT_NONE,
        pool_timeout: Timeout = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        timeout = client_timeout(_given(read_timeout, self._read),
                                 _given(connect_timeout, self._connect),
                                 _given(pool_timeout, self._pool))
        try:
            body = _body(request_data)
            proxy, proxy_auth = self._proxy(url)
            async with self._open().request(
                    method, url, data=body, timeout=timeout, proxy=proxy, proxy_auth=proxy_auth,
                    headers=_JSON if isinstance(body, bytes) else None) as response:
                return response.status, await response.read()
        except Exception as err:
            kind = failure_of(err)
            if kind is None:
                raise
            cause = WireError(kind, err)
            if isinstance(err, TimeoutError):
                raise TimedOut(f"Timed out: {cause}") from cause
            raise NetworkError(str(cause)) from cause


def failure(err: NetworkError) -> WireFailure:
    """What the failed call's `err` says, in Glassbox's words."""
    cause = err.__cause__
    if isinstance(cause, WireError):
        return cause.kind
    if cause is None or isinstance(cause, TelegramError):
        return WireFailure.REFUSED  # Telegram (or a proxy before it) answered: it failed
    return WireFailure.MAYBE_SENT  # something failed in the request class: it may have gone


def never_reached(err: NetworkError) -> bool:
    """Whether the failed call surely was not carried out, so making it again cannot do it
    twice."""
    return not failure(err).may_have_happened


def describe(err: NetworkError) -> str:
    """The error, with what it means for the call if PTB's text does not say it."""
    text = str(err)
    kind = failure(err)
    return text if kind in text else f"{text} ({kind})"


def _given(value: Timeout, default: float | None) -> float | None:
    """A call's own timeout (None: none), or the request's default if it gave none."""
    return value if value is None or isinstance(value, float | int) else default


def _body(data: RequestData | None) -> bytes | aiohttp.FormData | None:
    """The call's parameters as JSON (the Bot API takes `application/json` but for uploads;
    PTB's own encoding of them, `json_payload`), or as multipart with its files (as
    HTTPXRequest sends them). A form, as HTTPXRequest sends it, took a page's HTML through
    urlencode a byte at a time in Python: a tenth of a Bot API call's CPU (issue 16)."""
    if data is None:
        return None
    files = data.multipart_data
    if not files:
        return data.json_payload
    form = aiohttp.FormData()
    for name, value in data.json_parameters.items():
        form.add_field(name, value)
    for name, (filename, content, mime) in files.items():
        form.add_field(name, content, filename=filename, content_type=mime)
    return form
