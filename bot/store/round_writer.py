"""A run's steps, written a round at a time: one database call when a tool's observation
or the run's end arrives, not one commit per step.

At a school's load the store is the bottleneck: each commit is three calls into
aiosqlite's thread, each waiting for a turn of the busy event loop. Buffering Thought and
Action until the round's Observation cuts a 3-round answer from about nine commits to
four statements. The cost: a crash loses the steps of the round in flight (the live
message still showed them; the stored transcript ends at the round before)."""

from __future__ import annotations

from agent.events import Delta, Event, Observation, Proposed, RunFinished, Usage, VoteCount
from bot.store.backlog import Write
from bot.store.retry import retried
from bot.store.transcripts import Store

WRITE_AFTER = (Observation, Proposed, RunFinished)
"""The steps that end a stretch worth keeping: a round's tool result, the run's end, and an
action proposed in walkthrough mode (the run may then wait minutes for the asker)."""


class RoundWriter:
    """A run's steps, then its end, written in order: once one write has had to wait for the
    store (the store's backlog has it), every later one waits behind it."""

    def __init__(self, store: Store, run_id: int, *, saving: bool = True) -> None:
        self.store, self.run_id = store, run_id
        self._steps: list[tuple[str, Event]] = []
        self.saving = saving
        """False: the run has no record (the database was down when it started), so none of
        it is stored, and the asker is told."""
        self.waiting = False
        """Whether writes of the run wait for the database (down, or refusing past the
        retries): the run goes on, is stored whole once the database is back, and the asker
        is told it is not stored yet."""

    async def add(self, lane: str, event: Event) -> None:
        if isinstance(event, Delta | VoteCount):  # never stored (the Thought, the Answer and
            return  # the VoteClosed hold what they showed)
        self._steps.append((lane, event))
        if isinstance(event, WRITE_AFTER):
            await self.flush()

    async def flush(self) -> None:
        """Write what is buffered (also when a run stops or fails mid-round)."""
        steps, self._steps = self._steps, []
        if steps:
            await self._write(lambda: self.store.append_steps(self.run_id, steps),
                              f"run {self.run_id}'s steps")

    async def finish(self, *, status: str, usage: Usage, duration_ms: int, answer: str) -> None:
        """The run's end (Store.finish), after its steps."""
        await self.flush()
        await self._write(lambda: self.store.finish(
            self.run_id, status=status, usage=usage, duration_ms=duration_ms, answer=answer),
            f"run {self.run_id}'s end")

    async def _write(self, write: Write, what: str) -> None:
        if not self.saving:
            return
        if self.waiting:
            self.store.backlog.keep(write, what)
        else:
            self.waiting = not await retried(write, what, self.store.backlog)
