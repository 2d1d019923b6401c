"""`python -m bench --delivery-cpu [--against REF]`: the bot's CPU for delivering one answer to
Telegram: the live message (the pacer's turns, the send rate, rendering on demand, the Bot API
calls through the bot's own request objects), "typing…" while nothing is on screen, and
the final state. The agent's side is `--answer-cpu`'s; the two add up to what
`--scale` measures, less the event loop's share under load.

A run is played as the bench's 3-round answers go (`python -m bench --scale`): about 100
changes over 5 s (one each 50 ms, as the model's chunks and the steps arrive), each a
`show()` of a function rendering the state (a page of a few hundred to 1,300 characters of
HTML, like the chain's), then `finish()` with the answer; RUNS private chats at once, the
fake Bot API in another process with Telegram's limits and the bench's 50 ms a call. The
measured code runs in a process of its own, on uvloop as the bot does, its bot built by
`bot.telegram.app.build_app` (so each checkout's own requests), whose CPU time alone is counted: the
least of ROUNDS rounds. With `--against REF` REF's code is measured the same way, the two
in pairs (bench/cpu_process.py). Prints one Markdown table and whether the difference is
beyond the noise."""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from testkit.fakes.telegram import FakeTelegram

RUNS = 30
ROUNDS = 3
QUICK = (2, 1)
"""`--quick`: runs at a time and rounds (a smoke run)."""
CHANGES = 100
CHANGE_S = 0.05
USERS = 7000
PAGE_STEPS = 18
STEP = " The weather in Berlin is 2.3 °C <b>now</b>, and in Osaka 27.3 °C;"
"""What each change adds to the page (a chunk of a thought or an observation)."""


async def _client(at_once: str, rounds: str, tg_url: str, workdir: str) -> dict[str, float]:
    try:
        from bot.bot_settings import BotSettings
    except ImportError:  # a ref from before the module's name said whose settings
        from bot.settings import BotSettings  # type: ignore[no-redef]
    from bot.runs.metrics import Metrics
    from bot.telegram.app import build_app
    try:
        from bot.telegram.delivery.live_message import LiveMessage
    except ImportError:  # a ref from before the module's name said what is live
        from bot.telegram.delivery.live import LiveMessage  # type: ignore[no-redef]
    from bot.telegram.delivery.pacer import Limits, Pacer
    from bot.telegram.delivery.typing_indicator import Typing
    from bot.view.buttons import Button

    os.environ.update(TELEGRAM_API_BASE_URL=tg_url,
                      DATABASE_PATH=str(Path(workdir) / "b.sqlite3"))
    settings = BotSettings(_env_file=None)  # type: ignore[call-arg]
    # A ref from before the composition root made the metrics builds its own.
    metrics = () if "metrics" not in inspect.signature(build_app).parameters else (Metrics(),)
    app = build_app(settings, *metrics)
    bot = app.bot
    await bot.initialize()
    pacer = Pacer(Limits())
    # A ref from before the send rate had its name calls it the pacer's budget.
    typing = Typing(bot, getattr(pacer, "send_rate", None) or pacer.budget)
    stop = ((Button("⏹ Stop", "stop:1"),),)

    async def one(n: int) -> None:
        chat = USERS + n
        live = LiveMessage(bot, pacer, chat, None, button=stop)
        head = f"❓ <b>Question {n} from chat {chat}?</b>\n\n"
        state: list[str] = []

        async def shown() -> None:
            async with typing.shown(chat):
                await live.first_sent()

        waiting = asyncio.create_task(shown())
        for step in range(CHANGES):
            state.append(STEP if step % 30 else f"\n\n<b>— Round {step // 30 + 1} —</b>\n")
            live.show(lambda: [page(head, state) + "\n\n<i>⏳ Working…</i>"])
            await asyncio.sleep(CHANGE_S)
        await live.finish([page(head, state) + "\n\n💬 <b>Answer</b>\nDone."])
        waiting.cancel()

    await one(int(at_once) + 1)  # connections, caches: not an answer's cost
    best: dict[str, float] = {}
    for _ in range(int(rounds)):
        started = time.process_time()
        await asyncio.gather(*(one(n) for n in range(int(at_once))))
        cpu_ms = (time.process_time() - started) * 1000 / int(at_once)
        best = min(best, {"cpu_ms": cpu_ms}, key=lambda b: b.get("cpu_ms", float("inf")))
    await bot.shutdown()
    return best


def page(head: str, state: list[str]) -> str:
    """The question and the newest changes: a page of up to about 1,300 characters."""
    return head + "".join(state[-PAGE_STEPS:])


def measure(code: Path, size: tuple[int, int], tg: FakeTelegram) -> dict[str, Any]:
    """One process's best round, and the Bot API calls an answer made (warm-up included)."""
    calls = len(tg.calls)
    from bench.cpu_process import in_process

    runs, rounds = size
    got = in_process(Path(__file__), code, str(runs), str(rounds), tg.base_url)
    return {**got, "calls": (len(tg.calls) - calls) / (rounds * runs + 1)}


def main(argv: list[str]) -> int:
    from bench.cpu_process import options, side_by_side
    from bench.stage import TELEGRAM_LATENCY_S
    from testkit.fakes.telegram import FakeTelegram

    args = options("--delivery-cpu", __doc__).parse_args(argv)
    size, times = (QUICK, 1) if args.quick else ((RUNS, ROUNDS), args.times)
    with FakeTelegram(latency=TELEGRAM_LATENCY_S) as tg:
        for n in range(size[0] + 2):
            tg.user(USERS + n)
        got = side_by_side(args.against, times, "delivery_cpu",
                           lambda code: measure(code, size, tg))
    print("| Code | CPU per answer delivered (live message, typing, Bot API calls): median "
          "(least–most) | Bot API calls per answer | processes × rounds × answers |")
    print("|---|---|---|---|")
    for label, results in got.got.items():
        print(f"| {label} | {got.spread(label, 'cpu_ms')} | "
              f"{statistics.median(r['calls'] for r in results):.1f} | "
              f"{len(results)} × {size[1]} × {size[0]} |")
    print(f"\n{got.verdict('cpu_ms')}")
    return 0


if __name__ == "__main__":  # the measured process (bench/cpu_process.py): `--client ARGS…`
    import uvloop

    print(json.dumps(uvloop.run(_client(*sys.argv[2:]))))
