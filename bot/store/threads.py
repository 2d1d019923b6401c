"""A reply thread as the store knows it: the runs a follow-up continues, oldest first, and
the summaries of their older turns (kept per thread, so they are not made again)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime

import aiosqlite

from bot.store.chat_settings import Transaction
from bot.store.records import RunRecord

ById = Callable[[int], Awaitable[RunRecord | None]]
MAX_THREAD_RUNS = 100
"""A thread longer than this is read back to its last this many runs."""


class ThreadsTable:
    """Threads through the Store's connection and transactions."""

    def __init__(self, db: aiosqlite.Connection, transaction: Transaction,
                 by_id: ById) -> None:
        self._db, self._transaction, self._by_id = db, transaction, by_id

    async def runs(self, last: RunRecord) -> list[RunRecord]:
        """The thread ending with `last` (its parents, then it), oldest first."""
        found = [last]
        while found[-1].parent_id is not None and len(found) < MAX_THREAD_RUNS:
            parent = await self._by_id(found[-1].parent_id)
            if parent is None or parent.chat_id != last.chat_id:
                break
            found.append(parent)
        return found[::-1]

    async def summaries(self, run_ids: Sequence[int]) -> dict[int, str]:
        """The summaries kept for any of these runs, by the newest run each covers."""
        if not run_ids:
            return {}
        marks = ", ".join("?" * len(run_ids))
        rows = await self._db.execute_fetchall(
            f"SELECT run_id, summary FROM thread_summaries WHERE run_id IN ({marks})",
            tuple(run_ids))
        return {row[0]: row[1] for row in rows}

    async def keep_summary(self, run_id: int, summary: str) -> None:
        async with self._transaction() as db:
            await db.execute(
                "INSERT OR REPLACE INTO thread_summaries (run_id, summary, made_at)"
                " VALUES (?, ?, ?)", (run_id, summary, datetime.now(UTC).isoformat()))
