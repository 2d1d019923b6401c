"""The class's tallies (bot/store/tallies.py), kept by triggers, on SQLite and PostgreSQL:
after every way a run or a tool call changes they equal a fresh count of the rows, so the
figures read from them are the runs'. And the facts of runs that ended before Glassbox kept
them are made as the bot starts, in the background: a /stats before that waits for none
(it counts those runs as stored), and one after counts them whole."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.course.service import Course
from bot.store.course_records import RunFacts, ToolCall
from bot.store.kinds import CourseMode
from bot.store.records import Scope, telegram_chat
from bot.store.tallies import TALLIES
from bot.store.transcripts import Store
from testkit.botkit import running
from testkit.dbkit import Target
from testkit.fakes.model import FakeModel
from testkit.fakes.telegram import FakeTelegram
from tests.coursekit import EXPECTED, GROUP, PERIOD, seed_course

CLASS = Scope.of(telegram_chat(GROUP))


@pytest.fixture
async def store(migrated_target: Target) -> AsyncIterator[Store]:
    opened = await Store.open(migrated_target)
    await seed_course(opened)
    yield opened
    await opened.close()


async def _kept_and_fresh(store: Store) -> list[tuple[set[tuple[Any, ...]], set[tuple[Any, ...]]]]:
    out = []
    for tally in TALLIES:
        kept = await store.db.fetch(f"SELECT * FROM {tally.table}")
        fresh = await store.db.fetch(tally.count())
        out.append(({tuple(row) for row in kept}, {tuple(row) for row in fresh}))
    return out


async def _assert_fresh(store: Store) -> None:
    for kept, fresh in await _kept_and_fresh(store):
        assert kept == fresh


async def test_the_tallies_are_a_fresh_count_after_every_change(store: Store) -> None:
    await _assert_fresh(store)  # the runs' facts kept, one run forgotten with its facts
    [(runs, _), (calls, _)] = await _kept_and_fresh(store)
    # the course's 11, the one before it and the private chat's; their tools' 9, 1 and 1
    assert sum(row[6] for row in runs) == 13
    assert sum(row[4] for row in calls) == 11

    first = await store.get(CLASS, 1)
    assert first is not None
    await store.course.record(first.id, RunFacts(
        mode=CourseMode.WALKTHROUGH, rounds=3, error_kind="", differs=None,
        tool_calls=(ToolCall("get_time", False, "tool_error"), ToolCall("calculate", True))))
    await _assert_fresh(store)  # its facts made again: it moves from tally to tally
    await store.db.execute("UPDATE runs SET started_at = ?, status = 'error',"
                           " error_kind = 'timeout', total_tokens = 7 WHERE id = ?",
                           ("2026-09-04T10:50:00.000+00:00", first.id))
    await _assert_fresh(store)
    data = (await Course(store, None).figures(CLASS, PERIOD)).data()
    assert [d["day"] for d in data["days"]] == ["2026-09-01", "2026-09-03", "2026-09-04"]
    assert data["endings"]["failed"] == {"timeout": 2}

    assert await store.forget_all(GROUP) == 12
    await _assert_fresh(store)
    data = (await Course(store, None).figures(CLASS, PERIOD)).data()
    assert (data["runs"], data["tools"], data["askers"]) == (0, [], 0)


async def test_earlier_runs_get_their_facts_as_the_bot_starts(migrated_target: Target) -> None:
    store = await Store.open(migrated_target)
    try:
        await seed_course(store, keep_facts=False)
        before = (await Course(store, None).figures(CLASS, PERIOD)).data()
        # counted as stored, none of their facts made by the request
        assert (before["runs"], before["tokens"]) == (EXPECTED["runs"], EXPECTED["tokens"])
        assert before["tools"] == [] and before["modes"]["quiz"] == 0
        assert len(await store.course.unkept(0, 100)) == 13
    finally:
        await store.close()

    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        async with running(tg, model, migrated_target) as gb:
            filling = gb.services.filling
            assert filling is not None
            await filling
            assert await gb.services.store.course.unkept(0, 100) == []
            after = (await Course(gb.services.store, None).figures(CLASS, PERIOD)).data()
    assert after == {**EXPECTED, "budget": None, "overBudgetDays": 0}
