"""A stored run of 10,000 steps (five rounds of a thousand tool calls each, as a model that
asks for everything at once would leave before the cap), and the event loop's longest stall:
for the fault suite and the bench.

The steps go in as Store.append writes them (INSERT_STEP, step_row) but in one transaction:
ten thousand appends one at a time take half a minute."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

from agent.events import Action, Answer, Event, Observation, RunFinished, RunStarted, Thought
from bot.store.transcripts import INSERT_STEP, Store, step_row
from testkit.dbkit import execute_many

ROUNDS, CALLS = 5, 1000
"""Five rounds of a thousand calls: 10,008 steps with the start, the answer and the end."""


def huge_events(rounds: int = ROUNDS, calls: int = CALLS) -> list[Event]:
    events: list[Event] = [RunStarted(round=0, mode="react", question="Add them all up",
                                      model="qwen-plus", tools=("add",))]
    for rnd in range(1, rounds + 1):
        events.append(Thought(round=rnd, text=f"Round {rnd}: I add every pair at once."))
        ids = [f"call_{rnd}_{i}" for i in range(calls)]
        events += [Action(round=rnd, call_id=c, tool="add", arguments={"a": i, "b": rnd})
                   for i, c in enumerate(ids)]
        events += [Observation(round=rnd, call_id=c, tool="add", text=f"{i + rnd}", ok=True,
                               duration_ms=3) for i, c in enumerate(ids)]
    events.append(Answer(round=rounds + 1, text="The sums are all above."))
    events.append(RunFinished(round=rounds + 1, status="done", rounds=rounds + 1,
                              tool_calls=rounds * calls, duration_ms=9000))
    return events


async def store_huge_run(store: Store, chat_id: int, user_id: int,
                         rounds: int = ROUNDS) -> int:
    """A finished run of `huge_events(rounds)` in `chat_id`; returns its number there."""
    record = await store.start_run(chat_id=chat_id, user_id=user_id, user_name="Alice",
                                   mode="ask", question="Add them all up", model="qwen-plus")
    events = huge_events(rounds)
    await execute_many(store.path, INSERT_STEP, [step_row(record.id, e, "main") for e in events])
    finished = events[-1]
    assert isinstance(finished, RunFinished)
    await store.finish(record.id, status="done", usage=finished.usage,
                       duration_ms=finished.duration_ms, answer="The sums are all above.")
    return record.n


class Stall:
    """The longest the event loop went without running a ready task, in seconds."""

    longest: float = 0.0


@contextlib.asynccontextmanager
async def longest_stall(tick_s: float = 0.001) -> AsyncIterator[Stall]:
    """Measures, while the block runs, how late a task that sleeps `tick_s` at a time wakes:
    the longest time anything kept the loop (and every other chat) waiting."""
    stall = Stall()

    async def beat() -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(tick_s)
            stall.longest = max(stall.longest, time.perf_counter() - before - tick_s)

    task = asyncio.create_task(beat())
    await asyncio.sleep(0)  # the first beat has begun
    try:
        yield stall
    finally:
        await asyncio.sleep(2 * tick_s)  # and the last one has seen the block's end
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
