"""The store with 100,000 runs: a /history page and a keyword search (median of several),
and how many steps a second `append` writes.

The runs go in by executemany into the schema the migrations made (Store.open), so the
search index's triggers fill it as the bot's own writes would."""

from __future__ import annotations

import random
import sqlite3
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from agent.events import Action, Event, Observation, Thought
from bench.bench_figures import Figure, median
from bot.store.records import Scope
from bot.store.transcripts import Store

CHATS = 20
"""The runs are spread over this many chats (a school's class groups)."""
QUERY_TARGET_MS = 50.0
REPEATS = 25
APPENDS = 2_000
TOPICS = [
    ("weather", "What is the weather in {city} this weekend?", "It will be mild in {city}."),
    ("currency", "How many yuan is 100 euros in {city}?", "About 780 yuan at today's rate."),
    ("history", "Who founded the first university in {city}?", "A scholar founded it long ago."),
    ("math", "What is the square root of {n}?", "It is about {root:.2f}."),
    ("time", "What time is it now in {city}?", "It is morning in {city}."),
    ("天气", "{city}明天的天气怎么样？", "{city}明天晴，气温适中。"),
    ("notes", "What does the course say about ReAct, part {n}?", "ReAct interleaves thoughts."),
    ("wiki", "Summarise the Wikipedia article on {city}.", "{city} is a large city."),
]
CITIES = ["Hangzhou", "Beijing", "Shanghai", "Paris", "Berlin", "Tokyo", "Nairobi", "Lima"]


def _rows(count: int) -> list[tuple[object, ...]]:
    rng = random.Random(11)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    rows = []
    for i in range(count):
        chat = -1001000000000 - i % CHATS
        _, question, answer = TOPICS[rng.randrange(len(TOPICS))]
        values = {"city": rng.choice(CITIES), "n": i, "root": i ** 0.5}
        at = start + timedelta(minutes=i)
        rows.append((chat, i // CHATS + 1, 5000 + rng.randrange(40), "Student", "ask",
                     question.format(**values), "qwen-plus", "done", _iso(at),
                     _iso(at + timedelta(seconds=7)), 7000, 1200, 180, 1380,
                     answer.format(**values)))
    return rows


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds")


def build(path: Path, count: int) -> None:
    """`count` finished runs in the migrated schema, with their chats' counters."""
    db = sqlite3.connect(path)
    with db:
        db.executemany(
            "INSERT INTO runs (conversation_kind, chat_id, n, user_id, user_name, mode, question,"
            " model, status, started_at, ended_at, duration_ms, prompt_tokens,"
            " completion_tokens, total_tokens, answer)"
            " VALUES ('telegram', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            _rows(count))
        db.execute("INSERT INTO chat_counters (conversation_kind, chat_id, last_n)"
                   " SELECT conversation_kind, chat_id, max(n) FROM runs"
                   " GROUP BY conversation_kind, chat_id")
    db.close()


async def _median_ms(store: Store, scope: Scope, keyword: str = "") -> tuple[float, int]:
    times, total = [], 0
    for _ in range(REPEATS):
        started = time.perf_counter()
        page = await store.history(scope, keyword=keyword)
        times.append((time.perf_counter() - started) * 1000)
        total = page.total
    return median(times), total


def _steps(n: int) -> list[Event]:
    """A three-step round's events over and over, as a run stores them."""
    cycle: list[Event] = [
        Thought(round=1, text="I should look up the weather before answering."),
        Action(round=1, call_id="call_1", tool="get_weather", arguments={"city": "Hangzhou"}),
        Observation(round=1, call_id="call_1", tool="get_weather",
                    text="Hangzhou: 18 °C, light rain, wind 12 km/h. " * 4, ok=True,
                    duration_ms=210)]
    return [cycle[i % 3] for i in range(n)]


async def store_figures(path: Path, count: int) -> list[Figure]:
    await (await Store.open(path)).close()  # the schema, through the migrations
    started = time.monotonic()
    build(path, count)
    built = time.monotonic() - started
    store = await Store.open(path)
    try:
        scope = Scope(-1001000000000)
        page_ms, in_chat = await _median_ms(store, scope)
        fts_ms, fts_hits = await _median_ms(store, scope, "weather")
        like_ms, like_hits = await _median_ms(store, scope, "天气")
        run = await store.start_run(chat_id=-1001000000000, user_id=5000, user_name="S",
                                    mode="ask", question="q", model="qwen-plus")
        steps = _steps(APPENDS)
        started = time.perf_counter()
        for event in steps:
            await store.append(run.id, event)
        per_s = len(steps) / (time.perf_counter() - started)
    finally:
        await store.close()
    size = f"{count:,} runs in {CHATS} chats, built in {built:.0f} s"
    return [
        Figure(f"Store ({size}): /history page 1 of a chat ({in_chat:,} runs), median",
               f"{page_ms:.1f} ms", f"< {QUERY_TARGET_MS:.0f} ms", page_ms < QUERY_TARGET_MS),
        Figure(f"Store: keyword search 'weather' (trigram index, {fts_hits:,} hits), median",
               f"{fts_ms:.1f} ms", f"< {QUERY_TARGET_MS:.0f} ms", fts_ms < QUERY_TARGET_MS),
        Figure(f"Store: keyword search '天气' (2 characters: LIKE, {like_hits:,} hits), median",
               f"{like_ms:.1f} ms", f"< {QUERY_TARGET_MS:.0f} ms", like_ms < QUERY_TARGET_MS),
        Figure("Store: steps written per second (`append`, one commit each)",
               f"{per_s:,.0f} /s"),
    ]
