"""Rendering: one edit of a six-round chain, events to Telegram HTML (fold + render)."""

from __future__ import annotations

import time

from agent.events import (
    Action,
    Answer,
    Event,
    Observation,
    RunFinished,
    RunStarted,
    Thought,
    Usage,
)
from bench.bench_figures import Figure, median
from bot.view.render import render_run
from bot.view.transcript import Transcript

ROUNDS = 6


def chain() -> list[Event]:
    """A six-round run: five rounds with a tool, the sixth answers, in Markdown."""
    events: list[Event] = [RunStarted(round=0, mode="react", model="qwen-plus",
                                      question="Plan a weekend trip from Hangzhou to Shanghai",
                                      tools=("get_weather", "convert_currency"))]
    for rnd in range(1, ROUNDS):
        call = f"call_{rnd}"
        events += [
            Thought(round=rnd, text=f"Step {rnd}: I need the **weather** and the prices, "
                                    "so I look them up before I answer. " * 2),
            Action(round=rnd, call_id=call, tool="get_weather",
                   arguments={"city": "Shanghai", "day": rnd}),
            Observation(round=rnd, call_id=call, tool="get_weather", ok=True, duration_ms=200,
                        text="Shanghai: 21 °C, cloudy, rain 10 % <b>not a tag</b> & more. " * 6),
        ]
    answer = ("## Plan\n\n- **Saturday**: train at 8:00, *West Lake* in the morning\n"
              "- **Sunday**: the Bund, `¥ 300` budget\n\n" + "Enjoy the trip. " * 20)
    return [*events, Thought(round=ROUNDS, text="I have what I need."),
            Answer(round=ROUNDS, text=answer),
            RunFinished(round=ROUNDS, status="done", usage=Usage(3000, 500, 3500),
                        duration_ms=9400, rounds=ROUNDS, tool_calls=ROUNDS - 1)]


def render_figures(repeats: int) -> list[Figure]:
    events = chain()
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        render_run(Transcript.from_events(events), "en", live=True)
        times.append((time.perf_counter() - started) * 1e6)
    pages = render_run(Transcript.from_events(events), "en", live=True)
    size = sum(len(page) for page in pages)
    return [Figure(f"Render: one edit of a {ROUNDS}-round chain, events → HTML "
                   f"({len(events)} events, {len(pages)} page(s), {size:,} chars), median",
                   f"{median(times):,.0f} µs")]
