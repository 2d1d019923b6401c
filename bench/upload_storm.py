"""One /notes upload while a class asks, against the real `python -m bot` (fake Telegram and
model): how long the upload held the database's write lock at a stretch, the bot's CPU
(and its children's: the reading process), the questions answered and dropped, and
/healthz's latency meanwhile. `--against REF` measures REF's code first, then this
checkout's, side by side in one run (the machine's load is shared).

    python -m bench --upload-storm --against main [--file pdf|txt]

`pdf`: 12 pages sharing one Flate stream of 1 MB of text operators (the red team's had
10 MB: minutes of reading per run here); `txt`: a 19.6 MB text file.

The lock is seen from outside: a connection of this process tries `BEGIN IMMEDIATE` every
10 ms without waiting, and the longest run of refusals is the longest hold."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sqlite3
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench.scale import checkout
from bench.stage import ROOT
from testkit.bot_http import bot_client
from testkit.bot_process import bot_process, free_port
from testkit.botkit import ADMIN, ALICE, BOB, people
from testkit.class_asking import ANSWERED, CAROL, Class
from testkit.fakes.model import FakeModel, text_reply
from testkit.fakes.telegram import FakeTelegram
from testkit.pdfkit import make_shared_stream_pdf

LIMIT_S = 300.0
"""The longest an upload is waited for."""
ANSWER_S = 30.0
"""A question not answered within this long is counted as dropped."""


def the_file(kind: str) -> tuple[str, bytes]:
    if kind == "pdf":
        return "hostile.pdf", make_shared_stream_pdf(12, 1_000_000)
    line = "The ReAct loop interleaves a thought, an action and an observation. "
    return "huge.txt", ("# Week 1\n\n" + "\n".join(line * 8 for _ in range(36_000))).encode()


@dataclass
class Figures:
    upload_s: float
    reply: str
    lock_max_s: float
    cpu_bot_s: float
    cpu_children_s: float
    asked: int
    answered: int
    stored: int
    healthz_max_s: float
    healthz_failed: int


class LockProbe(threading.Thread):
    """The longest stretch the database's write lock was held by someone else."""

    def __init__(self, db: Path) -> None:
        super().__init__(daemon=True)
        self.db, self.longest, self._done = db, 0.0, threading.Event()

    def run(self) -> None:
        con = sqlite3.connect(self.db, isolation_level=None, timeout=0)
        since: float | None = None
        while not self._done.is_set():
            now = time.monotonic()
            try:
                con.execute("BEGIN IMMEDIATE")
                con.execute("COMMIT")
                since = None
            except sqlite3.OperationalError:
                since = now if since is None else since
                self.longest = max(self.longest, now - since)
            time.sleep(0.01)
        con.close()

    def stop(self) -> float:
        self._done.set()
        self.join()
        return self.longest


def cpu_s(pid: int) -> tuple[float, float]:
    """(the process's own CPU seconds, its waited-for children's)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / tick, (int(fields[13]) + int(fields[14])) / tick


async def healthz(port: int, done: asyncio.Event) -> tuple[float, int]:
    """(the slowest /healthz answer, how many failed or took over 5 s) until `done`."""
    slowest, failed = 0.0, 0
    async with bot_client(f"http://127.0.0.1:{port}", timeout_s=5) as client:
        while not done.is_set():
            started = time.monotonic()
            try:
                ok = (await client.get("/healthz")).status_code == 200
            except httpx.HTTPError:
                ok = False
            slowest = max(slowest, time.monotonic() - started)
            failed += not ok
            await asyncio.sleep(0.2)
    return slowest, failed


async def scenario(code: Path, kind: str) -> Figures:
    name, content = the_file(kind)
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="glassbox-upload-") as tmp, \
            FakeTelegram() as tg, \
            FakeModel(default=lambda body: text_reply(ANSWERED)) as model:
        work = Path(tmp)
        people(tg)
        tg.user(CAROL, "Carol", "en")
        with bot_process(tg, model, work, code=code, AGENT_TOOLS="calculate,search_notes",
                         NOTES_DIR=str(work / "notes"), USER_RATE_LIMIT="off",
                         HTTP_LISTEN=f"127.0.0.1:{port}") as running:
            proc = running.proc
            await tg.wait(lambda: tg.polls > 0, timeout=60)
            klass = Class(tg, (BOB, CAROL, ADMIN), answer_s=ANSWER_S)
            await klass.ask_while(lambda: False)
            warm = len(klass.asked)
            probe = LockProbe(work / "g.sqlite3")
            probe.start()
            cpu_before = cpu_s(proc.pid)
            done = asyncio.Event()
            health = asyncio.create_task(healthz(port, done))
            started = time.monotonic()
            sent = tg.send_document(ALICE, ALICE, name, content, caption="/notes")

            def replied() -> bool:
                return any(m.reply_to == sent for m in tg.bot_messages(ALICE))

            await klass.ask_while(lambda: not replied()
                                  and time.monotonic() - started < LIMIT_S)
            upload_s = time.monotonic() - started
            done.set()
            healthz_max, healthz_failed = await health
            lock_max = probe.stop()
            cpu_after = cpu_s(proc.pid)
            reply = next((m.text for m in tg.bot_messages(ALICE) if m.reply_to == sent),
                         "(none)")
            proc.terminate()
            proc.wait(30)
        with contextlib.closing(sqlite3.connect(work / "g.sqlite3")) as con:
            runs = con.execute("SELECT count(*) FROM runs WHERE status = 'done'").fetchone()[0]
    asked = klass.asked[warm:]
    return Figures(upload_s, reply, lock_max, cpu_after[0] - cpu_before[0],
                   cpu_after[1] - cpu_before[1], len(asked),
                   sum(q.answered_after is not None for q in asked), runs - warm,
                   healthz_max, healthz_failed)


def row(label: str, f: Figures) -> str:
    return (f"| {label} | {f.upload_s:.1f} s | {f.lock_max_s:.2f} s | {f.cpu_bot_s:.1f} s"
            f" + {f.cpu_children_s:.1f} s | {f.answered} / {f.asked} ({f.stored} stored)"
            f" | {f.healthz_max_s:.2f} s ({f.healthz_failed} failed) |")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench --upload-storm",
                                     description=__doc__)
    parser.add_argument("--against", metavar="REF", help="measure this git ref's code first")
    parser.add_argument("--file", choices=("pdf", "txt"), action="append",
                        help="the upload (repeatable; default both)")
    args = parser.parse_args(argv)
    lines = ["| code, file | upload → reply | lock held at most | CPU: bot + reader |"
             " questions answered (stored) | /healthz slowest |",
             "|---|---|---|---|---|---|"]
    replies = []
    with contextlib.ExitStack() as stack:
        codes = {"this": ROOT}
        if args.against:
            codes = {args.against: stack.enter_context(checkout(args.against)), **codes}
        for kind in args.file or ["pdf", "txt"]:
            for label, code in codes.items():
                print(f"{kind}: {label} …", file=sys.stderr)
                figures = asyncio.run(scenario(code, kind))
                lines.append(row(f"{label}, {kind}", figures))
                replies.append(f"- {label}, {kind}: {figures.reply}")
    print("\n".join([*lines, "", "Replies to the upload:", *replies]))
    return 0
