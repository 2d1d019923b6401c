"""The bot as `python -m bot` runs it (polling and the HTTP server in one loop, bot/web/serve),
in the test's own event loop, against the fake Bot API and the fake model; an httpx client
talking real HTTP to it."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from agent.tool import Tool
from bot.app import build_app
from bot.delivery.pacer import Limits
from bot.web import serve
from tests.botkit import SCALE, Glassbox, bot_settings
from tests.fakes.model import FakeModel
from tests.fakes.telegram import FakeTelegram


@dataclass
class Served:
    gb: Glassbox
    base_url: str
    http: httpx.AsyncClient


@contextlib.asynccontextmanager
async def serving(tg: FakeTelegram, model: FakeModel, db: Path, *,
                  tools: Sequence[Tool] | None = (), **extra: Any) -> AsyncIterator[Served]:
    """Start the bot with its HTTP server on a free local port; stop it as SIGTERM would."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    settings = bot_settings(tg, model, db, public_url=base, **extra)
    app = build_app(settings, tools=tools, limits=Limits().scaled(SCALE), poll_timeout_s=1)
    stopping = asyncio.Event()
    task = asyncio.create_task(serve.serve(app, settings, sock, stopping=stopping,
                                           poll_timeout_s=1))
    try:
        async with httpx.AsyncClient(base_url=base, timeout=10) as http:
            await _until_up(http, task)
            yield Served(Glassbox(tg, model, app), base, http)
    finally:
        stopping.set()
        await asyncio.wait_for(task, 30)
        sock.close()


async def _until_up(http: httpx.AsyncClient, task: asyncio.Task[None]) -> None:
    for _ in range(200):
        if task.done():
            task.result()  # raises what stopped it
        try:
            if (await http.get("/healthz")).status_code == 200:
                return
        except httpx.TransportError:
            pass
        await asyncio.sleep(0.05)
    raise TimeoutError("the bot's HTTP server did not come up")
