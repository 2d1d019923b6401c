"""The client the suite and the benchmarks talk to the bot's own HTTP server with (its board,
API, webhook and /healthz): the far side of the wire, not one of the bot's outgoing calls,
which wire/ makes."""

from __future__ import annotations

import httpx

TIMEOUT_S = 10.0


def bot_client(base_url: str = "", timeout_s: float = TIMEOUT_S) -> httpx.AsyncClient:
    """An httpx client to the bot at `base_url` (http://127.0.0.1:PORT), each request timed
    out after `timeout_s`."""
    return httpx.AsyncClient(base_url=base_url, timeout=timeout_s)
