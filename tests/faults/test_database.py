"""PostgreSQL under load and faults, on the throwaway cluster: a plan that allows few
connections, an outage in the middle of a run, and a server that hangs (through a relay on
127.0.0.1 the test cuts or freezes, testkit/dbkit.Cuttable). What the students see in the fake
Bot API's messages, and what is in the database."""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

import asyncpg
import pytest

from bot.store import db as db_module
from bot.store.breaker import BreakerState
from bot.store.connection_turns import FIRST_BACKOFF_S
from bot.store.db import STATEMENT_TIMEOUT_S, PostgresDb, StoreUnavailable
from testkit.botkit import ALICE, Add, Glassbox, people, running
from testkit.dbkit import Cuttable, fresh_postgres, query, small_plan
from testkit.fakes.model import FakeModel, text_reply, tool_reply
from testkit.fakes.server import Reply
from testkit.fakes.telegram import FakeTelegram, Message

CLASS = tuple(range(7000, 7060))
"""Sixty students, each in a private chat with the bot."""
ANSWER = "Answered."
WENT_WRONG = "went wrong"
NOT_SAVED = "could not be saved"


@asynccontextmanager
async def bot_on(db_url: str, **extra: Any) -> AsyncIterator[Glassbox]:
    with FakeTelegram(scale=0.02) as tg, FakeModel(default=lambda _: text_reply(ANSWER)) as model:
        people(tg)
        for user in CLASS:
            tg.user(user, f"Student {user}")
        async with running(tg, model, db_url, tools=(Add(),), **extra) as gb:
            yield gb


def final_reply(gb: Glassbox, chat_id: int, asked: int) -> Message | None:
    found = [m for m in gb.tg.bot_messages(chat_id) if m.reply_to == asked]
    return found[0] if found and not found[0].buttons and "⏳" not in found[0].text else None


async def the_class_asks_at_once(gb: Glassbox) -> list[str]:
    """Every student sends a question at the same moment: the final text each one gets."""
    asked = {user: gb.tg.send(user, user, f"what is {user} + 1?") for user in CLASS}
    await gb.tg.wait(lambda: all(final_reply(gb, u, m) is not None for u, m in asked.items()),
                     timeout=60)
    return [final_reply(gb, u, m).text for u, m in asked.items()]  # type: ignore[union-attr]


async def test_sixty_students_at_once_on_a_plan_of_six_connections() -> None:
    """A managed plan allowing 6 connections: the pool (DATABASE_POOL_SIZE, 5 by default)
    stays within it and statements wait for a connection, so every question is answered and
    stored (it used to be 48 of 60 "Sorry, something went wrong" and 2 not answered)."""
    async with fresh_postgres() as url, small_plan(url, 6) as plan:
        async with bot_on(plan) as gb:
            answers = await the_class_asks_at_once(gb)
        rows = await query(url, "SELECT status, count(*) FROM runs GROUP BY status")
    assert [a for a in answers if ANSWER not in a or NOT_SAVED in a or WENT_WRONG in a] == []
    assert rows == [("done", 60)]


async def test_another_instance_holding_five_of_six_connections() -> None:
    """During a deploy the old instance still holds 5 of the plan's 6 connections: the
    server refuses this one's second connection, so its statements wait for its one
    connection instead of failing; every question is answered and stored."""
    async with fresh_postgres() as url, small_plan(url, 6) as plan:
        others = [await asyncpg.connect(plan) for _ in range(4)]
        try:
            async with bot_on(plan) as gb:  # its pool opens the fifth at start
                others.append(await asyncpg.connect(plan))
                answers = await the_class_asks_at_once(gb)
                db = gb.services.store.db
                assert isinstance(db, PostgresDb) and db.pool.get_size() == 1
        finally:
            for conn in others:
                await conn.close()
        rows = await query(url, "SELECT status, count(*) FROM runs GROUP BY status")
    assert [a for a in answers if ANSWER not in a or NOT_SAVED in a or WENT_WRONG in a] == []
    assert rows == [("done", 60)]


async def test_statements_wait_their_turn_for_the_one_connection_without_a_connect_storm(
        ) -> None:
    """Another instance holds 5 of the plan's 6 connections, so this pool has one, and it is
    busy while forty statements are asked. Each runs, in the order they were asked, and the
    server is asked for another connection only once per back-off, which doubles while it
    keeps refusing (every waiting statement used to try one each time it woke: hundreds of
    refused connects under load, and a woken statement could lose the freed connection to
    a newcomer until it timed out). Once the other instance is gone, the pool grows."""
    async with fresh_postgres() as url, small_plan(url, 6) as plan, Cuttable(plan) as relay:
        others = [await asyncpg.connect(plan) for _ in range(5)]
        db = await PostgresDb.open(relay.url)
        try:
            await db.execute("CREATE TABLE turns (id serial PRIMARY KEY, n int NOT NULL)")
            opened = relay.connections
            async with db.transaction() as busy:
                started = time.monotonic()
                statements = [asyncio.create_task(db.execute(
                    "INSERT INTO turns (n) SELECT ?::int FROM pg_sleep(0.01)", (n,)))
                    for n in range(40)]

                async def tried_again() -> bool:  # a new connection, after the refused one
                    return relay.connections >= opened + 2
                await until(tried_again, timeout=20, every=0.01)
                second_try_after = time.monotonic() - started
                await busy.fetch("SELECT 1")
            await asyncio.gather(*statements)
            took = time.monotonic() - started
            tries = relay.connections - opened
            order = [n for (n,) in await db.fetch("SELECT n FROM turns ORDER BY id")]

            for other in others:
                await other.close()
            others = []

            async def grown() -> bool:
                await asyncio.gather(*(db.fetch("SELECT pg_sleep(0.05)") for _ in range(5)))
                return db.pool.get_size() > 1
            await until(grown, timeout=40)
        finally:
            for other in others:
                await other.close()
            await db.close()
    assert second_try_after >= FIRST_BACKOFF_S
    assert order == list(range(40))
    # The k-th try comes FIRST_BACKOFF_S × (2^(k-1) - 1) after the first, at the earliest.
    assert tries <= 1 + math.log2(took / FIRST_BACKOFF_S + 1), (tries, took)


async def test_a_statement_waiting_for_a_turn_ends_at_its_timeout(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The pool's one connection stays busy longer than a statement may wait: the waiting
    statement fails with the store's "no answer within" error at its timeout, and statements
    run again once the connection is free."""
    monkeypatch.setattr(db_module, "STATEMENT_TIMEOUT_S", 1.0)
    async with fresh_postgres() as url, small_plan(url, 6) as plan:
        others = [await asyncpg.connect(plan) for _ in range(5)]
        db = await PostgresDb.open(plan)
        try:
            async with db.transaction():
                started = time.monotonic()
                with pytest.raises(StoreUnavailable, match="no answer within 1 s"):
                    await db.fetch("SELECT 1")
                waited = time.monotonic() - started

            async def answered() -> bool:  # once the breaker has heard the server answer
                return db.breaker.state is BreakerState.CLOSED
            await until(answered, timeout=20)
            assert await db.fetch("SELECT 2") == [(2,)]
        finally:
            for other in others:
                await other.close()
            await db.close()
    assert 1.0 <= waited < 3.0


async def test_a_plan_full_of_other_connections_answers_and_says_not_saved() -> None:
    """Others hold every connection the plan allows (here: the plan shrinks to what another
    client holds, and the bot's connection is ended): the server says "too many
    connections" to each statement. That is the store being unavailable: the question is
    answered and says it could not be saved (it was "Sorry, something went wrong")."""
    async with fresh_postgres() as url, small_plan(url, 2) as plan:
        role = urlsplit(plan).username
        other = await asyncpg.connect(plan)
        try:
            async with bot_on(plan) as gb:
                db = gb.services.store.db
                assert isinstance(db, PostgresDb)
                await query(url, f'ALTER ROLE "{role}" CONNECTION LIMIT 1')
                await query(url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                                 " WHERE usename = ? AND pid != ?",
                            (role, other.get_server_pid()))

                async def noticed() -> bool:  # the pool has seen its connection end
                    return db.pool.get_size() == 0
                await until(noticed, timeout=10)
                asked = gb.tg.send(ALICE, ALICE, "/ask what is 2+2?")
                final = await gb.answer_to(ALICE, asked)
                assert ANSWER in final.text and NOT_SAVED in final.text
                assert WENT_WRONG not in final.text
                assert db.breaker.state is BreakerState.CLOSED  # the server answered
        finally:
            await other.close()
        assert await query(url, "SELECT count(*) FROM runs") == [(0,)]


def held_until(gate: threading.Event, reply: Reply) -> Callable[[dict[str, Any]], Reply]:
    """A model reply that waits for `gate` (the fake model's thread waits, not the bot)."""
    def answer(_: dict[str, Any]) -> Reply:
        assert gate.wait(30)
        return reply
    return answer


async def until(predicate: Callable[[], Any], timeout: float, every: float = 0.2) -> None:
    """Wait for an async `predicate` to hold, asking again `every` seconds."""
    deadline = time.monotonic() + timeout
    while not await predicate():
        assert time.monotonic() < deadline, "it never came true"
        await asyncio.sleep(every)


async def test_a_run_the_outage_cut_short_is_stored_whole_once_the_database_is_back() -> None:
    """The run started (stored `running`) and then PostgreSQL went away. Its answer says it
    is not saved yet and offers no /show N; once the database is back its steps, its end
    and its message ids are written: `done`, every step, the answer, and /show N shows it
    (they used to stay `running` with no steps until a restart, the answer offering /show)."""
    async with fresh_postgres() as url, Cuttable(url) as relay:
        async with bot_on(relay.url) as gb:
            gate = threading.Event()
            gb.model.push(tool_reply(("add", {"a": 2, "b": 2})),
                          held_until(gate, text_reply("Four.")))
            asked = gb.tg.send(ALICE, ALICE, "/ask what is 2+2?")
            await gb.tg.wait(lambda: len(gb.model.bodies) == 2)  # the add's round is stored
            await relay.cut()
            gate.set()
            final = await gb.answer_to(ALICE, asked, timeout=20)
            assert "Four." in final.text and "is not saved yet" in final.text
            assert "/show" not in final.text.replace("/history and /show", "")
            assert await query(url, "SELECT status FROM runs") == [("running",)]

            await relay.restore()

            async def stored() -> bool:
                return await query(url, "SELECT status FROM runs") == [("done",)]
            await until(stored, timeout=60)
            await until(lambda: _message_ids_stored(url), timeout=30)
            shown = gb.tg.send(ALICE, ALICE, "/show 1")
            replay = await gb.answer_to(ALICE, shown)
        kinds = await query(url, "SELECT payload::json->>'type' FROM steps ORDER BY id")
        run = await query(url, "SELECT answer FROM runs")
    assert "Four." in replay.text and "add" in replay.text
    assert run == [("Four.",)]
    kinds = [k for (k,) in kinds]
    assert kinds[0] == "run_started" and "observation" in kinds
    assert kinds[-2:] == ["answer", "run_finished"] and kinds.count("run_finished") == 1


async def _message_ids_stored(url: str) -> bool:
    return await query(url, "SELECT count(*) FROM run_messages") != [(0,)]


async def test_a_frozen_database_holds_one_answer_at_most_one_timeout() -> None:
    """The server hangs (connections open, nothing answered). The first question after it
    waits one statement timeout, the breaker opens, and the next questions are answered at
    once, saying they could not be saved (each used to wait 3 × 10 s, the first 140 s).
    Once the server answers again the breaker's probe closes it and questions are stored."""
    async with fresh_postgres() as url, Cuttable(url) as relay:
        async with bot_on(relay.url) as gb:
            db = gb.services.store.db
            assert isinstance(db, PostgresDb)
            first = gb.tg.send(ALICE, ALICE, "/ask warm up")
            await gb.answer_to(ALICE, first)
            relay.freeze()
            replies = [await _first_reply(gb, user, STATEMENT_TIMEOUT_S + 5)
                       for user in CLASS[:3]]
            waited = [seconds for seconds, _ in replies]
            assert waited[0] < STATEMENT_TIMEOUT_S + 3
            assert max(waited[1:]) < 2
            assert all(ANSWER in final and NOT_SAVED in final for _, final in replies)
            assert db.breaker.state is not BreakerState.CLOSED
            relay.thaw()

            async def closed() -> bool:
                return db.breaker.state is BreakerState.CLOSED
            await until(closed, timeout=30)
            again = gb.tg.send(ALICE, ALICE, "/ask and now?")
            back = await gb.answer_to(ALICE, again)
        rows = await query(url, "SELECT question, status FROM runs ORDER BY n")
    assert NOT_SAVED not in back.text
    assert rows == [("warm up", "done"), ("and now?", "done")]


async def _first_reply(gb: Glassbox, user: int, timeout: float) -> tuple[float, str]:
    """A student asks: the seconds until the bot's first message to them, and the text of
    their answer once final (it comes soon after)."""
    started = time.monotonic()
    asked = gb.tg.send(user, user, "what is 1+1?")
    await gb.tg.wait(lambda: any(m.reply_to == asked for m in gb.tg.bot_messages(user)),
                     timeout)
    took = time.monotonic() - started
    await gb.tg.wait(lambda: final_reply(gb, user, asked) is not None)
    return took, final_reply(gb, user, asked).text  # type: ignore[union-attr]
