"""`python -m bench --wire-floor`: the CPU the bot's process spends on the HTTP of one 3-round
answer alone, at `--scale`'s pace, made through the clients the bot makes it with (the
openai SDK's request and wire/sse.py over httpx on aiohttp for the model, the tools' aiohttp
session, python-telegram-bot's request on aiohttp): none of Glassbox's own work (no update
handled, no fold, render, store, pacer or budget). Issue 16 asked for <= 30 ms of bot CPU an
answer; this is how much of that the fixed stack spends before Glassbox does anything.

Each level runs in a process of its own on uvloop, the fakes in this one (as `--scale`'s):
the answers start spread over the window. Each makes its Telegram calls (a first message,
edits at most one a second while the model streams, the final edit; one call is the final
message alone, as a class's answer is), the model's three streamed rounds (first token after
0.5-1 s, then 40 chunks a second: bench.stage.script) and a forecast lookup (0.1 s) after
each of the first two. Each level is measured three ways: the model's streams alone, with
the lookups, and with the Telegram calls too (the floor). Prints one Markdown table."""

from __future__ import annotations

import asyncio
import json
import math
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CHAT_BASE = 7_000_000
PAGE = "<b>💭 Thought</b>\n" + "To answer this I need the weather in Berlin now. " * 24
"""An intermediate page about as long as the live message's (up to some 1,300 characters)."""
PARTS = ("model", "model+tools", "all")


@dataclass(frozen=True)
class Level:
    name: str
    answers: int
    window_s: float
    calls: float
    """Telegram calls an answer (`--scale`'s figure for the level; a fraction alternates)."""


LEVELS = (Level("50 chats in 10 s", 50, 10, 6), Level("200 chats in 10 s", 200, 10, 2.5),
          Level("class of 40 in one group", 40, 10, 1))
QUICK = (Level("quick: 5 chats in 1 s", 5, 1, 3),)


async def _client(parts: str, answers: str, window_s: str, calls: str, model_url: str,
                  forecast_url: str, tg_url: str, workdir: str) -> dict[str, float]:
    from telegram import Bot

    from agent.model.model_client import ModelClient
    from agent.settings import AgentSettings
    from agent.tools.upstream import get_json
    from wire.bot_api import call
    from wire.telegram_request import TelegramRequest
    from wire.tools_client import make_client

    os.environ.update(OPENAI_BASE_URL=model_url, LLM_MAX_RETRIES="0")
    model, http = ModelClient(AgentSettings()), make_client(10.0)
    tools, telegram = parts != "model", parts == "all"
    made = [0]

    async def answer(bot: Bot, n: int, calls_here: int) -> None:
        chat = CHAT_BASE + n

        async def say(method: str, **params: object) -> Any:
            made[0] += 1
            return await call(bot, method, chat_id=chat, parse_mode="HTML", **params)

        first = None
        if telegram and calls_here > 1:
            first = (await say("sendMessage", text="…"))["message_id"]
        edits, last = calls_here - 2, time.monotonic()
        messages: list[dict[str, Any]] = [{"role": "user", "content": f"Question {n}?"}]
        for round_ in range(3):
            async for _ in model.stream(messages):
                if first is not None and edits > 0 and time.monotonic() - last >= 1.0:
                    edits, last = edits - 1, time.monotonic()
                    await say("editMessageText", message_id=first, text=f"{PAGE}{edits}")
            if round_ == 2:
                break
            if tools:
                await get_json(http, forecast_url, {"latitude": 52.52, "longitude": 13.41,
                                                    "current": "temperature_2m"},
                               service="Open-Meteo", lang="en")
            messages = [*messages,
                        {"role": "assistant", "content": None, "tool_calls": [
                            {"id": f"c{round_}", "type": "function",
                             "function": {"name": "get_weather", "arguments": "{}"}}]},
                        {"role": "tool", "tool_call_id": f"c{round_}", "content": "5 °C"}]
        if telegram:
            if first is None:
                await say("sendMessage", text=f"{PAGE} final")
            else:
                await say("editMessageText", message_id=first, text=f"{PAGE} final")

    count, window, per = int(answers), float(window_s), float(calls)
    try:
        async with Bot(os.environ["TELEGRAM_BOT_TOKEN"], base_url=tg_url,
                       request=TelegramRequest()) as bot:
            await answer(bot, count, 3)  # connections, caches: not an answer's cost
            made[0] = 0
            rng = random.Random(11)
            offsets = sorted(rng.uniform(0, window) for _ in range(count))
            began, cpu = time.monotonic(), time.process_time()

            async def later(n: int, offset: float) -> None:
                await asyncio.sleep(max(0.0, began + offset - time.monotonic()))
                # this answer's share of `per` calls an answer: 2.5 is 2 and 3 by turns
                await answer(bot, n, math.floor(per * (n + 1)) - math.floor(per * n))

            await asyncio.gather(*(later(n, offset) for n, offset in enumerate(offsets)))
            cpu_ms = (time.process_time() - cpu) * 1000 / count
    finally:
        await model.close()
        await http.aclose()
    return {"cpu_ms": cpu_ms, "calls": made[0] / count, "wall_s": time.monotonic() - began}


def main(argv: list[str]) -> int:
    from bench.cpu_process import in_process, options
    from bench.stage import ROOT, UPSTREAM_LATENCY_S, model_pace, script
    from testkit.fakes.model import FakeModel
    from testkit.fakes.telegram import FakeTelegram
    from testkit.fakes.upstreams import FakeOpenMeteo

    args = options("--wire-floor", __doc__, against=False).parse_args(argv)
    levels, times = (QUICK, 1) if args.quick else (LEVELS, args.times)
    rows = []
    with FakeModel(default=script, pace=model_pace()) as model, \
            FakeOpenMeteo(latency=UPSTREAM_LATENCY_S) as meteo, FakeTelegram(scale=0.001) as tg:
        for level in levels:
            for n in range(level.answers + 1):
                tg.user(CHAT_BASE + n)
            got: dict[str, list[dict[str, float]]] = {part: [] for part in PARTS}
            for _ in range(times):
                for part in PARTS:
                    print(f"wire_floor: {level.name}, {part} …", file=sys.stderr)
                    got[part].append(in_process(
                        Path(__file__), ROOT, part, str(level.answers), str(level.window_s),
                        str(level.calls), model.base_url, meteo.forecast_url, tg.base_url))
            cpu = {part: statistics.median(r["cpu_ms"] for r in got[part]) for part in PARTS}
            rows.append(f"| {level.name} | {got['all'][0]['calls']:.1f} | "
                        f"{cpu['model']:.1f} ms | {cpu['model+tools']:.1f} ms | "
                        f"**{cpu['all']:.1f} ms** | {len(got['all'])} |")
    print("| Level | Telegram calls an answer | Model streams alone | With the tools' lookups "
          "| With the Telegram calls: the floor | Runs (median) |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":  # the measured process (bench/cpu_process.py): `--client ARGS…`
    import uvloop

    print(json.dumps(uvloop.run(_client(*sys.argv[2:]))))
