"""`python -m bench --answer-cpu [--against REF]`: the bot's CPU for one 3-round answer on the
agent's side of the live message: the model's three streams, the two weather lookups, each
event folded into the run's view, told to the listeners and stored (`Runs.fold`, as
`python -m bot` runs it), and the final state rendered. Telegram's calls are not in it
(`--delivery-cpu` and `--scale` measure those).

The fakes (the bench's model, paced so that each chunk arrives on its own as from a real
model, and Open-Meteo) run in this process; the measured code runs in a process of its
own, on uvloop as the bot does, whose CPU time alone is counted: RUNS runs at a time, the
least of ROUNDS rounds. With `--against REF` REF's code is measured the same way, the two
in pairs (bench/cpu_process.py), so both share the machine's load. Prints one Markdown
table and whether the difference is beyond the noise."""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from testkit.fakes.model import FakeModel
    from testkit.fakes.upstreams import FakeOpenMeteo

RUNS = 50
ROUNDS = 5
QUICK = (3, 1)
"""`--quick`: runs at a time and rounds (a smoke run)."""
FIRST_TOKEN_S, TOKENS_PER_S = (0.05, 0.1), 200
"""The model's pace: fast enough for a quick bench, slow enough that every chunk is its own
network read. Plain figures: the measured process imports nothing of testkit/."""


async def _client(at_once: str, rounds: str, model_url: str, geocoding_url: str,
                  forecast_url: str, workdir: str) -> dict[str, float]:
    from agent import ModelClient  # the name every ref's package gives it
    from agent.tools import Toolbox
    try:
        from bot.bot_settings import BotSettings
    except ImportError:  # a ref from before the module's name said whose settings
        from bot.settings import BotSettings  # type: ignore[no-redef]
    from bot.runs.active import Active
    from bot.runs.execute import Question, Runs
    from bot.runs.listeners import Listeners
    from bot.runs.metrics import Metrics
    from bot.store.transcripts import Store
    from bot.view.render import render_view
    from bot.view.transcript import View

    os.environ.update(
        OPENAI_BASE_URL=model_url, LLM_MAX_RETRIES="0", AGENT_TOOLS="get_weather",
        OPEN_METEO_GEOCODING_URL=geocoding_url, OPEN_METEO_FORECAST_URL=forecast_url)
    settings = BotSettings(_env_file=None)  # type: ignore[call-arg]
    store = await Store.open(Path(workdir) / "bench.sqlite3")
    toolbox = await Toolbox.open(settings)
    # A ref from before named models hands `Runs` one client, not them all.
    named = "models" in inspect.signature(Runs).parameters
    if named:
        from agent.model.model_clients import ModelClients
        client = ModelClients(settings)
    else:
        client = ModelClient(settings)
    # A ref from before the run service left the front end out of `Runs` takes its outbox
    # and typing (unused by `fold`), a `reply_to` and `lang` (now `run_lang`): the same
    # fold is measured in both.
    before = "outbox" in inspect.signature(Runs).parameters
    runs = Runs(settings, client, toolbox.tools, store,  # type: ignore[call-arg]
                *((None, None) if before else ()), listeners=Listeners(Metrics()))
    steps = [0]

    # A ref from before conversations had kinds asks in a chat id; this one in a Telegram
    # chat (the same store rows, with their kind).
    keyed = "conversation" in inspect.signature(Question).parameters

    async def one(n: int) -> None:
        chat: Any = 1000 + n
        if keyed:
            from bot.store.records import telegram_chat
            chat = telegram_chat(chat)
        q = Question(mode="ask", text=f"Question {n}?", user_id=n, user_name=f"S{n}",
                     **({"conversation": chat} if keyed else {"chat_id": chat}),
                     **({"reply_to": 1, "lang": "en"} if before else {"run_lang": "en"}))
        active = Active(n, chat, q.user_id, "en")
        view = View("ask", "en")
        record = await store.start_run(chat_id=1000 + n, user_id=q.user_id,
                                       user_name=q.user_name, mode="ask", question=q.text,
                                       model=settings.llm_model)

        def on_step(*_: object) -> None:
            steps[0] += 1

        await runs.fold(q, active, record, view, on_step)
        render_view(view, live=True)

    try:  # a failure still stops the database's thread (the process would hang at exit)
        await one(0)  # connections, SSL contexts, caches: not an answer's cost
        best: dict[str, float] = {}
        for _ in range(int(rounds)):
            steps[0] = 0
            started, began, looped = time.process_time(), time.monotonic(), time.thread_time()
            await asyncio.gather(*(one(n) for n in range(1, int(at_once) + 1)))
            cpu_ms = (time.process_time() - started) * 1000 / int(at_once)
            loop_ms = (time.thread_time() - looped) * 1000 / int(at_once)
            if cpu_ms < best.get("cpu_ms", float("inf")):
                best = {"cpu_ms": cpu_ms, "loop_ms": loop_ms, "steps": steps[0] / int(at_once),
                        "wall_s": time.monotonic() - began}
    finally:
        await client.close()
        await toolbox.aclose()
        await store.close()
    return best


def measure(code: Path, size: tuple[int, int], model: FakeModel,
            meteo: FakeOpenMeteo) -> dict[str, Any]:
    from bench.cpu_process import in_process

    return in_process(Path(__file__), code, *map(str, size), model.base_url,
                      meteo.geocoding_url, meteo.forecast_url)


def main(argv: list[str]) -> int:
    from bench.cpu_process import options, side_by_side
    from bench.stage import script
    from testkit.fakes.model import FakeModel, Pace
    from testkit.fakes.upstreams import FakeOpenMeteo

    args = options("--answer-cpu", __doc__).parse_args(argv)
    size, times = (QUICK, 1) if args.quick else ((RUNS, ROUNDS), args.times)
    pace = Pace(first_token_s=FIRST_TOKEN_S, tokens_per_s=TOKENS_PER_S)
    with FakeModel(default=script, pace=pace) as model, FakeOpenMeteo(latency=0.02) as meteo:
        got = side_by_side(args.against, times, "answer_cpu",
                           lambda code: measure(code, size, model, meteo))
    print("| Code | CPU per 3-round answer (agent, fold, store, render): median (least–most) | "
          "of which the event loop's thread (the rest: SQLite's) | processes × answers | "
          "render requests per answer |")
    print("|---|---|---|---|---|")
    for label, results in got.got.items():
        print(f"| {label} | {got.spread(label, 'cpu_ms')} | {got.spread(label, 'loop_ms')} | "
              f"{len(results)} × {size[0]} | {results[0]['steps']:.0f} |")
    print(f"\n{got.verdict('cpu_ms')}")
    print(f"\n{got.verdict('loop_ms', 'The event loop thread alone, ')}")
    return 0


if __name__ == "__main__":  # the measured process (bench/cpu_process.py): `--client ARGS…`
    import uvloop

    print(json.dumps(uvloop.run(_client(*sys.argv[2:]))))
