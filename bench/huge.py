"""Huge runs: /show and /export of a stored run of 10,000 steps, through the real bot (fake
Telegram and model, in this process), and the event loop's longest stall while each is built.
And huge hostile text: one live render (on the event loop, at every edit) of a run whose
thought, observation and answer are each 200,000 characters of tests/faults/
test_hostile_text.py's text, and of four times that: linear, it takes four times as long.

"On the loop" does what the handlers did before they moved the work to a thread: parse the
stored steps, fold them and draw every page (or the whole file) on the event loop; it uses
today's linear fold, so the old figure (a fold quadratic in a round's calls) was worse still.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

from bench.bench_figures import Figure
from bot.store.records import Scope
from bot.store.transcripts import lanes_of
from bot.view.export import export_html
from bot.view.history_view import SHOW_PAGES
from bot.view.render import render_view
from bot.view.transcript import replay
from testkit.botkit import ALICE, BOB, GROUP, SCALE, Glassbox, people, running
from testkit.dbkit import query
from testkit.fakes.model import FakeModel
from testkit.fakes.telegram import FakeTelegram
from testkit.hostile_text import hostile, render_live
from testkit.huge_run import CALLS, ROUNDS, longest_stall, store_huge_run

STALL_TARGET_MS = 50.0
HOSTILE_CHARS = 200_000
HOSTILE_TARGET_S = 1.0


def huge_figures(quick: bool) -> list[Figure]:
    rounds = 1 if quick else ROUNDS
    with tempfile.TemporaryDirectory(prefix="glassbox-huge-") as tmp, \
            FakeTelegram(scale=SCALE) as tg, FakeModel() as model:
        people(tg)
        figures = asyncio.run(_measure(tg, model, Path(tmp) / "huge.sqlite3", rounds))
    return figures + hostile_figures(HOSTILE_CHARS // 10 if quick else HOSTILE_CHARS)


def hostile_figures(chars: int) -> list[Figure]:
    """One live render of `chars` of hostile text (in each of thought, observation and
    answer), and of four times as much: the least of three timings each."""
    took = [min(_render_seconds(_hostile_text(n)) for _ in range(3)) for n in (chars, 4 * chars)]
    what = "live render of a run with {:,} characters of hostile text in its thought, " \
           "observation and answer"
    return [Figure(what.format(chars), f"{took[0]:.2f} s", f"≤ {HOSTILE_TARGET_S:.1f} s",
                   took[0] <= HOSTILE_TARGET_S),
            Figure(what.format(4 * chars), f"{took[1]:.2f} s ({took[1] / took[0]:.1f}×)",
                   "≈ 4× (linear)")]


def _hostile_text(chars: int) -> str:
    """`chars` characters of every kind of hostile text, a share of each."""
    share = chars // len(hostile(10))
    return "".join(hostile(share))[:chars]


def _render_seconds(text: str) -> float:
    started = time.perf_counter()
    render_live(text)
    return time.perf_counter() - started


async def _measure(tg: FakeTelegram, model: FakeModel, db: Path, rounds: int) -> list[Figure]:
    async with running(tg, model, db) as gb:
        n = await store_huge_run(gb.services.store, GROUP, ALICE, rounds=rounds)
        steps = rounds * (2 * CALLS + 1) + 3
        before_show, pages = await _on_the_loop(gb, n, "show")
        before_export, _ = await _on_the_loop(gb, n, "export")
        after_show, sent = await _through_the_bot(gb, f"/show {n}")
        after_export, _ = await _through_the_bot(gb, f"/export {n}")
    what = f"a stored run of {steps:,} steps"
    return [
        Figure(f"/show of {what}: messages", f"{sent} (drawn whole: {pages})",
               f"≤ {SHOW_PAGES}", sent <= SHOW_PAGES),
        _stall(f"/show of {what}: longest loop stall, built on the loop (before)", before_show,
               target=False),
        _stall(f"/show of {what}: longest loop stall, through the bot (now)", after_show),
        _stall(f"/export of {what}: longest loop stall, built on the loop (before)",
               before_export, target=False),
        _stall(f"/export of {what}: longest loop stall, through the bot (now)", after_export),
    ]


def _stall(name: str, seconds: float, target: bool = True) -> Figure:
    """A stall figure; `target=False` for the old way, shown for comparison only."""
    ms = seconds * 1000
    if not target:
        return Figure(name, f"{ms:.0f} ms")
    return Figure(name, f"{ms:.0f} ms", f"≤ {STALL_TARGET_MS:.0f} ms", ms <= STALL_TARGET_MS)


async def _on_the_loop(gb: Glassbox, n: int, what: str) -> tuple[float, int]:
    """The stall while run `n`'s steps are parsed and drawn on the loop; and the pages."""
    store = gb.services.store
    record = await store.get(Scope(GROUP), n)
    assert record is not None
    rows = await query(store.path,  # the rows Store.events reads
                       "SELECT lane, payload FROM steps WHERE run_id = ? ORDER BY id",
                       (record.id,))
    pages = 0
    async with longest_stall() as stall:
        await asyncio.sleep(0.01)
        lanes = lanes_of(rows)
        if what == "show":
            pages = 1 + len(render_view(replay(record, lanes, "en"), live=False))  # + header
        else:
            export_html(record, lanes, "en", "UTC")
        await asyncio.sleep(0.01)
    return stall.longest, pages


async def _through_the_bot(gb: Glassbox, command: str) -> tuple[float, int]:
    """The stall while the bot answers `command`; and the messages it sent (counted once
    none has come for a second)."""
    sent = len(gb.tg.bot_messages(GROUP))
    async with longest_stall() as stall:
        asked = gb.tg.send(GROUP, BOB, command)
        await gb.tg.wait(lambda: bool(gb.replies_to(GROUP, asked)), timeout=120)
    count, quiet_since = 0, time.monotonic()
    while time.monotonic() - quiet_since < 1.0:
        await asyncio.sleep(0.05)
        now = len(gb.tg.bot_messages(GROUP)) - sent
        if now != count:
            count, quiet_since = now, time.monotonic()
    return stall.longest, count
