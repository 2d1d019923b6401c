"""A reply thread as the store knows it: the runs a follow-up continues, oldest first, and
the summaries of their older turns (kept per thread, so they are not made again)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from bot.store.db import Db
from bot.store.records import RunRecord

Many = Callable[[str, Sequence[Any]], Awaitable[list[RunRecord]]]
"""The Store's run reader: the runs a tail (joins, WHERE, ORDER BY) selects."""
MAX_THREAD_RUNS = 100
"""A thread longer than this is read back to its last this many runs."""

_PARENTS = """
    JOIN (
        WITH RECURSIVE up(id, parent_id, depth) AS (
            SELECT id, parent_id, 1 FROM runs WHERE id = ? AND conversation_kind = ? AND chat_id = ?
            UNION ALL
            SELECT runs.id, runs.parent_id, up.depth + 1 FROM runs JOIN up ON runs.id = up.parent_id
            WHERE runs.conversation_kind = ? AND runs.chat_id = ? AND up.depth < ?
        ) SELECT id, depth FROM up
    ) AS thread ON thread.id = runs.id
    ORDER BY thread.depth DESC"""
"""A run's parents in its own conversation, up to a depth, oldest first: one query however
long the thread (the walk stops at a parent that is gone or in another conversation)."""


class ThreadsTable:
    """Threads, in the Store's database."""

    def __init__(self, db: Db, many: Many) -> None:
        self._db, self._many = db, many

    async def runs(self, last: RunRecord) -> list[RunRecord]:
        """The thread ending with `last` (its parents, then it), oldest first."""
        if last.parent_id is None:
            return [last]
        parents = await self._many(_PARENTS, (last.parent_id, last.kind, last.chat_id,
                                              last.kind, last.chat_id, MAX_THREAD_RUNS - 1))
        return [*parents, last]

    async def summaries(self, run_ids: Sequence[int]) -> dict[int, str]:
        """The summaries kept for any of these runs, by the newest run each covers."""
        if not run_ids:
            return {}
        marks = ", ".join("?" * len(run_ids))
        rows = await self._db.fetch(
            f"SELECT run_id, summary FROM thread_summaries WHERE run_id IN ({marks})",
            tuple(run_ids))
        return {row[0]: row[1] for row in rows}

    async def keep_summary(self, run_id: int, summary: str) -> None:
        await self._db.execute(
            "INSERT INTO thread_summaries (run_id, summary, made_at) VALUES (?, ?, ?)"
            " ON CONFLICT (run_id) DO UPDATE SET summary = excluded.summary,"
            " made_at = excluded.made_at", (run_id, summary, datetime.now(UTC).isoformat()))
