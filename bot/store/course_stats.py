"""The course's figures from the store: each run's facts kept as it ends (`record`), the
questions refused (`refused`), and a scope's counts over a period in a few queries.

A class's counts add up the tallies triggers keep per quarter hour (bot/store/tallies.py),
and read one by one only the runs whose facts are not kept yet (an index of their own);
a student's read their own runs by an index of conversation, asker and start time, which
carries what is counted of a run. A scope is a conversation (a group's figures never hold
a private chat's runs, which are another conversation), or one asker in it. Forgotten runs
take their facts and their tallies with them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from bot.store.course_records import CourseCounts, Listed, RunFacts, RunLine
from bot.store.db import Db
from bot.store.kinds import CourseMode, RefusalReason
from bot.store.records import Conversation, Scope
from bot.store.tallies import RUNS, TOOL_CALLS, Tally, quarter_hour

LISTED = 20
"""Runs each of the figures' lists names."""
MAX_LINES = 100_000
"""Runs one CSV holds at most (the oldest of the period first)."""
_RUN_KEYS = "conversation_kind, chat_id, user_id, started_at"
"""What a tool call and a quiz round carry of their run, to be counted by index alone."""
_KEEP = ("UPDATE runs SET course_mode = ?, rounds = ?, error_kind = ?, differs = ?,"
         " quiz_rounds = ?, quiz_right = ? WHERE id = ?")
"""A run's facts into its row."""
BUCKET = {False: "substr(at, 1, 13)", True: "at"}
"""Of a quarter hour `at` ('2026-09-01T16:45'): its UTC hour ('2026-09-01T16'), or itself."""
_PER_RUN = (
    f"SELECT {quarter_hour('r.started_at')} AS at, coalesce(r.course_mode, r.mode) AS course_mode,"
    " r.status, coalesce(r.error_kind, '') AS error_kind, 1 AS runs,"
    " CASE WHEN r.differs IS NULL THEN 0 ELSE 1 END AS compared,"
    " coalesce(r.differs, 0) AS differed, r.total_tokens AS tokens,"
    " coalesce(r.quiz_rounds, 0) AS quiz_rounds, coalesce(r.quiz_right, 0) AS quiz_right"
    " FROM runs r")
"""A run as a tally of its own (bot/store/tallies.RUNS), for the runs the tallies do not
hold or a scope they do not key (an asker)."""


class CourseStats:
    def __init__(self, db: Db) -> None:
        self.db = db

    # --- writing ---------------------------------------------------------------------

    async def record(self, run_id: int, facts: RunFacts) -> None:
        """Keep a run's facts (again: they replace what was kept); all or nothing. A run
        forgotten meanwhile takes none: the update finds no row (on PostgreSQL it waits for a
        deletion under way), and the row it updates stays locked until the facts are in."""
        kept = (facts.mode, facts.rounds, facts.error_kind,
                None if facts.differs is None else int(facts.differs), len(facts.quiz),
                sum(q.top_right for q in facts.quiz), run_id)
        async with self.db.transaction() as db:
            # Kept the first time (as each run's end does), it has no earlier rows to replace:
            # two statements fewer, each a call to SQLite's thread.
            if not await db.execute(_KEEP + " AND course_mode IS NULL", kept):
                if not await db.execute(_KEEP, kept):
                    return
                await db.execute("DELETE FROM tool_calls WHERE run_id = ?", (run_id,))
                await db.execute("DELETE FROM quiz_rounds WHERE run_id = ?", (run_id,))
            if facts.tool_calls:
                await db.executemany(
                    f"INSERT INTO tool_calls (run_id, seq, {_RUN_KEYS}, tool, ok, failure)"
                    f" SELECT id, ?, {_RUN_KEYS}, ?, ?, ? FROM runs WHERE id = ?",
                    # in the tools' order: each takes its tally's row lock, and runs
                    # ending at once take them in one order (no deadlock on PostgreSQL)
                    sorted(((i, c.tool, int(c.ok), c.failure, run_id)
                            for i, c in enumerate(facts.tool_calls)), key=lambda c: c[1]))
            if facts.quiz:
                await db.executemany(
                    f"INSERT INTO quiz_rounds (run_id, round, {_RUN_KEYS}, voters, right_votes,"
                    f" top_right) SELECT id, ?, {_RUN_KEYS}, ?, ?, ? FROM runs WHERE id = ?",
                    [(q.round, q.voters, q.right_votes, int(q.top_right), run_id)
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

    async def unkept(self, after: int, most: int) -> list[int]:
        """The ids after `after` of up to `most` ended runs whose facts are not kept (ended
        before they were kept, or while the database was down, or copied from another
        database), in order."""
        rows = await self.db.fetch(
            "SELECT r.id FROM runs r WHERE r.course_mode IS NULL AND r.status != 'running'"
            f" {NOT_ASKED} AND r.id > ? ORDER BY r.id LIMIT ?", (after, most))
        return [row[0] for row in rows]

    # --- reading ---------------------------------------------------------------------

    async def counts(self, scope: Scope, start: datetime, end: datetime,
                     zone: str) -> CourseCounts:
        """The scope's counts for runs started in [start, end), by day in time zone `zone`:
        summed in SQL by the UTC hour (or quarter hour, in a zone whose offset is not whole
        hours) and mode, each hour then the zone's day; and by ending over the period."""
        where, params = _where(scope, start, end)
        bucket = BUCKET[_quartered(start, end, zone)]
        source, source_params = self._runs(scope, start, end)
        by_day = await self.db.fetch(
            f"SELECT {bucket}, course_mode, sum(runs), sum(tokens), sum(quiz_rounds),"
            f" sum(quiz_right) FROM ({source}) s GROUP BY 1, 2", source_params)
        by_end = await self.db.fetch(
            "SELECT course_mode, status, error_kind, sum(runs), sum(compared), sum(differed)"
            f" FROM ({source}) s GROUP BY 1, 2, 3", source_params)
        tools = await self.db.fetch(*self._tools(scope, start, end))
        differing = await self.db.fetch(
            f"SELECT r.n, r.question FROM runs r {where} AND r.course_mode = 'compare'"
            " AND r.differs = 1 ORDER BY r.started_at DESC LIMIT ?", (*params, LISTED))
        missed = await self.db.fetch(
            "SELECT runs.n, runs.question, q.round, q.right_votes, q.voters FROM"
            " (SELECT r.run_id, r.round, r.right_votes, r.voters, r.started_at"
            f" FROM quiz_rounds r {where}"
            " ORDER BY CAST(r.right_votes AS REAL) / r.voters, r.started_at DESC, r.round"
            " LIMIT ?) q JOIN runs ON runs.id = q.run_id"
            " ORDER BY CAST(q.right_votes AS REAL) / q.voters, q.started_at DESC, q.round",
            (*params, LISTED))
        day = _days(ZoneInfo(zone))
        per_day: dict[tuple[date, CourseMode], list[int]] = {}
        quiz_days: dict[date, list[int]] = {}
        for when, mode, n, used, rounds, right in by_day:
            tally = per_day.setdefault((day(when), CourseMode(mode)), [0, 0])
            tally[0] += n
            tally[1] += used
            if rounds:
                quiz = quiz_days.setdefault(day(when), [0, 0])
                quiz[0] += rounds
                quiz[1] += right
        endings: dict[tuple[str, str], int] = {}
        compared = differed = 0
        for mode, status, kind, n, compares, differs in by_end:
            endings[status, kind] = endings.get((status, kind), 0) + n
            if mode == CourseMode.COMPARE:
                compared += compares
                differed += differs
        return CourseCounts(
            runs=tuple((d, m, int(n), int(used))
                       for (d, m), (n, used) in sorted(per_day.items())),
            endings=tuple((status, kind, int(n)) for (status, kind), n in endings.items()),
            tools=tuple((row[0], int(row[1]), int(row[2])) for row in tools),
            compared=int(compared), differed=int(differed),
            differing=tuple(Listed(row[0], row[1]) for row in differing),
            quiz=tuple((d, int(rounds), int(right))
                       for d, (rounds, right) in sorted(quiz_days.items())),
            missed=tuple(Listed(*row) for row in missed),
            refused=await self._refused(scope, start, end),
            askers=await self._askers(scope, start, end))

    async def lines(self, scope: Scope, start: datetime, end: datetime) -> list[RunLine]:
        """The period's runs in scope, oldest first (at most MAX_LINES), for the CSV: the
        runs, then their tool calls in one read (not one lookup per run)."""
        where, params = _where(scope, start, end)
        rows = await self.db.fetch(
            "SELECT r.id, r.n, r.started_at, r.user_id, r.user_name,"
            " coalesce(r.course_mode, r.mode), r.question, r.status,"
            " coalesce(r.error_kind, ''), coalesce(r.rounds, 0), r.total_tokens,"
            " r.duration_ms, coalesce(r.quiz_rounds, 0), coalesce(r.quiz_right, 0)"
            f" FROM runs r {where} {NOT_ASKED} ORDER BY r.started_at, r.id LIMIT ?",
            (*params, MAX_LINES))
        tools: dict[int, list[str]] = {}
        for run_id, tool in await self.db.fetch(
                f"SELECT r.run_id, r.tool FROM tool_calls r {where} ORDER BY r.run_id, r.seq",
                params):
            tools.setdefault(run_id, []).append(tool)
        return [RunLine(row[1], datetime.fromisoformat(row[2]), row[3], row[4], row[5],
                        row[6], tuple(tools.get(row[0], ())), *tuple(row)[7:]) for row in rows]

    @staticmethod
    def _runs(scope: Scope, start: datetime, end: datetime) -> tuple[str, Sequence[Any]]:
        """SQL of the scope's runs in [start, end) as tallies (bot/store/tallies.RUNS): a
        class's kept tallies and its runs whose facts are not, or an asker's runs."""
        where, params = _where(scope, start, end)
        if scope.user_id is not None:
            return f"{_PER_RUN} {where} {NOT_ASKED}", params
        tallies, tally_params = _tallies(RUNS, scope, start, end)
        return (f"{tallies} UNION ALL {_PER_RUN} {where} AND r.course_mode IS NULL"
                f" {NOT_ASKED}", (*tally_params, *params))

    @staticmethod
    def _tools(scope: Scope, start: datetime, end: datetime) -> tuple[str, Sequence[Any]]:
        """SQL of (tool, calls, failed) in the scope and period, most called first."""
        if scope.user_id is None:
            source, params = _tallies(TOOL_CALLS, scope, start, end)
        else:
            where, params = _where(scope, start, end)
            source = f"SELECT r.tool, 1 AS calls, 1 - r.ok AS failed FROM tool_calls r {where}"
        return (f"SELECT tool, sum(calls), sum(failed) FROM ({source}) s"
                " GROUP BY 1 ORDER BY 2 DESC, 1", params)

    async def _askers(self, scope: Scope, start: datetime, end: datetime) -> int:
        """How many asked in the scope and period: each asker the conversation ever had is
        found by one step along the index by asker (a handful, where counting distinct
        askers over the period's runs reads every run), then asked for a run in the period."""
        where, params = _where(scope, start, end)
        keys = "r.conversation_kind = ? AND r.chat_id = ?"
        key_params: tuple[Any, ...] = (scope.kind, scope.chat_id)
        if scope.user_id is not None:
            keys, key_params = keys + " AND r.user_id = ?", (*key_params, scope.user_id)
        rows = await self.db.fetch(
            f"WITH RECURSIVE asker (id) AS (SELECT min(r.user_id) FROM runs r WHERE {keys}"
            f" UNION ALL SELECT (SELECT min(r.user_id) FROM runs r WHERE {keys}"
            " AND r.user_id > asker.id) FROM asker WHERE asker.id IS NOT NULL)"
            " SELECT count(*) FROM asker WHERE asker.id IS NOT NULL AND EXISTS"
            f" (SELECT 1 FROM runs r {where} AND r.user_id = asker.id {NOT_ASKED})",
            (*key_params, *key_params, *params))
        return int(rows[0][0])

    async def _refused(self, scope: Scope, start: datetime, end: datetime) -> dict[str, int]:
        sql = ("SELECT reason, sum(times) FROM refusals WHERE conversation_kind = ?"
               " AND chat_id = ? AND hour >= ? AND hour < ?")
        params: tuple[Any, ...] = (scope.kind, scope.chat_id, _hour(start), _hour(end))
        if scope.user_id is not None:
            sql, params = sql + " AND user_id = ?", (*params, scope.user_id)
        rows = await self.db.fetch(sql + " GROUP BY reason", params)
        return {row[0]: int(row[1]) for row in rows}


NOT_ASKED = "AND r.mode != 'runs'"
"""A comparison of stored runs asks no model: it is no question of the course's."""


def _where(scope: Scope, start: datetime, end: datetime) -> tuple[str, Sequence[Any]]:
    where = "WHERE r.conversation_kind = ? AND r.chat_id = ?"
    params: list[Any] = [scope.kind, scope.chat_id]
    if scope.user_id is not None:
        where += " AND r.user_id = ?"
        params.append(scope.user_id)
    return (where + " AND r.started_at >= ? AND r.started_at < ?",
            (*params, _iso(start), _iso(end)))


def _tallies(tally: Tally, scope: Scope, start: datetime,
             end: datetime) -> tuple[str, Sequence[Any]]:
    """SQL of a conversation's tallies of the quarter hours in [start, end) (bounds the
    period's midnights, so whole quarter hours)."""
    return (f"SELECT quarter_hour AS at, {', '.join(tally.columns)} FROM {tally.table}"
            " WHERE conversation_kind = ? AND chat_id = ? AND quarter_hour >= ?"
            " AND quarter_hour < ?", (scope.kind, scope.chat_id, _quarter(start), _quarter(end)))


def _quarter(moment: datetime) -> str:
    """The UTC quarter hour `moment` falls in, as the tallies key it ('2026-09-01T16:45')."""
    utc = moment.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:") + f"{utc.minute // 15 * 15:02d}"


def _iso(moment: datetime) -> str:
    """As the store writes times (bot.store.transcripts): UTC, fixed width."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds")


def _hour(moment: datetime) -> str:
    """The UTC hour `moment` falls in, as text that sorts in time order ('2026-09-01T08')."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H")


def _quartered(start: datetime, end: datetime, zone: str) -> bool:
    """Whether the zone's offset from UTC is not whole hours at some time of [start, end)
    (India's +5:30, Nepal's +5:45, Lord Howe's summer time): then runs are counted by
    quarter hour, else by hour. Looked at every 6 hours: no offset lasts less."""
    tz = ZoneInfo(zone)
    at = start
    while at < end:
        offset = at.astimezone(tz).utcoffset()
        if offset is not None and offset.total_seconds() % 3600:
            return True
        at += timedelta(hours=6)
    return False


def _days(tz: ZoneInfo) -> Callable[[str], date]:
    """The zone's day of a bucket: its text ('2026-09-01T16', or with ':30' after it) is
    the start of a UTC hour or quarter hour, and a whole bucket falls on one local day."""
    known: dict[str, date] = {}

    def day(bucket: str) -> date:
        if bucket not in known:
            moment = datetime.fromisoformat(bucket + (":00" if len(bucket) == 13 else "")
                                            + "+00:00")
            known[bucket] = moment.astimezone(tz).date()
        return known[bucket]

    return day
