"""The course's figures from the store: each run's facts kept as it ends (`record`), the
questions refused (`refused`), and a scope's counts over a period in a few queries, each an
index range over the conversation's runs by start time (`runs_course`, or `runs_course_user`
for one asker's) and the primary keys of the facts' tables.

A scope is a conversation (a group's figures never hold a private chat's runs, which are
another conversation), or one asker in it (what a student sees). Forgotten runs take their
facts with them (ON DELETE CASCADE).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from bot.store.course_records import CourseCounts, Listed, RunFacts, RunLine
from bot.store.db import Db, Dialect
from bot.store.kinds import CourseMode, RefusalReason
from bot.store.records import Conversation, Scope

LISTED = 20
"""Runs each of the figures' lists names."""
MAX_LINES = 100_000
"""Runs one CSV holds at most (the oldest of the period first)."""
QUARTER = ("substr(r.started_at, 1, 13) AS hour,"
           " CAST(substr(r.started_at, 15, 2) AS INTEGER) / 15 AS quarter")
_TOOLS = {
    Dialect.SQLITE: "(SELECT group_concat(tool, ' ') FROM (SELECT tool FROM tool_calls"
                    " WHERE run_id = r.id ORDER BY seq))",
    Dialect.POSTGRES: "(SELECT string_agg(tool, ' ' ORDER BY seq) FROM tool_calls"
                      " WHERE run_id = r.id)",
}


class CourseStats:
    def __init__(self, db: Db) -> None:
        self.db = db

    # --- writing ---------------------------------------------------------------------

    async def record(self, run_id: int, facts: RunFacts) -> None:
        """Keep a run's facts (again: they replace what was kept); all or nothing. A run
        forgotten meanwhile takes none: the update finds no row (on PostgreSQL it waits for a
        deletion under way), and the row it updates stays locked until the facts are in."""
        async with self.db.transaction() as db:
            updated = await db.execute(
                "UPDATE runs SET course_mode = ?, rounds = ?, error_kind = ?, differs = ?,"
                " quiz_rounds = ?, quiz_right = ? WHERE id = ?",
                (facts.mode, facts.rounds, facts.error_kind,
                 None if facts.differs is None else int(facts.differs), len(facts.quiz),
                 sum(q.top_right for q in facts.quiz), run_id))
            if not updated:
                return
            await db.execute("DELETE FROM tool_calls WHERE run_id = ?", (run_id,))
            await db.execute("DELETE FROM quiz_rounds WHERE run_id = ?", (run_id,))
            if facts.tool_calls:
                await db.executemany(
                    "INSERT INTO tool_calls (run_id, seq, tool, ok, failure)"
                    " VALUES (?, ?, ?, ?, ?)",
                    [(run_id, i, c.tool, int(c.ok), c.failure)
                     for i, c in enumerate(facts.tool_calls)])
            if facts.quiz:
                await db.executemany(
                    "INSERT INTO quiz_rounds (run_id, round, voters, right_votes, top_right)"
                    " VALUES (?, ?, ?, ?, ?)",
                    [(run_id, q.round, q.voters, q.right_votes, int(q.top_right))
                     for q in facts.quiz])

    async def refused(self, conversation: Conversation, user_id: int | None,
                      reason: RefusalReason, at: datetime) -> None:
        """Count a question not started: one row per asker, reason and hour, so a stranger
        who keeps asking while refused adds a count, not a row."""
        await self.db.execute(
            "INSERT INTO refusals (conversation_kind, chat_id, user_id, reason, hour, times)"
            " VALUES (?, ?, ?, ?, ?, 1) ON CONFLICT (conversation_kind, chat_id, hour, user_id,"
            " reason) DO UPDATE SET times = refusals.times + 1",
            (conversation.kind, conversation.id, user_id or 0, reason, _hour(at)))

    async def unrecorded(self, scope: Scope, start: datetime, end: datetime,
                         most: int) -> list[tuple[int, int]]:
        """(id, n) of up to `most` ended runs in scope and period whose facts are not kept
        (ended before they were kept, or while the database was down)."""
        where, params = _where(scope, start, end)
        rows = await self.db.fetch(
            f"SELECT r.id, r.n FROM runs r {where} AND r.course_mode IS NULL"
            " AND r.status != 'running' ORDER BY r.id LIMIT ?", (*params, most))
        return [(row[0], row[1]) for row in rows]

    # --- reading ---------------------------------------------------------------------

    async def counts(self, scope: Scope, start: datetime, end: datetime) -> CourseCounts:
        """The scope's counts for runs started in [start, end)."""
        where, params = _where(scope, start, end)
        runs = await self.db.fetch(
            f"SELECT {QUARTER}, coalesce(r.course_mode, r.mode), count(*),"
            f" sum(r.total_tokens) FROM runs r {where} GROUP BY 1, 2, 3", params)
        endings = await self.db.fetch(
            f"SELECT r.status, coalesce(r.error_kind, ''), count(*) FROM runs r {where}"
            " GROUP BY 1, 2", params)
        tools = await self.db.fetch(
            "SELECT t.tool, count(*), sum(1 - t.ok) FROM runs r"
            f" JOIN tool_calls t ON t.run_id = r.id {where} GROUP BY 1 ORDER BY 2 DESC, 1",
            params)
        compare = await self.db.fetch(
            f"SELECT count(*), coalesce(sum(r.differs), 0) FROM runs r {where}"
            " AND r.course_mode = 'compare' AND r.differs IS NOT NULL", params)
        differing = await self.db.fetch(
            f"SELECT r.n, r.question FROM runs r {where} AND r.course_mode = 'compare'"
            " AND r.differs = 1 ORDER BY r.started_at DESC LIMIT ?", (*params, LISTED))
        quiz = await self.db.fetch(
            f"SELECT {QUARTER}, count(*), sum(q.top_right) FROM runs r"
            f" JOIN quiz_rounds q ON q.run_id = r.id {where} GROUP BY 1, 2", params)
        missed = await self.db.fetch(
            "SELECT r.n, r.question, q.round, q.right_votes, q.voters FROM runs r"
            f" JOIN quiz_rounds q ON q.run_id = r.id {where}"
            " ORDER BY CAST(q.right_votes AS REAL) / q.voters, r.started_at DESC, q.round"
            " LIMIT ?", (*params, LISTED))
        askers = await self.db.fetch(
            f"SELECT count(DISTINCT r.user_id) FROM runs r {where}", params)
        return CourseCounts(
            runs=tuple((_quarter(row[0], row[1]), CourseMode(row[2]), row[3], int(row[4]))
                       for row in runs),
            endings=tuple((row[0], row[1], row[2]) for row in endings),
            tools=tuple((row[0], row[1], int(row[2])) for row in tools),
            compared=compare[0][0], differed=int(compare[0][1]),
            differing=tuple(Listed(row[0], row[1]) for row in differing),
            quiz=tuple((_quarter(row[0], row[1]), row[2], int(row[3])) for row in quiz),
            missed=tuple(Listed(*row) for row in missed),
            refused=await self._refused(scope, start, end),
            askers=askers[0][0])

    async def lines(self, scope: Scope, start: datetime, end: datetime) -> list[RunLine]:
        """The period's runs in scope, oldest first (at most MAX_LINES), for the CSV."""
        where, params = _where(scope, start, end)
        rows = await self.db.fetch(
            "SELECT r.n, r.started_at, r.user_id, r.user_name,"
            f" coalesce(r.course_mode, r.mode), r.question, {_TOOLS[self.db.dialect]},"
            " r.status, coalesce(r.error_kind, ''), coalesce(r.rounds, 0), r.total_tokens,"
            " r.duration_ms, coalesce(r.quiz_rounds, 0), coalesce(r.quiz_right, 0)"
            f" FROM runs r {where} ORDER BY r.started_at, r.id LIMIT ?",
            (*params, MAX_LINES))
        return [RunLine(row[0], datetime.fromisoformat(row[1]), row[2], row[3], row[4],
                        row[5], tuple((row[6] or "").split()), row[7], row[8], row[9],
                        row[10], row[11], row[12], row[13]) for row in rows]

    async def _refused(self, scope: Scope, start: datetime, end: datetime) -> dict[str, int]:
        sql = ("SELECT reason, sum(times) FROM refusals WHERE conversation_kind = ?"
               " AND chat_id = ? AND hour >= ? AND hour < ?")
        params: tuple[Any, ...] = (scope.kind, scope.chat_id, _hour(start), _hour(end))
        if scope.user_id is not None:
            sql, params = sql + " AND user_id = ?", (*params, scope.user_id)
        rows = await self.db.fetch(sql + " GROUP BY reason", params)
        return {row[0]: int(row[1]) for row in rows}


def _where(scope: Scope, start: datetime, end: datetime) -> tuple[str, Sequence[Any]]:
    where = "WHERE r.conversation_kind = ? AND r.chat_id = ?"
    params: list[Any] = [scope.kind, scope.chat_id]
    if scope.user_id is not None:
        where += " AND r.user_id = ?"
        params.append(scope.user_id)
    return (where + " AND r.started_at >= ? AND r.started_at < ?",
            (*params, _iso(start), _iso(end)))


def _iso(moment: datetime) -> str:
    """As the store writes times (bot.store.transcripts): UTC, fixed width."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds")


def _hour(moment: datetime) -> str:
    """The UTC hour `moment` falls in, as text that sorts in time order ('2026-09-01T08')."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H")


def _quarter(hour: str, quarter: int) -> datetime:
    return datetime.fromisoformat(hour + ":00+00:00") + timedelta(minutes=15 * quarter)
