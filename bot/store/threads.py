"""A reply thread as the store knows it: the runs a follow-up continues, oldest first, and
the summaries of their older turns (kept per thread, so they are not made again)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Sequence
from datetime import UTC, datetime
from typing import Any

from bot.store.db import Db, Dialect
from bot.store.records import RunRecord

Many = Callable[[str, Sequence[Any]], Awaitable[list[RunRecord]]]
"""The Store's run reader: the runs a tail (joins, WHERE, ORDER BY) selects."""
MAX_THREAD_RUNS = 100
"""A thread longer than this is read back to its last this many runs."""

_THREAD = """
    JOIN (
        WITH RECURSIVE up(id, parent_id, depth) AS (
            SELECT id, parent_id, 1 FROM runs WHERE id = ? AND conversation_kind = ? AND chat_id = ?
            UNION ALL
            SELECT runs.id, runs.parent_id, up.depth + 1 FROM runs JOIN up ON runs.id = up.parent_id
            WHERE runs.conversation_kind = ? AND runs.chat_id = ? AND up.depth < ?
        ) SELECT id, depth FROM up
    ) AS thread ON thread.id = runs.id
    ORDER BY thread.depth DESC"""
"""A run and its parents in its own conversation, up to a depth, oldest first: one query
however long the thread (the walk stops at a parent that is gone or in another
conversation)."""


class ThreadsTable:
    """Threads, in the Store's database."""

    def __init__(self, db: Db, many: Many) -> None:
        self._db, self._many = db, many

    async def runs(self, last: RunRecord) -> list[RunRecord]:
        """The thread ending with `last` (its parents, then it), oldest first, as stored
        now: none if `last` was deleted."""
        return await self._many(_THREAD, (last.id, last.kind, last.chat_id, last.kind,
                                          last.chat_id, MAX_THREAD_RUNS))

    async def summaries(self, run_ids: Sequence[int]) -> dict[int, str]:
        """The summaries kept for any of these runs, by the newest run each covers."""
        if not run_ids:
            return {}
        marks = ", ".join("?" * len(run_ids))
        rows = await self._db.fetch(
            f"SELECT run_id, summary FROM thread_summaries WHERE run_id IN ({marks})",
            tuple(run_ids))
        return {row[0]: row[1] for row in rows}

    async def present(self, run_ids: Collection[int]) -> bool:
        """Whether all these runs are still stored."""
        if not run_ids:
            return True
        return len(await self._db.fetch(_present(run_ids), tuple(run_ids))) == len(run_ids)

    async def keep_summary(self, run_id: int, summary: str, made_from: Collection[int]) -> bool:
        """Keep `summary` under `run_id`, the newest run it covers, unless a run of
        `made_from` (the runs whose text it holds) was deleted since they were read: then
        nothing is kept, and False. The runs stay locked against deletion until the summary
        is in (bot/store/forgetting.py takes the same locks, in the same order)."""
        lock = " FOR KEY SHARE" if self._db.dialect is Dialect.POSTGRES else ""
        async with self._db.transaction() as conn:
            held = await conn.fetch(_present(made_from) + lock, tuple(made_from))
            if len(held) < len(made_from):
                return False
            await conn.execute(
                "INSERT INTO thread_summaries (run_id, summary, made_at) VALUES (?, ?, ?)"
                " ON CONFLICT (run_id) DO UPDATE SET summary = excluded.summary,"
                " made_at = excluded.made_at", (run_id, summary, datetime.now(UTC).isoformat()))
        return True


def _present(run_ids: Collection[int]) -> str:
    return (f"SELECT id FROM runs WHERE id IN ({', '.join('?' * len(run_ids))})"
            " ORDER BY id")
