"""A course's figures for a scope and a period, as every front end asks for them: the runs
whose facts were never kept (ended before Glassbox kept them, or while the database was
down) get them first, from their stored steps; then the store's counts, laid out by day."""

from __future__ import annotations

import logging

from bot.course.course_figures import CourseFigures, course_figures
from bot.course.facts import facts_of
from bot.course.period import Period
from bot.store.course_records import RunLine
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
        await self.fill(scope, period)
        counts = await self.store.course.counts(scope, *period.bounds(), period.zone)
        return course_figures(counts, period, self.budget)

    async def lines(self, scope: Scope, period: Period) -> list[RunLine]:
        await self.fill(scope, period)
        return await self.store.course.lines(scope, *period.bounds())

    async def fill(self, scope: Scope, period: Period) -> int:
        """Keep the facts of the period's ended runs that have none; how many."""
        filled = 0
        while missing := await self.store.course.unrecorded(scope, *period.bounds(),
                                                            FILL_BATCH):
            for run_id, _ in missing:
                record = await self.store.by_id(run_id)
                if record is None:  # forgotten meanwhile
                    continue
                view = replay(record, await self.store.events(run_id), "en")
                await self.store.course.record(run_id, facts_of(view))
                filled += 1
        if filled:
            log.info("the facts of %d earlier runs were made from their steps", filled)
        return filled
