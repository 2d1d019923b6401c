"""`python -m bench.http_cost`: the bot's CPU for one Bot API call and one model stream, with
the libraries' own HTTP (python-telegram-bot's HTTPXRequest and `Bot.edit_message_text`,
the openai SDK on httpcore) and the way the bot makes them (wire/bot_api.py
through wire/telegram_request.py on aiohttp; the SDK on
wire/model_transport.py, httpx over aiohttp). Issue 16: HTTP was most of the bot's CPU
under load.

The fakes run in this process; each client runs in a process of its own (on uvloop, as
`python -m bot`), whose CPU time alone is counted: an `editMessageText`, 10 chats at a
time, and a streamed answer of the bench's model (46 chunks), 50 at a time; the best of
three rounds. Prints one Markdown table."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable

from bench.stage import script
from testkit.agentkit import TEST_KEY
from testkit.fakes.model import FakeModel, Pace
from testkit.fakes.telegram import TOKEN, FakeTelegram

CHATS = 10
EDITS = 30
STREAMS = 50
ROUNDS = 3
USERS = 5000
TRANSPORTS = ("libraries' own", "the bot's")


async def _client(transport: str, tg_url: str, model_url: str) -> dict[str, float]:
    import openai
    from telegram import Bot
    from telegram.request import HTTPXRequest

    from agent.model.model_client import ModelClient
    from agent.settings import AgentSettings
    from wire.bot_api import call
    from wire.telegram_request import TelegramRequest

    os.environ.update(OPENAI_API_KEY=TEST_KEY, OPENAI_BASE_URL=model_url, LLM_MAX_RETRIES="0")
    settings = AgentSettings()
    own = transport == TRANSPORTS[0]
    if own:
        request, model = HTTPXRequest(), ModelClient(
            settings, http_client=openai.DefaultAsyncHttpxClient())
    else:
        request, model = TelegramRequest(), ModelClient(settings)
    async with Bot(TOKEN, base_url=tg_url, request=request) as bot:
        ids = [(await bot.send_message(USERS + c, "…")).message_id for c in range(CHATS)]

        async def edit(n: int, c: int) -> None:
            if own:
                await bot.edit_message_text(f"step {n}", chat_id=USERS + c, message_id=ids[c])
            else:
                await call(bot, "editMessageText", text=f"step {n}", chat_id=USERS + c,
                           message_id=ids[c])

        async def edits(n: int) -> None:
            await asyncio.gather(*(edit(n, c) for c in range(CHATS)))

        await edits(0)
        per_edit = await _best(lambda: _each(edits, EDITS), CHATS * EDITS)
    answering = [{"role": "user", "content": "Question?"},
                 {"role": "tool", "content": "Berlin"}, {"role": "tool", "content": "Osaka"}]

    async def one_stream() -> None:
        async for _ in model.stream(answering):
            pass

    await one_stream()
    per_stream = await _best(lambda: asyncio.gather(*(one_stream() for _ in range(STREAMS))),
                             STREAMS)
    await model.close()
    return {"edit_ms": per_edit, "stream_ms": per_stream}


async def _each(step: Callable[[int], Awaitable[None]], times: int) -> None:
    for n in range(times):
        await step(n + 1)


async def _best(work: Callable[[], Awaitable[object]], count: int) -> float:
    """The least CPU (ms) per item over ROUNDS rounds of `work()`."""
    best = float("inf")
    for _ in range(ROUNDS):
        started = time.process_time()
        await work()
        best = min(best, (time.process_time() - started) * 1000 / count)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.http_cost", description=__doc__)
    parser.add_argument("--client", nargs=3, metavar=("TRANSPORT", "TG_URL", "MODEL_URL"),
                        help=argparse.SUPPRESS)  # the measured process
    args = parser.parse_args(argv)
    if args.client:
        import uvloop

        print(json.dumps(uvloop.run(_client(*args.client))))
        return 0
    pace = Pace(first_token_s=(0.05, 0.1), tokens_per_s=100)
    with FakeTelegram(scale=0.001) as tg, FakeModel(default=script, pace=pace) as model:
        for c in range(CHATS):
            tg.user(USERS + c)
        rows = []
        for transport in TRANSPORTS:
            print(f"http_cost: {transport} …", file=sys.stderr)
            out = subprocess.run([sys.executable, "-m", "bench.http_cost", "--client",
                                  transport, tg.base_url, model.base_url],
                                 capture_output=True, text=True, check=True)
            got = json.loads(out.stdout.strip().splitlines()[-1])
            rows.append(f"| {transport} | {got['edit_ms']:.2f} ms | {got['stream_ms']:.2f} ms |")
    print("| HTTP | CPU per editMessageText | CPU per 46-chunk model stream |")
    print("|---|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
