"""A course's figures for a scope and a period, as every front end asks for them: the store's
counts, laid out by day. The facts of runs that never had them kept (ended before Glassbox
kept them, or while the database was down, or copied from another database) are made from
their stored steps in the background as the services open (`fill`), so no request waits
for them; until then the counts take such a run as stored (its mode, ending and tokens)."""

from __future__ import annotations

import asyncio
import logging

from bot.course.course_figures import CourseFigures, course_figures
from bot.course.facts import facts_of
from bot.course.period import Period
from bot.store.course_records import RunLine
from bot.store.db import StoreUnavailable
from bot.store.records import Scope
from bot.store.transcripts import Store
from bot.view.transcript import replay

log = logging.getLogger(__name__)
FILL_BATCH = 200
"""Runs whose facts are made at a time from their steps."""


class Course:
    def __init__(self, store: Store, budget: int | None) -> None:
        self.store, self.budget = store, budget

    async def figures(self, scope: Scope, period: Period) -> CourseFigures:
        counts = await self.store.course.counts(scope, *period.bounds(), period.zone)
        return course_figures(counts, period, self.budget)

    async def lines(self, scope: Scope, period: Period) -> list[RunLine]:
        return await self.store.course.lines(scope, *period.bounds())

    async def fill(self) -> int:
        """Keep the facts of every ended run that has none, from its steps; how many. Each
        run is a short turn of the event loop between reads, so answers go on meanwhile."""
        filled = last = 0
        while missing := await self.store.course.unkept(last, FILL_BATCH):
            last = missing[-1]
            for run_id in missing:
                record = await self.store.by_id(run_id)
                if record is None:  # forgotten meanwhile
                    continue
                try:
                    facts = facts_of(replay(record, await self.store.events(run_id), "en"))
                except Exception:  # one old run that cannot be read stops none after it
                    log.exception("run %s: its course facts could not be made", run_id)
                    continue
                await self.store.course.record(run_id, facts)
                filled += 1
                await asyncio.sleep(0)
        if filled:
            log.info("the course facts of %d earlier runs were made from their steps", filled)
        return filled

    async def fill_in_background(self) -> None:
        """`fill`, for a task of its own: a database down at start leaves the facts to the
        next start (the counts take those runs as stored meanwhile)."""
        try:
            await self.fill()
        except StoreUnavailable as err:
            log.warning("the course facts of earlier runs wait for the next start: %s", err)
