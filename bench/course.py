"""`python -m bench.course [--runs 100000] [--postgres SERVER_URL]`: the course's figures and
pictures for a class with many runs, on SQLite and (with a server) PostgreSQL.

One group's course of `--runs` runs over 120 days (60 lecture days, 60 askers; ask, plain,
compare, quiz and walkthrough runs; one to three tool calls a run, a tenth failing; two voted
rounds a quiz), beside another group's half as many and a private chat's, so the queries
must find the class's runs by index. The runs go in with their course facts as the run
service keeps them (their steps are not needed by the figures and are left out). Then:
the whole course's figures (the teacher's /stats over the period), one student's, the
CSV's lines, and the picture and the page's charts drawn in the drawing process. Prints
one Markdown table: the median of REPEATS of each, and the first picture (the drawing
process starting)."""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from bot.course.drawing import Drawing
from bot.course.period import Period
from bot.course.service import Course
from bot.store.records import Scope
from bot.store.transcripts import Store
from tests.dbkit import create_database, drop_database

GROUP, OTHER_GROUP, PRIVATE = -100_555, -100_777, 4242
FIRST_DAY = date(2026, 9, 1)
DAYS, LECTURES, ASKERS = 120, 60, 60
REPEATS = 5
MODES = ["ask"] * 55 + ["plain"] * 10 + ["compare"] * 15 + ["quiz"] * 10 + ["step"] * 10
ENDS = [("done", "")] * 85 + [("max_rounds", "")] * 4 + [("error", "timeout")] * 3 + [
    ("error", "rate_limit")] * 2 + [("cancelled", "")] * 4 + [("interrupted", "")] * 2
TOOLS = ["calculate", "get_weather", "get_time", "convert_currency", "search_notes",
         "search_wikipedia"]
ZONE = "Asia/Shanghai"
RUN_COLUMNS = ("id", "conversation_kind", "chat_id", "n", "user_id", "user_name", "mode",
               "question", "model", "status", "started_at", "ended_at", "duration_ms",
               "prompt_tokens", "completion_tokens", "total_tokens", "answer", "course_mode",
               "rounds", "error_kind", "differs", "quiz_rounds", "quiz_right")


def course_rows(runs: int, seed: int = 7) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]],
                                                     list[tuple[Any, ...]]]:
    """(runs, tool calls, quiz rounds) rows: the class, another group, a private chat."""
    rnd = random.Random(seed)
    lecture_days = sorted(rnd.sample(range(DAYS), LECTURES))
    out_runs, calls, rounds = [], [], []
    chats = [(GROUP, runs), (OTHER_GROUP, runs // 2), (PRIVATE, 200)]
    run_id = 0
    for chat, count in chats:
        for n in range(1, count + 1):
            run_id += 1
            day = FIRST_DAY + timedelta(days=rnd.choice(lecture_days))
            start = datetime(day.year, day.month, day.day, 1, 0, tzinfo=UTC) + timedelta(
                seconds=rnd.randrange(6 * 3600))
            mode = rnd.choice(MODES)
            status, kind = rnd.choice(ENDS)
            user = 1000 + rnd.randrange(ASKERS) if chat != PRIVATE else PRIVATE
            iso = start.isoformat(timespec="milliseconds")
            stored_mode = mode if mode in ("plain", "compare") else "ask"
            quiz = []
            if mode == "quiz":
                for r in (1, 2):
                    voters = rnd.randrange(5, 40)
                    right = rnd.randrange(voters + 1)
                    quiz.append((run_id, r, chat, user, iso, voters, right,
                                 int(right * 2 > voters)))
            rounds.extend(quiz)
            if mode != "plain":
                for seq in range(rnd.randrange(1, 4)):
                    ok = rnd.random() > 0.1
                    calls.append((run_id, seq, chat, user, iso, rnd.choice(TOOLS), int(ok),
                                  None if ok else "tool_error"))
            tokens = rnd.randrange(500, 6000)
            out_runs.append((
                run_id, "telegram", chat, n, user, f"Student {user}", stored_mode,
                f"question {n} about the weather in Hangzhou and 17% of 2,480", "qwen-plus",
                status, iso, iso, rnd.randrange(2000, 40000), tokens // 2, tokens // 2, tokens,
                "an answer", mode, rnd.randrange(1, 5), kind,
                rnd.randrange(2) if mode == "compare" else None, len(quiz),
                sum(q[-1] for q in quiz)))
    return out_runs, calls, rounds


async def seed(store: Store, runs: int) -> int:
    run_rows, calls, rounds = course_rows(runs)
    marks = ", ".join("?" * len(RUN_COLUMNS))
    tables = [(f"INSERT INTO runs ({', '.join(RUN_COLUMNS)}) VALUES ({marks})", run_rows),
              ("INSERT INTO tool_calls (run_id, seq, conversation_kind, chat_id, user_id,"
               " started_at, tool, ok, failure) VALUES (?, ?, 'telegram', ?, ?, ?, ?, ?, ?)",
               calls),
              ("INSERT INTO quiz_rounds (run_id, round, conversation_kind, chat_id, user_id,"
               " started_at, voters, right_votes, top_right)"
               " VALUES (?, ?, 'telegram', ?, ?, ?, ?, ?, ?)", rounds)]
    for sql, rows in tables:  # in batches: each statement within the store's time limit
        for at in range(0, len(rows), 5000):
            await store.db.executemany(sql, rows[at:at + 5000])
    # As a database that has run a while knows its tables (and, on PostgreSQL, which pages
    # are all visible, so its indexes answer alone): what autovacuum does meanwhile.
    await store.db.execute("VACUUM ANALYZE" if store.path is None else "ANALYZE")
    return len(run_rows)


async def timed(step: Callable[[], Awaitable[Any]]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = await step()
    return (time.perf_counter() - start) * 1000, result


async def median_ms(step: Callable[[], Awaitable[Any]]) -> tuple[float, Any]:
    await step()  # warm: the first reads the pages into the cache
    times, result = [], None
    for _ in range(REPEATS):
        ms, result = await timed(step)
        times.append(ms)
    return statistics.median(times), result


async def measure(where: Path | str, runs: int, backend: str,
                  drawing: Drawing) -> list[tuple[str, str, str]]:
    store = await Store.open(where)
    try:
        started = time.perf_counter()
        total = await seed(store, runs)
        seeded_s = time.perf_counter() - started
        course = Course(store, 1_000_000)
        period = Period(FIRST_DAY, FIRST_DAY + timedelta(days=DAYS - 1), ZONE)
        whole, figures = await median_ms(lambda: course.figures(Scope(GROUP), period))
        assert figures.runs == runs, figures.runs
        student, _ = await median_ms(lambda: course.figures(Scope(GROUP, 1007), period))
        lines_ms, lines = await median_ms(lambda: course.lines(Scope(GROUP), period))
        png_ms, png = await median_ms(lambda: drawing.picture(figures, "zh"))
        svg_ms, _ = await median_ms(lambda: drawing.svgs(figures, "zh"))
    finally:
        await store.close()
    print(f"{backend}: {total:,} runs seeded in {seeded_s:.1f} s", file=sys.stderr)
    return [
        (backend, f"the class's figures ({runs:,} runs, {len(figures.days)} lectures)",
         f"{whole:.0f} ms"),
        (backend, "one student's figures", f"{student:.0f} ms"),
        (backend, f"the CSV's lines ({len(lines):,})", f"{lines_ms:.0f} ms"),
        (backend, f"the picture (PNG, {len(png) // 1024} KiB, zh)", f"{png_ms:.0f} ms"),
        (backend, "the page's six charts (SVG, zh)", f"{svg_ms:.0f} ms"),
    ]


async def main(runs: int, postgres: str) -> None:
    print(f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f} at the start; median of"
          f" {REPEATS} after one warm-up\n\n| Store | What | Time |\n|---|---|---:|", flush=True)
    drawing = Drawing()
    try:
        first_ms, _ = await timed(drawing.font)
        rows = [("—", "the drawing process's first answer (it starts, imports matplotlib)",
                 f"{first_ms:.0f} ms")]
        with tempfile.TemporaryDirectory() as tmp:
            rows += await measure(Path(tmp) / "course.sqlite3", runs, "SQLite", drawing)
        _print(rows)
        if postgres:
            url = await create_database(postgres)
            try:
                _print(await measure(url, runs, "PostgreSQL", drawing))
            finally:
                await drop_database(url)
    finally:
        await drawing.close()
    print(f"\nload {os.getloadavg()[0]:.1f} at the end")


def _print(rows: list[tuple[str, str, str]]) -> None:
    for row in rows:
        print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--postgres", default=os.environ.get("GLASSBOX_TEST_PG_URL", ""),
                        help="a PostgreSQL server the bench may make a database on")
    args = parser.parse_args()
    asyncio.run(main(args.runs, args.postgres))
