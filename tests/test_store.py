"""The transcript store on real databases, SQLite and PostgreSQL alike (`db_target`): what
goes in comes back, on disk, per chat."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel

from agent import AgentSettings, ModelClient, Tool, run_react
from agent.events import (
    EVENT_TYPES,
    Action,
    Answer,
    AnswerDelta,
    Delta,
    Event,
    Observation,
    RunFinished,
    RunStarted,
    TextDelta,
    Thought,
    ThoughtDelta,
    Usage,
)
from bot.store.db import SqliteDb
from bot.store.records import RunRecord, Scope, UnknownEvent, telegram_chat
from bot.store.threads import MAX_THREAD_RUNS
from bot.store.transcripts import Store
from testkit.dbkit import Target, execute, query, table_columns
from testkit.fakes.model import FakeModel, text_reply, tool_reply

GROUP = -100123


@pytest.fixture
async def store(db_target: Target) -> AsyncIterator[Store]:
    opened = await Store.open(db_target)
    yield opened
    await opened.close()


async def new_run(store: Store, chat_id: int = GROUP, user_id: int = 7, question: str = "q",
                  mode: str = "ask") -> RunRecord:
    return await store.start_run(chat_id=chat_id, user_id=user_id, user_name=f"user{user_id}",
                                 mode=mode, question=question, model="qwen-plus")


def steps(question: str = "q", answer: str = "a") -> list[Event]:
    """One tool round and an answer round, as the loop yields them."""
    return [
        RunStarted(round=0, mode="react", question=question, model="qwen-plus", tools=("wiki",)),
        Thought(round=1, text="look it up"),
        Action(round=1, call_id="c1", tool="wiki", arguments={"q": "杭州"}),
        Observation(round=1, call_id="c1", tool="wiki", text="Hangzhou is…", ok=True,
                    duration_ms=12),
        Thought(round=2, text="now answer", synthesized=True),
        AnswerDelta(round=2, text=answer[:1]),
        Answer(round=2, text=answer),
        RunFinished(round=2, status="done", usage=Usage(10, 5, 15), duration_ms=40, rounds=2,
                    tool_calls=1),
    ]


class Lookup(Tool):
    name = "lookup"
    description = "Look a word up."

    class Args(BaseModel):
        q: str

    async def run(self, args: Any) -> str:
        return f"<b>{args.q}</b> means 'hello'"


async def test_what_the_agent_yields_comes_back_equal(
    store: Store, fake_model: FakeModel, settings: AgentSettings, client: ModelClient
) -> None:
    fake_model.push(tool_reply(("lookup", {"q": "你好"}), reasoning="I should look it up."),
                    text_reply("It means **hello**.", reasoning="Now I know."))
    run = await new_run(store, question="What does 你好 mean?")
    yielded = []
    async for event in run_react("What does 你好 mean?", client=client, settings=settings,
                                 tools=[Lookup()]):
        yielded.append(event)
        await store.append(run.id, event)

    assert {type(e) for e in yielded} >= {ThoughtDelta, TextDelta}
    kept = [e for e in yielded if not isinstance(e, Delta)]
    assert await store.events(run.id) == {"main": kept}


async def test_a_step_is_stored_once_as_its_json(store: Store, db_target: Target) -> None:
    run = await new_run(store)
    for event in steps():
        await store.append(run.id, event)
    rows = await query(db_target, "SELECT * FROM steps WHERE run_id = ? ORDER BY id", (run.id,))
    columns = await table_columns(db_target, "steps")
    assert sorted(columns) == ["created_at", "id", "lane", "payload", "run_id"]
    payloads = [json.loads(row[columns.index("payload")]) for row in rows]
    assert payloads == [json.loads(json.dumps(e.to_dict())) for e in steps()
                        if not isinstance(e, Delta)]
    assert payloads[2]["arguments"] == {"q": "杭州"}


async def test_compare_run_keeps_its_two_lanes(store: Store) -> None:
    run = await new_run(store, mode="compare")
    plain, react = steps(answer="plain answer"), steps(answer="react answer")
    for a, b in zip(plain, react, strict=True):  # interleaved, as the two lanes run at once
        await store.append(run.id, a, lane="plain")
        await store.append(run.id, b, lane="react")
    lanes = await store.events(run.id)
    assert set(lanes) == {"plain", "react"}
    assert lanes["react"] == [e for e in react if not isinstance(e, AnswerDelta)]
    assert lanes["plain"][-2] == Answer(round=2, text="plain answer")


@dataclass(frozen=True, slots=True)
class Poll(Event):
    """An event type from the future (a later version adds it)."""

    type: ClassVar[str] = "poll"
    options: tuple[str, ...]


async def test_event_types_from_the_future_are_kept(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = await new_run(store)
    await store.append(run.id, Poll(round=1, options=("search", "answer")))

    (unknown,) = (await store.events(run.id))["main"]
    assert isinstance(unknown, UnknownEvent)
    assert unknown.to_dict() == {"type": "poll", "round": 1, "options": ["search", "answer"]}

    monkeypatch.setitem(EVENT_TYPES, "poll", Poll)  # the version that knows it
    (poll,) = (await store.events(run.id))["main"]
    assert poll == Poll(round=1, options=["search", "answer"])  # type: ignore[arg-type]


async def test_plan_events_round_trip(store: Store) -> None:
    from agent.events import Plan, PlannedAction

    run = await new_run(store)
    plan = Plan(round=0, actions=(PlannedAction("get_weather", "need it"), PlannedAction("finish")))
    await store.append(run.id, plan)
    assert (await store.events(run.id))["main"] == [plan]


async def test_fifty_runs_writing_at_once(store: Store) -> None:
    async def one(i: int) -> RunRecord:
        run = await new_run(store, user_id=i, question=f"question {i}")
        for event in steps(answer=f"answer {i}"):
            await store.append(run.id, event)
            await asyncio.sleep(0)
        await store.finish(run.id, status="done", usage=Usage(i, i, 2 * i), duration_ms=i,
                           answer=f"answer {i}")
        return run

    runs = await asyncio.gather(*(one(i) for i in range(50)))

    assert sorted(r.n for r in runs) == list(range(1, 51))
    for i, run in enumerate(runs):
        assert (await store.events(run.id))["main"] == [
            e for e in steps(answer=f"answer {i}") if not isinstance(e, AnswerDelta)]
        record = await store.get(Scope(GROUP), run.n)
        assert record is not None
        assert (record.status, record.answer, record.usage) == (
            "done", f"answer {i}", Usage(i, i, 2 * i))


CHILD = """
import asyncio, os, signal, sys
from pathlib import Path
from agent.events import Action, RunStarted, Thought
from bot.store.transcripts import Store

async def main():
    where = sys.argv[1]
    store = await Store.open(where if "://" in where else Path(where))
    run = await store.start_run(chat_id=-5, user_id=1, user_name="A", mode="ask",
                                question="killed?", model="m")
    await store.add_message_ids(run.id, [41])
    await store.append(run.id, RunStarted(round=0, mode="react", question="killed?", model="m"))
    await store.append(run.id, Thought(round=1, text="thinking"))
    await store.append(run.id, Action(round=1, call_id="c", tool="t", arguments={"a": 1}))
    os.kill(os.getpid(), signal.SIGKILL)

asyncio.run(main())
"""


async def test_a_process_killed_mid_run_leaves_an_interrupted_run(db_target: Target) -> None:
    child = subprocess.run([sys.executable, "-c", CHILD, str(db_target)], cwd=Path.cwd(),
                           capture_output=True, text=True, timeout=60)
    assert child.returncode == -9, child.stderr

    store = await Store.open(db_target)
    try:
        (interrupted,) = await store.interrupt_running()
        assert (interrupted.question, interrupted.status) == ("killed?", "interrupted")
        assert interrupted.message_ids == (41,)  # the bot can edit that message to say so
        assert (await store.events(interrupted.id))["main"] == [
            RunStarted(round=0, mode="react", question="killed?", model="m"),
            Thought(round=1, text="thinking"),
            Action(round=1, call_id="c", tool="t", arguments={"a": 1}),
        ]
        assert await store.interrupt_running() == []
    finally:
        await store.close()


async def test_finish_message_ids_and_follow_ups(store: Store) -> None:
    first = await new_run(store)
    await store.add_message_ids(first.id, [100, 101])
    await store.add_message_ids(first.id, [101, 102])
    await store.finish(first.id, status="max_rounds", usage=Usage(3, 4, 7), duration_ms=1234,
                       answer="best effort")

    replied_to = await store.by_message(GROUP, 101)
    assert replied_to is not None and replied_to.id == first.id
    assert replied_to.message_ids == (100, 101, 102)
    assert (replied_to.status, replied_to.duration_ms, replied_to.usage) == (
        "max_rounds", 1234, Usage(3, 4, 7))
    assert replied_to.ended_at is not None and replied_to.ended_at >= replied_to.started_at
    assert await store.by_message(-999, 101) is None  # same message id, another chat

    follow_up = await store.start_run(chat_id=GROUP, user_id=8, user_name="B", mode="ask",
                                      question="and then?", model="m", parent_id=first.id)
    assert (follow_up.n, follow_up.parent_id, follow_up.status) == (2, first.id, "running")
    assert await store.forget(Scope(GROUP), 1)
    assert (await store.get(Scope(GROUP), 2)).parent_id is None  # type: ignore[union-attr]


async def test_numbers_count_per_chat_and_are_never_reused(store: Store) -> None:
    assert [(await new_run(store, chat_id=c)).n for c in (1, 1, 2, 1)] == [1, 2, 1, 3]
    assert await store.forget(Scope(1), 3)
    assert (await new_run(store, chat_id=1)).n == 4
    assert await store.forget_all(1) == 3
    assert (await new_run(store, chat_id=1)).n == 5


async def test_forgetting_removes_steps_and_messages_from_disk(store: Store,
                                                               db_target: Target) -> None:
    run = await new_run(store)
    for event in steps():
        await store.append(run.id, event)
    await store.add_message_ids(run.id, [5])
    assert await store.forget(Scope(GROUP), run.n)

    await store.append(run.id, Thought(round=3, text="still running"))  # no error, not kept
    for table in ("runs", "steps", "run_messages"):
        assert await query(db_target, f"SELECT count(*) FROM {table}") == [(0,)]
    assert await store.events(run.id) == {}


async def test_prune_deletes_old_finished_runs(store: Store, db_target: Target) -> None:
    old, old_running, recent = [await new_run(store, question=q) for q in ("a", "b", "c")]
    for run in (old, recent):
        await store.finish(run.id, status="done", usage=Usage(), duration_ms=1, answer="")
    await store.append(old.id, Thought(round=1, text="t"))
    await execute(db_target,
                  "UPDATE runs SET started_at = '2020-01-01T00:00:00.000+00:00'"
                  " WHERE id IN (?, ?)", (old.id, old_running.id))

    assert await store.prune(30) == [(telegram_chat(GROUP), old.id)]
    assert await store.prune(30) == []
    left = await store.history(Scope(GROUP))
    assert [r.question for r in left.runs] == ["c", "b"]  # a running run is never pruned
    assert await store.events(old.id) == {}


async def test_unknown_names_are_refused(store: Store) -> None:
    run = await new_run(store)
    with pytest.raises(ValueError, match="chat"):
        await new_run(store, mode="chat")
    with pytest.raises(ValueError, match="sideways"):
        await store.append(run.id, Thought(round=1, text="t"), lane="sideways")
    with pytest.raises(ValueError, match="running"):
        await store.finish(run.id, status="running", usage=Usage(), duration_ms=0, answer="")


async def test_a_thread_is_read_in_one_query_oldest_first_to_its_last_hundred(
        store: Store) -> None:
    """A follow-up's thread: its parents in its own chat, oldest first, at most
    MAX_THREAD_RUNS runs, read in one statement however long the thread is."""
    elsewhere = await new_run(store, chat_id=-555)
    chain: list[RunRecord] = []
    parent_id: int | None = elsewhere.id  # a parent in another chat ends the thread
    for i in range(MAX_THREAD_RUNS + 5):
        run = await store.start_run(chat_id=GROUP, user_id=7, user_name="A", mode="ask",
                                    question=f"q{i}", model="m", parent_id=parent_id)
        chain.append(run)
        parent_id = run.id
    statements: list[str] = []
    if isinstance(store.db, SqliteDb):
        await store.db.raw.set_trace_callback(statements.append)
    try:
        thread = await store.threads.runs(chain[-1])
    finally:
        if isinstance(store.db, SqliteDb):
            await store.db.raw.set_trace_callback(None)
    assert [run.question for run in thread] == [run.question for run in chain[-MAX_THREAD_RUNS:]]
    assert thread[-1] == chain[-1]
    assert len(statements) == (1 if isinstance(store.db, SqliteDb) else 0)

    short = await store.threads.runs(chain[3])
    assert [run.id for run in short] == [run.id for run in chain[:4]]
    assert await store.threads.runs(elsewhere) == [elsewhere]
    assert await store.forget(Scope(GROUP), chain[1].n)  # its reply follows its parent now
    assert [run.id for run in await store.threads.runs(chain[3])] == [
        chain[0].id, chain[2].id, chain[3].id]
    assert await store.forget(Scope(GROUP), chain[3].n)
    assert await store.threads.runs(chain[3]) == []  # a thread whose last run is gone
