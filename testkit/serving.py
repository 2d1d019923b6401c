"""The bot as `python -m bot` runs it (polling and the HTTP server in one loop, bot/serve),
in the test's own event loop, against the fake Bot API and the fake model; an httpx client
talking real HTTP to it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from agent.tool import Tool
from bot import serve
from bot.runs.metrics import Metrics
from bot.telegram.app import build_app
from bot.telegram.delivery.pacer import Limits
from testkit.bot_http import bot_client
from testkit.botkit import SCALE, Glassbox, bot_settings
from testkit.fakes.model import FakeModel
from testkit.fakes.telegram import FakeTelegram


@dataclass
class Served:
    gb: Glassbox
    base_url: str
    http: httpx.AsyncClient
    stopping: asyncio.Event
    """Set it to stop the bot as SIGTERM does (`serving` then only waits for the end)."""
    task: asyncio.Task[None]


@contextlib.asynccontextmanager
async def serving(tg: FakeTelegram, model: FakeModel, db: Path, *,
                  tools: Sequence[Tool] | None = (), request_timeout_s: float = 5.0,
                  **extra: Any) -> AsyncIterator[Served]:
    """Start the bot with its HTTP server on a free local port; stop it as SIGTERM would.
    As testkit.botkit.running, the drawing process starts at the first picture."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    settings = bot_settings(tg, model, db, public_url=base, **extra)
    metrics = Metrics()
    app = build_app(settings, metrics, limits=Limits().scaled(SCALE), poll_timeout_s=1,
                    request_timeout_s=request_timeout_s)
    stopping = asyncio.Event()
    task = asyncio.create_task(serve.serve(app, settings, metrics, sock, tools=tools,
                                           stopping=stopping, poll_timeout_s=1,
                                           warm_drawing=False))
    try:
        async with bot_client(base) as http:
            await _until_up(http, task)
            yield Served(Glassbox(tg, model, app), base, http, stopping, task)
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


@dataclass
class SseEvent:
    id: str
    event: str
    data: Any


class EventStream:
    """Server-sent events read from an open httpx stream, one parsed event at a time."""

    def __init__(self, lines: AsyncIterator[str]) -> None:
        self._lines = lines

    async def next(self, timeout: float = 10) -> SseEvent:
        return await asyncio.wait_for(self._next(), timeout)

    async def until(self, wanted: Callable[[SseEvent], bool], timeout: float = 15
                    ) -> list[SseEvent]:
        """Events read until one is `wanted` (it last)."""
        seen: list[SseEvent] = []
        async with asyncio.timeout(timeout):
            while not seen or not wanted(seen[-1]):
                seen.append(await self._next())
        return seen

    async def _next(self) -> SseEvent:
        fields: dict[str, str] = {}
        async for line in self._lines:
            if not line:
                if "data" in fields:
                    return SseEvent(fields.get("id", ""), fields.get("event", "message"),
                                    json.loads(fields["data"]))
                fields = {}
                continue
            name, _, value = line.partition(":")
            if name:  # a line starting with ":" is a comment (a ping)
                fields[name] = value[1:] if value.startswith(" ") else value
        raise EOFError("the stream ended")


@contextlib.asynccontextmanager
async def event_stream(http: httpx.AsyncClient, path: str,
                       last_id: str = "") -> AsyncIterator[EventStream]:
    headers = {"Last-Event-ID": last_id} if last_id else {}
    async with http.stream("GET", path, headers=headers) as answer:
        assert answer.status_code == 200, answer.status_code
        assert answer.headers["content-type"].startswith("text/event-stream")
        yield EventStream(answer.aiter_lines())
