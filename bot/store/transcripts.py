"""Transcripts: every run and each of its steps, written the moment it arrives, in SQLite
or PostgreSQL (bot/store/db.py; the rest of the bot cannot tell which).

Each write is its own committed transaction; a run's steps come a round at a time (see
bot/store/round_writer.py), one statement each, so a crash or restart loses at most the round in
flight. The agent knows nothing of this: the bot hands over what the agent yields.

A conversation is keyed by what it is and its id among its kind (`conversation_kind`,
`chat_id`: a Telegram chat, an HTTP API token's scope). A `Scope` decides what a caller may
see or delete: `Scope(chat_id)` is everything in a Telegram group; `Scope(chat_id, user_id)`
only that user's runs there (a private chat, or a group member who is not an admin
forgetting a run). Run numbers `n` count per conversation, from 1, and are never reused, so
`/show 12` means the same run for as long as it exists.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from agent.events import Delta, Event, Usage
from bot.store.api_sessions import ApiSessions
from bot.store.backlog import Backlog
from bot.store.boards import Boards
from bot.store.chat_settings import ChatSettingsTable
from bot.store.course_stats import CourseStats
from bot.store.db import (
    DEFAULT_POOL_SIZE,
    DatabaseUnreachable,
    Db,
    Dialect,
    PostgresDb,
    SqliteDb,
    described,
    open_db,
    words_of,
)
from bot.store.endpoints import EndpointsTable
from bot.store.forgetting import delete_runs
from bot.store.kinds import ConversationKind
from bot.store.migrations import migrate
from bot.store.pg_migrations import migrate_pg
from bot.store.photos import PhotosTable
from bot.store.records import (
    FINAL_STATUSES,
    LANES,
    MODES,
    Conversation,
    HistoryPage,
    RunRecord,
    Scope,
    event_from_row,
    record_from_row,
)
from bot.store.threads import ThreadsTable

log = logging.getLogger(__name__)
MAX_SEARCH_WORDS = 12
"""Words one /history search looks for; the rest of a longer keyword is left out."""
PRUNE_BATCH = 500
"""Runs the retention sweep deletes in one transaction."""

_RUN_COLUMNS = {
    Dialect.SQLITE: """
    SELECT runs.*, (
        SELECT json_group_array(message_id) FROM (
            SELECT message_id FROM run_messages WHERE run_id = runs.id ORDER BY message_id)
    ) AS message_ids
    FROM runs""",
    Dialect.POSTGRES: """
    SELECT runs.*, (
        SELECT coalesce(json_agg(message_id ORDER BY message_id), '[]')::text
        FROM run_messages WHERE run_id = runs.id
    ) AS message_ids
    FROM runs""",
}


_INTO_STEPS = "INSERT INTO steps (run_id, lane, payload, created_at)"
INSERT_STEP = _INTO_STEPS + " SELECT id, ?, ?, ? FROM runs WHERE id = ?"
"""Stores one step (`step_row`'s values); a run that is gone takes none. (A run's steps
go in several at a time, in one statement: `Store.append_steps`.)"""


def step_row(run_id: int, event: Event, lane: str) -> tuple[Any, ...]:
    """INSERT_STEP's values for `event`, a step of run `run_id`: its lane, its `to_dict()`
    JSON (the step's one representation, read back by `event_from_row`), when it came."""
    return (lane, json.dumps(event.to_dict(), ensure_ascii=False), _now(), run_id)


class Store:
    def __init__(self, db: Db) -> None:
        self.db = db
        self.chats = ChatSettingsTable(db)
        """Each chat's own settings (/settings)."""
        self.threads = ThreadsTable(db, self._many)
        """Reply threads and the summaries of their older turns."""
        self.boards = Boards(db)
        """Each Telegram chat's class-board link."""
        self.api = ApiSessions(db, self._many)
        """The HTTP API's token scopes and sessions."""
        self.endpoints = EndpointsTable(db)
        """What auto mode learned about each model endpoint."""
        self.course = CourseStats(db)
        """The course's figures: each run's facts, the refused questions, their counts."""
        self.backlog = Backlog()
        """Writes of runs that wait for the database to answer again."""
        self.photos = PhotosTable(db)
        """The photos runs were asked about, downscaled."""

    @property
    def path(self) -> Path | None:
        """The SQLite file; None on PostgreSQL."""
        return self.db.path if isinstance(self.db, SqliteDb) else None

    @classmethod
    async def open(cls, where: Path | str, *, pool_size: int = DEFAULT_POOL_SIZE) -> Store:
        """Open (or create) the database and bring its schema up to date: the SQLite file at
        a path, or the PostgreSQL database of a `postgresql://` URL with at most `pool_size`
        connections (db.DatabaseUnreachable, in words without the password, when either
        fails)."""
        db = await open_db(where, pool_size=pool_size)
        try:
            if isinstance(db, PostgresDb):
                await migrate_pg(db.pool)
            else:
                await migrate(db.raw)
        except Exception as err:
            await db.close()
            raise DatabaseUnreachable(f"cannot set up the tables of {described(where)} "
                                      f"({words_of(err, where)})") from None
        except BaseException:
            await db.close()
            raise
        return cls(db)

    async def close(self) -> None:
        await self.backlog.close()
        await self.db.close()

    async def readable(self) -> bool:
        """Whether the database answers a read now (for /healthz); never raises."""
        try:
            await asyncio.wait_for(
                self.db.fetch("SELECT count(*) FROM transcript_migrations"), 5)
        except Exception:
            return False
        return True

    # --- writing a run -------------------------------------------------------------

    async def start_run(
        self,
        *,
        chat_id: int,
        user_id: int | None,
        user_name: str,
        mode: str,
        question: str,
        model: str,
        parent_id: int | None = None,
        kind: ConversationKind = ConversationKind.TELEGRAM,
    ) -> RunRecord:
        """Record a new run as `running`, numbered next in its conversation (`kind`,
        `chat_id`). Two statements, two calls to the database's thread (each call waits for
        a turn of a busy event loop): the number first, so a crash between them leaves a
        gap, never a number used twice. `user_id`: None for an API token's run; a
        `parent_id` deleted meanwhile (/forget) is left out: the run starts a thread."""
        _check(mode, MODES, "mode")
        async with self.db.session() as db:
            rows = await db.fetch(
                "INSERT INTO chat_counters (conversation_kind, chat_id, last_n) VALUES (?, ?, 1)"
                " ON CONFLICT (conversation_kind, chat_id) DO UPDATE"
                " SET last_n = chat_counters.last_n + 1 RETURNING last_n",
                (kind, chat_id),
            )
            n = next(iter(rows))[0]
            rows = await db.fetch(
                "INSERT INTO runs (conversation_kind, chat_id, n, user_id, user_name, mode,"
                " question, model, started_at, parent_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?,"
                " (SELECT id FROM runs WHERE id = ?))"
                " RETURNING *, '[]' AS message_ids",
                (kind, chat_id, n, user_id, user_name, mode, question, model, _now(),
                 parent_id),
            )
        return record_from_row(next(iter(rows)))

    async def append(self, run_id: int, event: Event, lane: str = "main") -> None:
        """Store one step now (see `append_steps`)."""
        await self.append_steps(run_id, [(lane, event)])

    async def append_steps(self, run_id: int, steps: Sequence[tuple[str, Event]]) -> None:
        """Store (lane, event) steps in order, in one statement: one call to the database's
        thread, all of them or none. Deltas are skipped (the Thought and the Answer hold the
        text); a run forgotten while it runs takes no more steps."""
        for lane, _ in steps:
            _check(lane, LANES, "lane")
        rows = [step_row(run_id, event, lane) for lane, event in steps
                if not isinstance(event, Delta)]
        if not rows:
            return
        if self.db.dialect is Dialect.POSTGRES:  # typed parameters: one pipelined batch
            await self.db.executemany(INSERT_STEP, rows)
            return
        values = ", ".join(["(?, ?, ?, ?)"] * len(rows))
        await self.db.execute(
            _INTO_STEPS + " SELECT v.column4, v.column1, v.column2, v.column3"
            f" FROM (VALUES {values}) AS v"
            " WHERE EXISTS (SELECT 1 FROM runs WHERE runs.id = v.column4)",
            [value for row in rows for value in row],
        )

    async def finish(
        self, run_id: int, *, status: str, usage: Usage, duration_ms: int, answer: str
    ) -> None:
        """Close a run; `answer` (all lanes' answers for a compare) becomes searchable."""
        _check(status, FINAL_STATUSES, "status")
        await self.db.execute(
            "UPDATE runs SET status = ?, ended_at = ?, duration_ms = ?, prompt_tokens = ?,"
            " completion_tokens = ?, total_tokens = ?, answer = ? WHERE id = ?",
            (status, _now(), duration_ms, usage.prompt_tokens, usage.completion_tokens,
             usage.total_tokens, answer, run_id),
        )

    async def add_sources(self, run_id: int, sources: Sequence[int]) -> None:
        """Remember the runs a comparison was copied from: forgetting one forgets it."""
        await self.db.executemany(
            "INSERT INTO run_sources (run_id, source_id) SELECT ?, id FROM runs WHERE id = ?",
            [(run_id, source) for source in sources])

    async def add_message_ids(self, run_id: int, ids: Sequence[int]) -> None:
        """Remember the Telegram messages showing a run, so a reply to one continues it
        (while the database is down, a reply to them starts a new thread)."""
        if not ids or run_id <= 0:
            return
        if self.db.dialect is Dialect.POSTGRES:
            await self.db.execute(
                "INSERT INTO run_messages (run_id, message_id) SELECT id, unnest(?::bigint[])"
                " FROM runs WHERE id = ? ON CONFLICT DO NOTHING", (list(ids), run_id))
            return
        await self.db.execute(
            "INSERT OR IGNORE INTO run_messages (run_id, message_id)"
            f" SELECT ?, v.column1 FROM (VALUES {', '.join(['(?)'] * len(ids))}) AS v"
            " WHERE EXISTS (SELECT 1 FROM runs WHERE id = ?)",
            [run_id, *ids, run_id],
        )

    async def interrupt_running(self) -> list[RunRecord]:
        """At start-up: mark runs left `running` by a crash or restart as `interrupted`."""
        async with self.db.transaction() as db:
            rows = await db.fetch(
                "UPDATE runs SET status = 'interrupted' WHERE status = 'running' RETURNING id")
        ids = [row[0] for row in rows]
        if not ids:
            return []
        marks = ", ".join("?" * len(ids))
        return await self._many(f"WHERE runs.id IN ({marks}) ORDER BY runs.id", ids)

    # --- reading -------------------------------------------------------------------

    async def by_id(self, run_id: int) -> RunRecord | None:
        return await self._one("WHERE runs.id = ?", (run_id,))

    async def by_message(self, chat_id: int, message_id: int) -> RunRecord | None:
        """The run a message of this Telegram chat belongs to (a reply to it is a follow-up)."""
        return await self._one(
            "WHERE runs.conversation_kind = 'telegram' AND runs.chat_id = ? AND runs.id IN"
            " (SELECT run_id FROM run_messages WHERE message_id = ?)"
            " ORDER BY runs.id DESC LIMIT 1",
            (chat_id, message_id),
        )

    async def get(self, scope: Scope, n: int) -> RunRecord | None:
        where, params = _scoped(scope)
        return await self._one(f"{where} AND runs.n = ?", (*params, n))

    async def events(self, run_id: int) -> dict[str, list[Event]]:
        """A run's stored steps by lane, in the order they arrived, as events again (parsed
        in a thread: a run can have thousands)."""
        rows = await self.db.fetch(
            "SELECT lane, payload FROM steps WHERE run_id = ? ORDER BY id", (run_id,)
        )
        return await asyncio.to_thread(lanes_of, rows)

    async def starts_since(self, user_id: int, since: datetime) -> list[datetime]:
        """When a Telegram user's runs (in any chat) started from `since` on, oldest first."""
        rows = await self.db.fetch(
            "SELECT started_at FROM runs WHERE user_id = ? AND started_at >= ?"
            " AND conversation_kind = 'telegram' ORDER BY started_at", (user_id, _iso(since)))
        return [datetime.fromisoformat(row[0]) for row in rows]

    async def starts_in(self, conversation: Conversation, since: datetime) -> list[datetime]:
        """When a conversation's runs started from `since` on, oldest first."""
        rows = await self.db.fetch(
            "SELECT started_at FROM runs WHERE conversation_kind = ? AND chat_id = ?"
            " AND started_at >= ? ORDER BY started_at",
            (conversation.kind, conversation.id, _iso(since)))
        return [datetime.fromisoformat(row[0]) for row in rows]

    async def tokens_since(self, conversation: Conversation, since: datetime) -> int:
        """Tokens used by a conversation's runs started from `since` on."""
        rows = await self.db.fetch(
            "SELECT coalesce(sum(total_tokens), 0) FROM runs WHERE conversation_kind = ?"
            " AND chat_id = ? AND started_at >= ?",
            (conversation.kind, conversation.id, _iso(since)))
        return int(next(iter(rows))[0])

    async def history(
        self, scope: Scope, *, page: int = 1, keyword: str = "", per_page: int = 10
    ) -> HistoryPage:
        """One page of the runs in scope, newest first, optionally matching `keyword`
        in the question or the answer (each word must match)."""
        where, params = _scoped(scope)
        match, match_params = _keyword_filter(keyword, self.db.dialect)
        where, params = where + match, (*params, *match_params)
        rows = await self.db.fetch(f"SELECT count(*) FROM runs {where}", params)
        total = next(iter(rows))[0]
        pages = max(1, math.ceil(total / per_page))
        page = min(max(page, 1), pages)
        runs = await self._many(
            f"{where} ORDER BY runs.id DESC LIMIT ? OFFSET ?",
            (*params, per_page, (page - 1) * per_page),
        )
        return HistoryPage(tuple(runs), page, pages, total)

    # --- deleting ------------------------------------------------------------------

    async def forget(self, scope: Scope, n: int) -> bool:
        """Delete run `n`, if it is in scope, and what was made from it
        (bot/store/forgetting.py); whether one was deleted."""
        where, params = _scoped(scope)
        return bool(await delete_runs(self.db, f"{where} AND runs.n = ?", (*params, n)))

    async def forget_all(self, chat_id: int) -> int:
        """Delete every run of a Telegram chat; how many. (Admins only: the caller checks.)"""
        return len(await delete_runs(
            self.db, "WHERE runs.conversation_kind = 'telegram' AND runs.chat_id = ?",
            (chat_id,)))

    async def prune(self, older_than_days: int) -> list[tuple[Conversation, int]]:
        """Delete finished runs started more than `older_than_days` days ago, PRUNE_BATCH
        at a time (each a transaction of its own, so the questions asked meanwhile are
        stored between them); the conversation and id of each."""
        cutoff = _iso(datetime.now(UTC) - timedelta(days=older_than_days))
        removed: list[tuple[Conversation, int]] = []
        while rows := await self.db.fetch(
                "SELECT id FROM runs WHERE started_at < ? AND status != 'running'"
                " ORDER BY id LIMIT ?", (cutoff, PRUNE_BATCH)):
            ids = [row[0] for row in rows]
            removed += await delete_runs(
                self.db, f"WHERE runs.id IN ({', '.join('?' * len(ids))})", ids)
        return removed

    # --- helpers -------------------------------------------------------------------

    async def _many(self, tail: str, params: Sequence[Any] = ()) -> list[RunRecord]:
        rows = await self.db.fetch(f"{_RUN_COLUMNS[self.db.dialect]} {tail}", params)
        return [record_from_row(row) for row in rows]

    async def _one(self, tail: str, params: Sequence[Any] = ()) -> RunRecord | None:
        records = await self._many(tail, params)
        return records[0] if records else None


def _scoped(scope: Scope) -> tuple[str, tuple[str | int, ...]]:
    where = "WHERE runs.conversation_kind = ? AND runs.chat_id = ?"
    if scope.user_id is None:
        return where, (scope.kind, scope.chat_id)
    return where + " AND runs.user_id = ?", (scope.kind, scope.chat_id, scope.user_id)


def search_words(keyword: str) -> list[str]:
    """The keyword's words, each once (case aside); a search looks for the first
    MAX_SEARCH_WORDS."""
    seen: dict[str, str] = {}
    for word in keyword.split():
        seen.setdefault(word.casefold(), word)
    return list(seen.values())


def _keyword_filter(keyword: str, dialect: Dialect) -> tuple[str, tuple[str, ...]]:
    """SQL to AND onto a WHERE. SQLite: words of 3+ characters go to the trigram index in one
    MATCH; shorter ones (a trigram index cannot hold them, e.g. 天气) one LIKE each over
    question and answer together. PostgreSQL: one ILIKE each, which pg_trgm's index serves.
    At most MAX_SEARCH_WORDS words, so a message of a thousand one-letter words cannot build
    an expression tree the database refuses, nor hold a connection for seconds."""
    words = search_words(keyword)[:MAX_SEARCH_WORDS]
    long = [w for w in words if len(w) >= 3] if dialect is Dialect.SQLITE else []
    like, newline = (("LIKE", "char(10)") if dialect is Dialect.SQLITE
                     else ("ILIKE", "chr(10)"))  # as PostgreSQL's index on them has it
    sql, params = "", []
    if long:
        sql += " AND runs.id IN (SELECT rowid FROM runs_fts WHERE runs_fts MATCH ?)"
        params.append(" ".join('"' + w.replace('"', '""') + '"' for w in long))
    for word in (w for w in words if w not in long):
        pattern = "%" + word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        sql += f" AND (runs.question || {newline} || runs.answer) {like} ? ESCAPE '\\'"
        params.append(pattern)
    return sql, tuple(params)


def _check(value: str, allowed: Sequence[str], what: str) -> None:
    if value not in allowed:
        raise ValueError(f"unknown {what} {value!r}; expected one of {', '.join(allowed)}")


def _iso(moment: datetime) -> str:
    """UTC, fixed width, so stored times compare correctly as text."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds")


def _now() -> str:
    return _iso(datetime.now(UTC))


def lanes_of(rows: Iterable[Any]) -> dict[str, list[Event]]:
    """Stored (lane, payload) rows as events by lane, in order (what Store.events returns)."""
    lanes: dict[str, list[Event]] = {}
    for lane, payload in rows:
        lanes.setdefault(lane, []).append(event_from_row(payload))
    return lanes
