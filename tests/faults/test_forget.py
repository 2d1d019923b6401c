"""Deleted means deleted: a run taken away by /forget, /forget all or TRANSCRIPT_RETENTION_DAYS
leaves nothing of its text in the database (every table, every column, read from disk; on
SQLite the file's bytes too), and the model is never sent it again, not even inside the
summary of a long reply thread. The thread goes on with the runs that remain.

The real bot against the fake Bot API and the fake model; each case on SQLite and on
PostgreSQL. Threads here hold one turn word for word (HISTORY_MAX_CHARS), so each follow-up
summarises the turns before it, and the fake model's summaries quote what they were given,
as a model's do."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.store.db import is_postgres_url
from testkit.botkit import ADMIN, ALICE, BOB, GROUP, SCALE, Add, Glassbox, people, running
from testkit.dbkit import Target, execute, query, query_each
from testkit.fakes.model import FakeModel, text_reply, tool_reply
from testkit.fakes.server import Reply
from testkit.fakes.telegram import FakeTelegram

MARK = "ZQXJ-7731"
SECRET = f"my locker code is {MARK}"
"""What the asker wants gone."""
FILL = " Details follow." + "." * 80
HISTORY_MAX_CHARS = 200
"""One turn of about 130 characters fits word for word; the turns before it are summarised."""


@contextlib.asynccontextmanager
async def bot(db: Target, **extra: Any) -> AsyncIterator[Glassbox]:
    with FakeTelegram(scale=SCALE) as tg, FakeModel() as model:
        people(tg)
        async with running(tg, model, db, history_max_chars=HISTORY_MAX_CHARS,
                           **extra) as gb:
            yield gb


async def ask(gb: Glassbox, text: str, reply_to: int | None, *replies: Reply) -> int:
    """Alice asks in the group (a reply to the answer `reply_to` is a follow-up); the
    model gives `replies` (a summary first, where one is due). The answer's message id."""
    gb.model.push(*replies)
    asked = gb.tg.send(GROUP, ALICE, text, reply_to=reply_to)
    return (await gb.answer_to(GROUP, asked)).message_id


async def thread(gb: Glassbox, db: Target) -> list[int]:
    """Four turns in one reply thread, the first holding the secret in its question and
    answer; summaries kept under the first and the second run (both quote the secret).
    The answers' message ids."""
    first = await ask(gb, f"/ask Remember this: {SECRET}.", None,
                      text_reply(f"Noted: {MARK}." + FILL))
    second = await ask(gb, "What is ReAct?", first, text_reply("Reason and act." + FILL))
    third = await ask(gb, "And CoT?", second,
                      text_reply(f"Summary: the locker code is {MARK}."),
                      text_reply("Chain of thought." + FILL))
    fourth = await ask(gb, "Which is older?", third,
                       text_reply(f"Summary: locker code {MARK}; ReAct is reason and act."),
                       text_reply("CoT is older." + FILL))
    summaries = await query(db, "SELECT summary FROM thread_summaries")
    assert len(summaries) == 2 and all(MARK in s for (s,) in summaries)
    return [first, second, third, fourth]


async def reply(gb: Glassbox, user: int, text: str) -> str:
    asked = gb.tg.send(GROUP, user, text)
    await gb.tg.wait(lambda: bool(gb.replies_to(GROUP, asked)))
    return gb.replies_to(GROUP, asked)[0].text


def sent_after(model: FakeModel, count: int) -> list[str]:
    """The request bodies the fake model received after its first `count`, as sent."""
    return [json.dumps(body, ensure_ascii=False) for body in model.bodies[count:]]


async def where_stored(db: Target, text: str) -> list[str]:
    """Every table.column of the database that holds `text` anywhere, read from disk by a
    connection of its own; on SQLite also the file (and its write-ahead log) as bytes."""
    found = []
    if is_postgres_url(db):
        columns = await query(db, "SELECT table_name, column_name FROM information_schema.columns"
                                  " WHERE table_schema = 'public'")
        test = 'strpos("{column}"::text, ?) > 0'
    else:
        columns = await query(db, "SELECT m.name, c.name FROM sqlite_master AS m,"
                                  " pragma_table_info(m.name) AS c WHERE m.type = 'table'")
        test = 'instr(CAST("{column}" AS BLOB), CAST(? AS BLOB)) > 0'
        for path in (Path(db), Path(f"{db}-wal")):
            if path.exists() and text.lower().encode() in path.read_bytes().lower():
                found.append(path.name)
    counts = await query_each(db, [(f'SELECT count(*) FROM "{table}" WHERE '
                                    + test.format(column=column), (text,))
                                   for table, column in columns])
    found += [f"{table}.{column}" for (table, column), [(count,)] in zip(columns, counts,
                                                                          strict=True) if count]
    return found


async def referring(db: Target, run_id: int) -> list[str]:
    """Every table with a `run_id` column that has a row of run `run_id`."""
    sql = ("SELECT table_name FROM information_schema.columns WHERE table_schema = 'public'"
           " AND column_name = 'run_id'") if is_postgres_url(db) else (
           "SELECT m.name FROM sqlite_master AS m, pragma_table_info(m.name) AS c"
           " WHERE m.type = 'table' AND c.name = 'run_id'")
    tables = [table for (table,) in await query(db, sql)]
    counts = await query_each(db, [(f'SELECT count(*) FROM "{table}" WHERE run_id = ?',
                                    (run_id,)) for table in tables])
    return [table for table, [(count,)] in zip(tables, counts, strict=True) if count]


async def test_a_forgotten_run_leaves_no_summary_and_is_never_sent_again(
        migrated_target: Target) -> None:
    async with bot(migrated_target) as gb:
        answers = await thread(gb, migrated_target)
        [(run_id,)] = await query(migrated_target, "SELECT id FROM runs WHERE n = 1")
        assert await referring(migrated_target, run_id)  # its steps, its messages
        assert await reply(gb, ALICE, "/forget 1") == "Run #1 is deleted."
        assert await where_stored(migrated_target, MARK) == []
        assert await referring(migrated_target, run_id) == []

        before = len(gb.model.bodies)
        await ask(gb, "Thanks!", answers[-1], text_reply("Summary: ReAct; CoT."),
                  text_reply("You are welcome."))
        summary_call, follow_up = sent_after(gb.model, before)
        assert MARK not in summary_call + follow_up
        # the thread goes on with what remains: the second and third turns, summarised
        assert "What is ReAct?" in summary_call and "And CoT?" in summary_call
        assert "Summary: ReAct; CoT." in follow_up and "Which is older?" in follow_up
        assert await where_stored(migrated_target, MARK) == []


async def test_a_thread_goes_on_past_a_run_forgotten_in_its_middle(migrated_target: Target) -> None:
    """Run 2 is forgotten: its reply (run 3) follows run 1 now, so the next follow-up still
    carries run 1 (its summary, kept, as it quotes nothing of run 2) and never run 2."""
    async with bot(migrated_target) as gb:
        first = await ask(gb, "/ask What is ReAct?", None,
                          text_reply("Reason and act." + FILL))
        second = await ask(gb, f"Remember this: {SECRET}.", first,
                           text_reply(f"Noted: {MARK}." + FILL))
        third = await ask(gb, "And CoT?", second,
                          text_reply("Summary: ReAct is reason and act."),
                          text_reply("Chain of thought." + FILL))
        assert await reply(gb, ALICE, "/forget 2") == "Run #2 is deleted."

        before = len(gb.model.bodies)
        await ask(gb, "Which is older?", third, text_reply("CoT is older."))
        [follow_up] = sent_after(gb.model, before)  # the kept summary: no summary call
        assert MARK not in follow_up
        assert "Summary: ReAct is reason and act." in follow_up and "And CoT?" in follow_up
        assert await where_stored(migrated_target, MARK) == []


async def test_forget_all_leaves_nothing_on_disk_and_stops_what_runs(
        migrated_target: Target) -> None:
    """`/forget all` while a follow-up in the thread runs: every run goes with what was
    made from it, and the follow-up stops instead of sending the thread again."""
    async with bot(migrated_target, tools=(Add(),)) as gb:
        answers = await thread(gb, migrated_target)
        release = threading.Event()
        gb.model.push(text_reply("Summary: ReAct; CoT."),
                      held(release, tool_reply(("add", {"a": 2, "b": 3}), content="Add.")),
                      text_reply("It is 5."))
        before = len(gb.model.bodies)
        asked = gb.tg.send(GROUP, ALICE, "What is 2 + 3?", reply_to=answers[-1])
        await gb.tg.wait(lambda: len(gb.model.bodies) == before + 2)  # its first round, held
        confirm = gb.tg.send(GROUP, ADMIN, "/forget all")
        await gb.tg.wait(lambda: bool(gb.replies_to(GROUP, confirm)))
        [asking] = gb.replies_to(GROUP, confirm)
        gb.tg.tap(GROUP, ADMIN, asking.message_id, asking.button_data("🗑 Delete all"))
        await gb.tg.wait(lambda: asking.text == "Deleted all runs of this chat (5).")
        forgotten_at = len(gb.model.bodies)
        release.set()
        final = await gb.answer_to(GROUP, asked)
        assert "Stopped: this question was deleted." in final.text
        assert len(gb.model.bodies) == forgotten_at
        assert await where_stored(migrated_target, MARK) == []
        assert await query(migrated_target, "SELECT count(*) FROM runs") == [(0,)]


async def test_runs_past_the_retention_take_their_summaries_with_them(
        migrated_target: Target) -> None:
    """The daily sweep at start-up deletes run 1 (ninety days old); the summaries that quote
    it go too, and the next follow-up in its thread sends nothing of it."""
    with FakeTelegram(scale=SCALE) as tg, FakeModel() as model:
        people(tg)
        async with running(tg, model, migrated_target,
                           history_max_chars=HISTORY_MAX_CHARS) as gb:
            answers = await thread(gb, migrated_target)
        await execute(migrated_target,
                      "UPDATE runs SET started_at = '2020-01-01T00:00:00.000+00:00' WHERE n = 1")
        async with running(tg, model, migrated_target, history_max_chars=HISTORY_MAX_CHARS,
                           transcript_retention_days=30) as gb:
            await until(lambda: where_stored(migrated_target, MARK), [])
            before = len(model.bodies)
            await ask(gb, "Thanks!", answers[-1], text_reply("Summary: ReAct; CoT."),
                      text_reply("You are welcome."))
            assert all(MARK not in body for body in sent_after(model, before))
            assert len(sent_after(model, before)) == 2
            assert await where_stored(migrated_target, MARK) == []


async def test_a_summary_made_while_its_run_is_forgotten_is_not_kept_nor_sent(
        migrated_target: Target) -> None:
    """The follow-up's summary call is under way when /forget 1 lands: the summary that
    comes back quotes run 1, so it is dropped, and the thread is read again without it."""
    async with bot(migrated_target) as gb:
        first = await ask(gb, f"/ask Remember this: {SECRET}.", None,
                          text_reply(f"Noted: {MARK}." + FILL))
        second = await ask(gb, "What is ReAct?", first, text_reply("Reason and act." + FILL))
        before = len(gb.model.bodies)
        release = threading.Event()
        gb.model.push(held(release, text_reply(f"Summary: the locker code is {MARK}.")),
                      text_reply("Chain of thought." + FILL))
        asked = gb.tg.send(GROUP, ALICE, "And CoT?", reply_to=second)
        await gb.tg.wait(lambda: len(gb.model.bodies) > before)  # the summary call is out
        assert await reply(gb, ALICE, "/forget 1") == "Run #1 is deleted."
        release.set()
        await gb.answer_to(GROUP, asked)

        summary_call, *after = sent_after(gb.model, before)
        assert MARK in summary_call  # asked before the forget
        assert after and all(MARK not in body for body in after)
        assert "What is ReAct?" in after[-1]  # what remains of the thread
        assert await where_stored(migrated_target, MARK) == []


async def test_a_follow_up_queued_while_its_run_is_forgotten_starts_a_thread(
        migrated_target: Target) -> None:
    """Alice's follow-up waits for a free run slot (MAX_CONCURRENT_RUNS=1, Bob's question
    runs); meanwhile she forgets the run it follows. When it starts, it reads its thread as
    it is then: nothing of the forgotten run is sent, and it is stored as a new thread."""
    async with bot(migrated_target, max_concurrent_runs=1) as gb:
        first = await ask(gb, f"/ask Remember this: {SECRET}.", None,
                          text_reply(f"Noted: {MARK}." + FILL))
        release = threading.Event()
        before = len(gb.model.bodies)
        gb.model.push(held(release, text_reply("Bob's answer.")), text_reply("Go on."))
        bobs = gb.tg.send(GROUP, BOB, "/ask something slow")
        await gb.tg.wait(lambda: len(gb.model.bodies) > before)
        asked = gb.tg.send(GROUP, ALICE, "And then?", reply_to=first)
        await gb.tg.wait(lambda: any(m.text.startswith("⏳ Queued")
                                     for m in gb.replies_to(GROUP, asked)))
        assert await reply(gb, ALICE, "/forget 1") == "Run #1 is deleted."
        release.set()
        assert "Go on." in (await gb.answer_to(GROUP, asked)).text
        await gb.answer_to(GROUP, bobs)

        _, follow_up = sent_after(gb.model, before)
        assert MARK not in follow_up and "And then?" in follow_up
        assert await query(migrated_target, "SELECT parent_id FROM runs WHERE question = ?",
                           ("And then?",)) == [(None,)]
        assert await where_stored(migrated_target, MARK) == []


async def test_a_run_forgotten_while_it_runs_stops_and_leaves_nothing(
        migrated_target: Target, caplog: pytest.LogCaptureFixture) -> None:
    """Alice forgets her question while its first round is under way: it stops there (its
    next round would send the question again), says why, and nothing of it is stored
    after (its steps, its answer, its course facts)."""
    async with bot(migrated_target, tools=(Add(),)) as gb:
        release = threading.Event()
        gb.model.push(held(release, tool_reply(("add", {"a": 2, "b": 3}), content="Add.")),
                      text_reply("It is 5."))
        asked = gb.tg.send(GROUP, ALICE, f"/ask {SECRET}: what is 2 + 3?")
        await gb.tg.wait(lambda: len(gb.model.bodies) == 1)
        assert await reply(gb, ALICE, "/forget 1") == "Run #1 is deleted."
        release.set()
        final = await gb.answer_to(GROUP, asked)
        assert "Stopped: this question was deleted." in final.text
        assert len(gb.model.bodies) == 1
        assert await where_stored(migrated_target, MARK) == []
        assert await query(migrated_target, "SELECT count(*) FROM tool_calls") == [(0,)]
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []


async def test_a_follow_up_running_when_its_thread_is_forgotten_stops(
        migrated_target: Target) -> None:
    """Run 2 follows up run 1 and is in its first round when Alice forgets run 1: run 2
    stops, saying why, instead of sending run 1 again with its next round."""
    async with bot(migrated_target, tools=(Add(),)) as gb:
        first = await ask(gb, f"/ask Remember this: {SECRET}.", None,
                          text_reply(f"Noted: {MARK}."))
        release = threading.Event()
        before = len(gb.model.bodies)
        gb.model.push(held(release, tool_reply(("add", {"a": 2, "b": 3}), content="Add.")),
                      text_reply("It is 5."))
        asked = gb.tg.send(GROUP, ALICE, "What is 2 + 3?", reply_to=first)
        await gb.tg.wait(lambda: len(gb.model.bodies) > before)
        assert await reply(gb, ALICE, "/forget 1") == "Run #1 is deleted."
        forgotten_at = len(gb.model.bodies)
        release.set()
        final = await gb.answer_to(GROUP, asked)
        assert "an earlier question of this thread was deleted" in final.text
        assert all(MARK not in body for body in sent_after(gb.model, forgotten_at))
        assert await where_stored(migrated_target, MARK) == []
        assert (await reply(gb, ALICE, "/history")).count("What is 2 + 3?") == 1  # kept


def held(release: threading.Event, reply: Reply) -> Callable[[dict[str, Any]], Reply]:
    """A reply the fake model sends only once `release` is set (the test waits on it)."""
    def answer(_: dict[str, Any]) -> Reply:
        assert release.wait(10), "the test never released the reply"
        return reply
    return answer


async def until(check: Callable[[], Any], expected: Any, timeout: float = 10) -> None:
    """Wait until the awaitable `check()` gives `expected` (the sweep runs in the
    background), or fail."""
    deadline = time.monotonic() + timeout
    while (got := await check()) != expected:
        assert time.monotonic() < deadline, got
        await asyncio.sleep(0.02)
