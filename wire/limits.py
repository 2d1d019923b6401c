"""How every outgoing call is bounded: how long it may wait, whether it is made again, and
how many connections its client holds.

Timeouts. A call has three, each None for no limit:
- connect: to open a connection (TCP and TLS);
- pool: to wait for a free connection when the client's are all busy (aiohttp counts it
  and connect as one, `ClientTimeout.connect`, so a call waits their sum at most);
- read: for the next bytes of the answer, not for the whole exchange (a model's stream
  may go on for minutes while bytes keep coming). aiohttp has no write timeout: read
  covers the whole exchange after connecting.
`client_timeout` makes them aiohttp's, for every client alike:
- the model: read LLM_TIMEOUT_S, connect LLM_CONNECT_TIMEOUT_S, pool LLM_TIMEOUT_S (the
  openai SDK's `httpx.Timeout`, which model_transport.py hands on);
- Telegram: connect, read and write TELEGRAM_TIMEOUT_S (the app's `request_timeout_s`),
  pool TELEGRAM_POOL_S; getUpdates reads for its long poll and 5 s more
  (bot/telegram/app.py);
- the tools: read TOOL_HTTP_TIMEOUT_S, connect at most TOOLS_CONNECT_S, pool as read.

Retries. A call that surely never reached its server (wire_errors.WireFailure.NOT_SENT)
may be made again; one that may have reached it is made again only where doing it twice
does no harm:
- the model: the openai SDK makes a call again up to LLM_MAX_RETRIES times (no connection,
  a timeout, 408, 409, 429, 5xx), after 0.5 s, 1 s, … with jitter: a request that may have
  reached the model at worst costs its tokens again, and nothing is shown twice;
- Telegram: the request class never retries. The live message (bot/telegram/delivery/
  live.py) makes an edit again after any network error and a send only if it surely never
  reached Telegram, up to TELEGRAM_RETRIES times, waiting TELEGRAM_BACKOFF_S and then
  twice as long each time; a 429 holds back that chat alone for the `retry_after`
  Telegram names (bot/telegram/delivery/pacer.py);
- the tools: none; a failed lookup is an observation the model reads at once. aiohttp
  itself sends a GET again on a new connection when a kept one turns out closed.

Connections: at most MODEL_CONNECTIONS, TELEGRAM_CONNECTIONS and TOOLS_CONNECTIONS at once
(one for getUpdates); idle ones close after KEEPALIVE_S (TOOLS_KEEPALIVE_S for the tools).
"""

from __future__ import annotations

import aiohttp

KEEPALIVE_S = 5.0
"""Idle connections to the model and to Telegram close after this (httpx's default
keep-alive expiry)."""
MODEL_CONNECTIONS = 1000
"""Streams open at once to the model's server (the openai SDK's own default)."""
TELEGRAM_CONNECTIONS = 256
"""Bot API calls in flight at once (python-telegram-bot's default pool)."""
TELEGRAM_TIMEOUT_S = 5.0
"""A Bot API call's connect, write and read timeout unless the bot says otherwise."""
TELEGRAM_POOL_S = 1.0
"""How long a Bot API call waits for a free connection."""
TELEGRAM_RETRIES = 5
"""How many times the live message makes a Bot API call again after a network error."""
TELEGRAM_BACKOFF_S = 0.25
"""Its first wait before making the call again; each later wait is twice the one before."""
TOOLS_CONNECTIONS = 100
"""Lookups in flight at once, to all the tools' services together."""
TOOLS_CONNECT_S = 5.0
"""A tool's service is given at most this long to accept a connection."""
TOOLS_KEEPALIVE_S = 60.0
"""Idle connections to the tools' services stay open this long (the model's and Telegram's
close after 5 s), so a class's lookups a minute apart do not each pay a new TCP and TLS
handshake (more CPU than the lookup itself, and two round trips to a service abroad). A
tool only GETs, which aiohttp sends again on a new connection when a kept one turns out
closed by the server; it stays under the 75 s after which nginx, by default, closes idle
connections itself."""


def client_timeout(read_s: float | None, connect_s: float | None,
                   pool_s: float | None) -> aiohttp.ClientTimeout:
    """A call's timeouts as aiohttp takes them (None: no limit): `connect` covers waiting
    for a free connection too, so it is connect and pool together."""
    return aiohttp.ClientTimeout(
        total=None, sock_read=read_s, sock_connect=connect_s,
        connect=None if connect_s is None or pool_s is None else connect_s + pool_s)
