"""Moving a class from one database to another (`python -m bot.store copy`): every table the
store keeps, rows with their ids, so run numbers, replies, threads, sessions and board links
all still point where they did.

Idempotent: a row already in the target (same key) is left alone, so a copy stopped halfway
or run twice finishes the job without doubling anything. It refuses a target that holds
runs the source does not (another class's database): their ids would collide. The course
notes' own index (NOTES_DIR's passages) is a cache, rebuilt at the first search; the files
uploaded with /notes are copied with their passages. What the course's figures keep of each
run (bot/store/course_stats.py) is made again from its steps as the bot next starts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.store.db import Dialect
from bot.store.transcripts import Store
from wire.wire_errors import GlassboxError

BATCH = 2_000
"""Rows read and written at a time (a class's steps can run to millions)."""


@dataclass(frozen=True, slots=True)
class Table:
    name: str
    columns: tuple[str, ...]
    key: str
    """ORDER BY for reading it in batches (its primary key)."""


TABLES = (
    Table("runs", ("id", "conversation_kind", "chat_id", "n", "user_id", "user_name", "mode",
                   "question", "model", "status", "started_at", "ended_at", "duration_ms",
                   "prompt_tokens", "completion_tokens", "total_tokens", "answer", "parent_id"),
          "id"),
    Table("steps", ("id", "run_id", "lane", "payload", "created_at"), "id"),
    Table("run_messages", ("run_id", "message_id"), "run_id, message_id"),
    Table("run_sources", ("run_id", "source_id"), "run_id, source_id"),
    Table("chat_settings", ("conversation_kind", "chat_id", "settings", "updated_at",
                            "updated_by"), "conversation_kind, chat_id"),
    Table("boards", ("chat_id", "token", "made_at"), "chat_id"),
    Table("api_scopes", ("id", "token_sha256", "made_at"), "id"),
    Table("api_runs", ("run_id", "session_id"), "run_id"),
    Table("thread_summaries", ("run_id", "summary", "made_at"), "run_id"),
    Table("run_photos", ("run_id", "number", "jpeg"), "run_id, number"),
    Table("endpoint_memory", ("endpoint", "learned", "updated_at"), "endpoint"),
    Table("refusals", ("conversation_kind", "chat_id", "user_id", "reason", "hour", "times"),
          "conversation_kind, chat_id, hour, user_id, reason"),
)
UPLOAD_COLUMNS = ("scope", "name", "kind", "parts", "chars")
PASSAGE_COLUMNS = ("scope", "name", "location", "heading", "body")
IDENTITIES = ("runs", "steps", "api_scopes")
"""PostgreSQL tables whose ids come from a sequence: moved past the copied ids after."""


@dataclass(frozen=True, slots=True)
class Copied:
    table: str
    read: int
    added: int


class TargetInUse(GlassboxError):
    """The target holds runs the source does not: copying would mix two classes."""


async def copy_store(source: Store, target: Store) -> list[Copied]:
    """Copy every row of `source` missing from `target`; what each table read and added."""
    await _check_target(source, target)
    report = [await _counters(source, target)]
    for table in TABLES:
        report.append(await _copy_table(source, target, table))
    report.extend(await _uploads(source, target))
    if target.db.dialect is Dialect.POSTGRES:
        for name in IDENTITIES:
            await target.db.execute(
                f"SELECT setval(pg_get_serial_sequence('{name}', 'id'),"
                f" (SELECT coalesce(max(id), 0) + 1 FROM {name}), false)")
    return report


async def _check_target(source: Store, target: Store) -> None:
    runs = "SELECT id, conversation_kind, chat_id, n, started_at FROM runs"
    theirs = await target.db.fetch(runs)
    if not theirs:
        return
    ours = {tuple(row) for row in await source.db.fetch(runs)}
    strangers = [row for row in theirs if tuple(row) not in ours]
    if strangers:
        raise TargetInUse(f"the target already holds {len(strangers)} runs that are not in the "
                          "source; copy into an empty database")


async def _count(store: Store, table: str) -> int:
    return int((await store.db.fetch(f"SELECT count(*) FROM {table}"))[0][0])


async def _counters(source: Store, target: Store) -> Copied:
    """Each conversation's last run number: the larger of the two, so no number is used
    twice."""
    rows = await source.db.fetch("SELECT conversation_kind, chat_id, last_n FROM chat_counters")
    before = await _count(target, "chat_counters")
    larger = "greatest" if target.db.dialect is Dialect.POSTGRES else "max"
    await target.db.executemany(
        "INSERT INTO chat_counters (conversation_kind, chat_id, last_n) VALUES (?, ?, ?)"
        " ON CONFLICT (conversation_kind, chat_id)"
        f" DO UPDATE SET last_n = {larger}(chat_counters.last_n, excluded.last_n)",
        [tuple(row) for row in rows])
    return Copied("chat_counters", len(rows), await _count(target, "chat_counters") - before)


async def _copy_table(source: Store, target: Store, table: Table) -> Copied:
    before = await _count(target, table.name)
    columns = ", ".join(table.columns)
    insert = (f"INSERT INTO {table.name} ({columns}) VALUES"
              f" ({', '.join('?' * len(table.columns))}) ON CONFLICT DO NOTHING")
    read = 0
    while True:
        rows = await source.db.fetch(f"SELECT {columns} FROM {table.name}"
                                     f" ORDER BY {table.key} LIMIT ? OFFSET ?", (BATCH, read))
        if not rows:
            break
        await target.db.executemany(insert, [tuple(row) for row in rows])
        read += len(rows)
    return Copied(table.name, read, await _count(target, table.name) - before)


async def _uploads(source: Store, target: Store) -> list[Copied]:
    """The files uploaded with /notes, each with its passages, if the target lacks it."""
    there = {(row[0], row[1]) for row in await target.db.fetch(
        "SELECT scope, name FROM notes_uploads")}
    uploads = await source.db.fetch(f"SELECT {', '.join(UPLOAD_COLUMNS)} FROM notes_uploads"
                                    " ORDER BY scope, name")
    passages_read = passages_added = 0
    for upload in uploads:
        passages = await source.db.fetch(
            f"SELECT {', '.join(PASSAGE_COLUMNS)} FROM notes_upload_passages"
            " WHERE scope = ? AND name = ?", (upload[0], upload[1]))
        passages_read += len(passages)
        if (upload[0], upload[1]) in there:
            continue
        async with target.db.transaction() as conn:
            await conn.executemany(_insert("notes_upload_passages", PASSAGE_COLUMNS),
                                   [tuple(row) for row in passages])
            await conn.execute(_insert("notes_uploads", UPLOAD_COLUMNS), tuple(upload))
        passages_added += len(passages)
    return [Copied("notes_uploads", len(uploads), len(uploads) - len(
        [u for u in uploads if (u[0], u[1]) in there])),
            Copied("notes_upload_passages", passages_read, passages_added)]


def _insert(table: str, columns: Sequence[str]) -> str:
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"


def report_lines(report: Sequence[Copied]) -> list[str]:
    width = max(len(c.table) for c in report)
    return [f"{c.table:<{width}}  {c.read:>8} in the source, {c.added:>8} copied"
            for c in report]
