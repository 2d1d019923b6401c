"""`python -m bench --course [--runs 100000] [--postgres SERVER_URL]`: the course's figures and
pictures for a class with many runs, on SQLite and (with a server) PostgreSQL.

One group's course of `--runs` runs over 120 days (60 lecture days, 60 askers; ask, plain,
compare, quiz and walkthrough runs; one to three tool calls a run, a tenth failing; two voted
rounds a quiz), beside another group's half as many and a private chat's, so the queries
must find the class's runs by index. The runs go in with their course facts as the run
service keeps them (their steps are not needed by the figures and are left out). Then:
the whole course's figures (the teacher's /stats over the period), one student's, the
CSV's lines, and the picture and the page's charts drawn in the drawing process. Prints
one Markdown table: the median of REPEATS of each, wall and CPU time (the pictures' CPU
time drawn in this process, as the drawing process draws them), beside the load average
as each was measured; and the drawing process's first answer (it starting)."""

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
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from bot.course import chart
from bot.course.drawing import Drawing
from bot.course.period import Period
from bot.course.service import Course
from bot.store.records import Scope
from bot.store.transcripts import Store
from testkit.dbkit import create_database, drop_database

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


@dataclass(frozen=True, slots=True)
class Timing:
    wall_ms: float
    cpu_ms: float | None
    """CPU time spent on it: this process's (its SQLite thread's included) and, with a
    PostgreSQL server on this machine, the server's processes'. A shared machine's load
    stretches the wall time by the time others' processes are given the cores; the CPU
    time much less."""
    load: float
    """The 1-minute load average as it was measured."""

    def wall_ms_cell(self) -> str:
        return f"{self.wall_ms:,.0f} ms"

    def cells(self) -> tuple[str, str, str]:
        cpu = "—" if self.cpu_ms is None else f"{self.cpu_ms:,.0f} ms"
        return f"{self.wall_ms:,.0f} ms", cpu, f"{self.load:.1f}"


class CpuClock:
    """CPU seconds used so far by this process and, where it runs on this machine, the
    PostgreSQL server's processes (the postmaster's children, read from /proc)."""

    def __init__(self, postmaster: int | None = None) -> None:
        self.postmaster = postmaster

    @classmethod
    async def of(cls, store: Store) -> CpuClock:
        if store.path is not None:
            return cls()
        [row] = await store.db.fetch("SHOW data_directory")
        try:
            first = (Path(row[0]) / "postmaster.pid").read_text().split("\n", 1)[0]
        except OSError:  # a server elsewhere: its CPU is not ours to read
            return cls(-1)
        return cls(int(first))

    def seconds(self) -> float | None:
        if self.postmaster == -1:
            return None
        used = time.process_time()
        if self.postmaster is not None:
            ticks = os.sysconf("SC_CLK_TCK")
            for stat in Path("/proc").glob("[0-9]*/stat"):
                try:
                    fields = stat.read_text().rsplit(")", 1)[1].split()
                except OSError:  # ended meanwhile
                    continue
                if int(fields[1]) == self.postmaster:
                    used += (int(fields[11]) + int(fields[12])) / ticks
        return used


async def timed(step: Callable[[], Awaitable[Any]], clock: CpuClock) -> tuple[Timing, Any]:
    cpu = clock.seconds()
    start = time.perf_counter()
    result = await step()
    wall = (time.perf_counter() - start) * 1000
    after = clock.seconds()
    used = None if cpu is None or after is None else (after - cpu) * 1000
    return Timing(wall, used, os.getloadavg()[0]), result


async def median(step: Callable[[], Awaitable[Any]], clock: CpuClock) -> tuple[Timing, Any]:
    """The median of REPEATS after one warm-up (the first reads the pages into the cache):
    wall and CPU time each, and the load at the middle repetition."""
    await step()
    timings, result = [], None
    for _ in range(REPEATS):
        timing, result = await timed(step, clock)
        timings.append(timing)
    cpus = [t.cpu_ms for t in timings if t.cpu_ms is not None]
    return Timing(statistics.median(t.wall_ms for t in timings),
                  statistics.median(cpus) if cpus else None,
                  timings[REPEATS // 2].load), result


async def drawn_here(draw: Callable[[], object]) -> object:
    """`draw` in this process, for its CPU time (the drawing process runs the same code)."""
    return draw()


async def measure(where: Path | str, runs: int, backend: str,
                  drawing: Drawing) -> list[tuple[str, ...]]:
    store = await Store.open(where)
    try:
        started = time.perf_counter()
        total = await seed(store, runs)
        seeded_s = time.perf_counter() - started
        clock, here = await CpuClock.of(store), CpuClock()
        course = Course(store, 1_000_000)
        period = Period(FIRST_DAY, FIRST_DAY + timedelta(days=DAYS - 1), ZONE)
        whole, figures = await median(lambda: course.figures(Scope(GROUP), period), clock)
        assert figures.runs == runs, figures.runs
        student, _ = await median(lambda: course.figures(Scope(GROUP, 1007), period), clock)
        lines_t, lines = await median(lambda: course.lines(Scope(GROUP), period), clock)
        png_t, png = await median(lambda: drawing.picture(figures, "zh"), here)
        png_cpu, _ = await median(lambda: drawn_here(lambda: chart.picture(figures, "zh")),
                                  here)
        svg_t, _ = await median(lambda: drawing.svgs(figures, "zh"), here)
        svg_cpu, _ = await median(lambda: drawn_here(lambda: chart.svgs(figures, "zh")), here)
    finally:
        await store.close()
    print(f"{backend}: {total:,} runs seeded in {seeded_s:.1f} s", file=sys.stderr)
    return [
        (backend, f"the class's figures ({runs:,} runs, {len(figures.days)} lectures)",
         *whole.cells()),
        (backend, "one student's figures", *student.cells()),
        (backend, f"the CSV's lines ({len(lines):,})", *lines_t.cells()),
        (backend, f"the picture (PNG, {len(png) // 1024} KiB, zh)",
         png_t.wall_ms_cell(), png_cpu.cells()[1], png_t.cells()[2]),
        (backend, "the page's six charts (SVG, zh)", svg_t.wall_ms_cell(), svg_cpu.cells()[1],
         svg_t.cells()[2]),
    ]


async def course_figures(runs: int, postgres: str) -> None:
    print(f"{os.cpu_count()} cores; median of {REPEATS} after one warm-up; the load is the"
          " 1-minute load average at the middle repetition\n\n| Store | What | Time | CPU time"
          " | Load |\n|---|---|---:|---:|---:|", flush=True)
    drawing = Drawing()
    try:
        first, _ = await timed(drawing.font, CpuClock())
        rows = [("—", "the drawing process's first answer (it starts, imports matplotlib)",
                 first.wall_ms_cell(), "—", first.cells()[2])]
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


def _print(rows: list[tuple[str, ...]]) -> None:
    for row in rows:
        print("| " + " | ".join(row) + " |", flush=True)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench --course",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--postgres", default=os.environ.get("GLASSBOX_TEST_PG_URL", ""),
                        help="a PostgreSQL server the bench may make a database on")
    args = parser.parse_args(argv)
    asyncio.run(course_figures(args.runs, args.postgres))
    return 0
