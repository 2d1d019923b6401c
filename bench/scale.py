"""`python -m bench --scale [--quick] [--against REF] [--postgres SERVER_URL]`: a whole school on
one process.

N distinct chats (80 % private, 20 % groups of their own; or a class: everyone in one
group) each ask one 3-round question within a window; the real `python -m bot` answers
against the bench fakes (Telegram's limits enforced, the model 0.5–1 s to its first token
then 40 tokens a second, 0.2 s a tool call). Each level starts a fresh bot. With
`--against REF` the same level runs first with REF's code (checked out in a temporary git
worktree), then with this checkout's, so before and after share the machine's load of the
moment. Prints one Markdown table (progress on stderr)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bench.bench_figures import percentile
from bench.live import GROUP_BASE, USER_BASE, Asked, ask, delivered, shown_at
from bench.stage import ROOT, Stage, bot_replies, final_pages, question_of, rss_kib, stage
from testkit.dbkit import create_database, drop_database
from testkit.fakes.telegram import (
    GLOBAL_MAX,
    GROUP_MAX,
    GROUP_WINDOW_S,
    LIMITED,
    PER_CHAT_BURST,
    PER_CHAT_S,
    Message,
)

PROBE = ROOT / "bench" / "loop_probe.py"
CLOCK_TICK = os.sysconf("SC_CLK_TCK")
FLOOR_TARGET = 1.3
"""All final within this many times Telegram's floor (counted calls ÷ 30 a second; for a
class in one group, the group's limits: see `group_floor_s`)."""


@dataclass(frozen=True)
class Level:
    name: str
    chats: int
    window_s: float
    class_of: bool = False
    """Everyone in one group (a class asking at once) instead of chats of their own."""

    @property
    def give_up_s(self) -> float:
        """How long after the first question a level may take before it counts as stalled."""
        return self.window_s + 150 + self.chats * 0.15


LADDER = (Level("50 chats in 10 s", 50, 10), Level("200 chats in 10 s", 200, 10),
          Level("1,000 chats in 10 s", 1000, 10), Level("class of 40 in one group", 40, 10,
                                                           class_of=True),
          Level("10 a second for 5 min", 3000, 300))
QUICK = (Level("50 chats in 10 s", 50, 10), Level("200 chats in 10 s", 200, 10),
         Level("10 a second for 30 s", 300, 30))


@dataclass(frozen=True)
class Result:
    level: Level
    code: str
    delivered: int
    too_many: int
    lags: list[float]
    """Each delivered answer: the model's last token → the final state on screen (s)."""
    cpu_s: float
    rss_per_run_kib: float | None
    calls: int
    counted: int
    """Calls Telegram counts against its 30 a second (messages sent or edited, accepted)."""
    loop_lag_p95_s: float | None
    took_s: float
    """First question → last final on screen (or giving up)."""
    floor_s: float
    """The soonest Telegram's limits let the counted calls all land (from the first
    question)."""

    def row(self) -> str:
        n = self.level.chats
        done = max(self.delivered, 1)
        ends = (f"{percentile(self.lags, 50):.2f} / {percentile(self.lags, 95):.2f} s"
                if self.lags else "–")
        floor = self.floor_s
        ratio = f"{self.took_s:.0f} s ({self.took_s / floor:.2f} × floor {floor:.0f} s)" \
            if self.delivered == n and floor else f"gave up at {self.took_s:.0f} s"
        rss = "n/a" if self.rss_per_run_kib is None else f"{self.rss_per_run_kib:.0f} KiB"
        lag = "n/a" if self.loop_lag_p95_s is None else f"{self.loop_lag_p95_s * 1000:.0f} ms"
        return (f"| {self.level.name} | {self.code} | {self.delivered} / {n} | "
                f"{self.too_many} | {ends} | {self.cpu_s * 1000 / done:.0f} ms | {rss} | "
                f"{self.calls / done:.1f} | {lag} | {ratio} |")


HEADER = ("| Level | Code | Delivered | 429s | End → final p50 / p95 | Bot CPU per answer | "
          "RSS per live run | Telegram calls per answer | Event-loop lag p95 | "
          "All final after |\n|---|---|---|---|---|---|---|---|---|---|")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICK


def finals(st: Stage, asked: list[Asked]) -> dict[int, list[Message]]:
    """The asks (by index) whose answer is final on screen (`final_pages`)."""
    replies = bot_replies(st.tg)
    return {n: pages for n, a in enumerate(asked)
            if (pages := final_pages(replies, a.chat_id, a.message_id)) is not None}


def plan(st: Stage, level: Level) -> list[tuple[int, int]]:
    """(chat, user) per question: 80 % private chats and 20 % groups of their own, or one
    class group."""
    if level.class_of:
        group = st.tg.group(GROUP_BASE, "Class 3A")
        return [(group, st.tg.user(USER_BASE + n, f"S{n}")) for n in range(level.chats)]
    out = []
    for n in range(level.chats):
        user = st.tg.user(USER_BASE + n, f"S{n}")
        out.append((st.tg.group(GROUP_BASE - n, f"Group {n}"), user) if n % 5 == 4
                   else (user, user))
    return out


def run_level(st: Stage, level: Level, code: str, lag_file: Path) -> Result:
    rng = random.Random(11)
    who = plan(st, level)
    offsets = sorted(rng.uniform(0, level.window_s) for _ in who)
    pid = st.bot.pid
    base_rss = rss_kib(pid) or 0
    cpu0, calls0, too_many0 = cpu_seconds(pid), len(st.tg.calls), st.tg.too_many
    start = time.monotonic()
    asked: list[Asked] = []
    done: dict[int, list[Message]] = {}
    last = start
    for n, ((chat, user), offset) in enumerate(zip(who, offsets, strict=True)):
        time.sleep(max(0.0, start + offset - time.monotonic()))
        asked.append(ask(st, chat, user, f"Question {n} from chat {chat}?"))
    while len(done) < len(asked) and time.monotonic() - start < level.give_up_s \
            and st.bot.poll() is None:
        time.sleep(0.5)
        done = finals(st, asked)
        if time.monotonic() - last >= 15:
            last = time.monotonic()
            print(f"  {code}: {len(done)}/{len(asked)} final, {last - start:.0f} s",
                  file=sys.stderr)
    cpu = cpu_seconds(pid) - cpu0 if st.bot.poll() is None else float("nan")
    peak = rss_kib(pid, "VmHWM")
    served = {question_of(s.body): s for s in st.model.served}  # the last reply: the answer
    ok = {n: pages for n, pages in done.items() if delivered(asked[n], pages)}
    took = (max(shown_at(p) for p in ok.values()) if len(ok) == len(asked) and ok
            else time.monotonic()) - start
    lags = [shown_at(pages) - served[asked[n].question].ended for n, pages in ok.items()]
    with st.tg.lock:
        calls = st.tg.calls[calls0:]
    counted = sum(c.method in LIMITED and c.ok for c in calls)
    first_ready = min((served[a.question].ended for a in asked if a.question in served),
                      default=start) - start
    floor = group_floor_s(first_ready, counted) if level.class_of else counted / GLOBAL_MAX
    return Result(level, code, len(ok), st.tg.too_many - too_many0, lags, cpu,
                  None if peak is None else (peak - base_rss) / level.chats, len(calls),
                  counted, _lag_p95(lag_file, start), took, floor)


def group_floor_s(first_ready_s: float, messages: int) -> float:
    """When the last of `messages` to one group can land at the soonest under the fake
    Telegram's limits (one a second with a burst of PER_CHAT_BURST, GROUP_MAX in any
    GROUP_WINDOW_S), none before `first_ready_s` (the first answer's end)."""
    sent: list[float] = []
    full_at = first_ready_s  # the chat's token bucket (GCRA), as the fake keeps it
    for _ in range(messages):
        at = max(first_ready_s, full_at - (PER_CHAT_BURST - 1) * PER_CHAT_S)
        if len(sent) >= GROUP_MAX:
            at = max(at, sent[-GROUP_MAX] + GROUP_WINDOW_S)
        sent.append(at)
        full_at = max(full_at, at) + PER_CHAT_S
    return sent[-1] if sent else first_ready_s


def _lag_p95(lag_file: Path, since: float) -> float | None:
    try:
        lines = lag_file.read_text().split()
    except OSError:
        return None
    lags = [float(lag) for at, lag in zip(lines[::2], lines[1::2], strict=True)
            if float(at) >= since]
    return percentile(lags, 95) if lags else None


@contextlib.contextmanager
def checkout(ref: str) -> Iterator[Path]:
    """`ref` of this repository in a temporary worktree (removed after)."""
    with tempfile.TemporaryDirectory(prefix="glassbox-ref-") as tmp:
        path = Path(tmp) / "code"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(path),
                        ref], check=True)
        try:
            yield path
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                            str(path)], check=False)


@contextlib.contextmanager
def on_postgres(server: str) -> Iterator[str]:
    """DATABASE_URL set to a new database on `server` (dropped after), for the bots started
    meanwhile."""
    url = asyncio.run(create_database(server))
    os.environ["DATABASE_URL"] = url
    try:
        yield url
    finally:
        del os.environ["DATABASE_URL"]
        asyncio.run(drop_database(url))


def measure(level: Level, code: Path, label: str) -> Result:
    with tempfile.TemporaryDirectory(prefix="glassbox-scale-") as tmp:
        work = Path(tmp)
        lag_file = work / "lag.txt"
        os.environ["BENCH_LAG_FILE"] = str(lag_file)
        command = [sys.executable, "-c", PROBE.read_text()]
        print(f"{level.name}: {label} …", file=sys.stderr)
        with stage(work, 1.0, code=code, command=command) as st:
            return run_level(st, level, label, lag_file)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench --scale", description=__doc__)
    parser.add_argument("--quick", action="store_true",
                        help="50 and 200 chats, and 10 a second for 30 s only")
    parser.add_argument("--against", metavar="REF",
                        help="also measure this git ref's code, level by level, first")
    parser.add_argument("--levels", type=int, nargs="+", metavar="N",
                        help="run only these levels of the ladder (1-based)")
    parser.add_argument("--postgres", metavar="SERVER_URL",
                        help="also run each level with the store on PostgreSQL (a new "
                             "database on this server, dropped after), beside SQLite")
    args = parser.parse_args(argv)
    ladder = QUICK if args.quick else LADDER
    chosen = [ladder[n - 1] for n in args.levels] if args.levels else list(ladder)
    rows = []
    with contextlib.ExitStack() as stack:
        before = stack.enter_context(checkout(args.against)) if args.against else None
        for level in chosen:
            if before is not None:
                rows.append(measure(level, before, args.against).row())
            rows.append(measure(level, ROOT, "this").row())
            if args.postgres:
                with on_postgres(args.postgres):
                    rows.append(measure(level, ROOT, "this, PostgreSQL").row())
    print(HEADER)
    print("\n".join(rows))
    return 0
