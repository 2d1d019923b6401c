"""The bot's schema (transcripts, the course-notes index) as numbered migrations, applied in
order at start-up.

Each migration runs once, in its own transaction together with the row that records it
in `transcript_migrations`, so a crash mid-upgrade leaves the previous version intact.
Only ever add a migration at the end; never edit or reorder one that has shipped: a
database of any earlier version then upgrades in place without losing a row.
(The idea is simonw/llm's `migrations.py`.) The record table's name is our own because
the course-notes index shares the database file.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime

import aiosqlite

from bot.store.tallies import COUNT, TALLIES

Migration = Callable[[aiosqlite.Connection], Awaitable[None]]
MIGRATIONS: list[Migration] = []


def migration(fn: Migration) -> Migration:
    MIGRATIONS.append(fn)
    return fn


async def migrate(db: aiosqlite.Connection, migrations: Sequence[Migration] = ()) -> list[str]:
    """Apply the migrations not yet recorded (all of MIGRATIONS by default); their names.

    `db` must be in autocommit mode (isolation_level=None): each migration gets its own
    explicit transaction.
    """
    await db.execute(
        "CREATE TABLE IF NOT EXISTS transcript_migrations"
        " (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
    )
    async with db.execute("SELECT name FROM transcript_migrations") as cur:
        done = {row[0] for row in await cur.fetchall()}
    applied = []
    async with db.execute("PRAGMA foreign_keys") as cur:
        enforced = (await cur.fetchone())[0]  # type: ignore[index]
    # Off while a migration runs (SQLite's own recipe for changing a table: copy it, drop
    # the old one, rename the copy; a drop would otherwise cascade to the rows that refer
    # to it), and checked before it commits.
    await db.execute("PRAGMA foreign_keys = OFF")
    try:
        for fn in migrations or MIGRATIONS:
            if fn.__name__ in done:
                continue
            await db.execute("BEGIN IMMEDIATE")
            try:
                await fn(db)
                async with db.execute("PRAGMA foreign_key_check") as cur:
                    broken = await cur.fetchall()
                if broken:
                    raise sqlite3.IntegrityError(f"{fn.__name__} breaks foreign keys: "
                                                 f"{[tuple(row) for row in broken[:5]]}")
                await db.execute(
                    "INSERT INTO transcript_migrations (name, applied_at) VALUES (?, ?)",
                    (fn.__name__, datetime.now(UTC).isoformat()),
                )
            except BaseException:
                await db.execute("ROLLBACK")
                raise
            await db.execute("COMMIT")
            applied.append(fn.__name__)
    finally:
        await db.execute(f"PRAGMA foreign_keys = {'ON' if enforced else 'OFF'}")
    return applied


async def _script(db: aiosqlite.Connection, sql: str) -> None:
    """Run a script's statements one by one inside the caller's transaction.

    (`executescript` would commit first, breaking the one-transaction-per-migration rule.)
    """
    statement = ""
    for piece in sql.split(";"):
        statement += piece + ";"
        if sqlite3.complete_statement(statement):
            if statement.strip(" \n;"):
                await db.execute(statement)
            statement = ""


@migration
async def m001_runs_and_steps(db: aiosqlite.Connection) -> None:
    await _script(db, """
        CREATE TABLE chat_counters (
            chat_id INTEGER PRIMARY KEY,
            last_n INTEGER NOT NULL
        );
        CREATE TABLE runs (
            id INTEGER PRIMARY KEY,
            chat_id INTEGER NOT NULL,
            n INTEGER NOT NULL,
            user_id INTEGER NOT NULL,
            user_name TEXT NOT NULL,
            mode TEXT NOT NULL,
            question TEXT NOT NULL,
            model TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'running',
            started_at TEXT NOT NULL,
            ended_at TEXT,
            duration_ms INTEGER,
            prompt_tokens INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0,
            total_tokens INTEGER NOT NULL DEFAULT 0,
            answer TEXT NOT NULL DEFAULT '',
            UNIQUE (chat_id, n)
        );
        CREATE INDEX runs_status ON runs (status);
        CREATE TABLE steps (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            lane TEXT NOT NULL,
            kind TEXT NOT NULL,
            round INTEGER NOT NULL,
            tool TEXT,
            arguments TEXT,
            text TEXT,
            ok INTEGER,
            duration_ms INTEGER,
            synthesized INTEGER,
            payload TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE INDEX steps_run ON steps (run_id, id)
    """)


@migration
async def m002_messages_and_parent(db: aiosqlite.Connection) -> None:
    """The Telegram messages a run used (to find the run a reply continues), its parent."""
    await _script(db, """
        CREATE TABLE run_messages (
            run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            message_id INTEGER NOT NULL,
            PRIMARY KEY (run_id, message_id)
        );
        CREATE INDEX run_messages_message ON run_messages (message_id);
        ALTER TABLE runs ADD COLUMN parent_id INTEGER REFERENCES runs (id) ON DELETE SET NULL
    """)


_RUNS_FTS_TRIGGERS = """
    CREATE TRIGGER runs_fts_insert AFTER INSERT ON runs BEGIN
        INSERT INTO runs_fts (rowid, question, answer)
        VALUES (new.id, new.question, new.answer);
    END;
    CREATE TRIGGER runs_fts_delete AFTER DELETE ON runs BEGIN
        INSERT INTO runs_fts (runs_fts, rowid, question, answer)
        VALUES ('delete', old.id, old.question, old.answer);
    END;
    CREATE TRIGGER runs_fts_update AFTER UPDATE OF question, answer ON runs BEGIN
        INSERT INTO runs_fts (runs_fts, rowid, question, answer)
        VALUES ('delete', old.id, old.question, old.answer);
        INSERT INTO runs_fts (rowid, question, answer)
        VALUES (new.id, new.question, new.answer);
    END"""
"""Keep runs_fts (m003) in step with the runs table."""


@migration
async def m003_search_index(db: aiosqlite.Connection) -> None:
    """Full-text search over question and answer; trigram tokens so Chinese works."""
    await _script(db, f"""
        CREATE VIRTUAL TABLE runs_fts USING fts5 (
            question, answer, content='runs', content_rowid='id', tokenize='trigram'
        );
        {_RUNS_FTS_TRIGGERS};
        INSERT INTO runs_fts (runs_fts) VALUES ('rebuild')
    """)


@migration
async def m004_notes_index(db: aiosqlite.Connection) -> None:
    """The course-notes index search_notes uses (agent.tools.notes_index.SqliteNotesIndex).

    Earlier versions had the agent create these tables itself, unversioned, with
    `IF NOT EXISTS`; a database of theirs may hold them already. They are only a cache of
    NOTES_DIR's files, rebuilt at the next search, so they are dropped and created anew.
    """
    await _script(db, """
        DROP TABLE IF EXISTS notes_passages;
        DROP TABLE IF EXISTS notes_files;
        CREATE TABLE notes_files (
            path TEXT PRIMARY KEY,
            mtime_ns INTEGER NOT NULL,
            size INTEGER NOT NULL
        );
        CREATE VIRTUAL TABLE notes_passages USING fts5 (
            path UNINDEXED, heading, body, tokenize='trigram'
        )
    """)


@migration
async def m005_boards_and_api(db: aiosqlite.Connection) -> None:
    """The class board's secret link per chat; the HTTP API's token scopes and sessions.

    An API token's runs are stored as the runs of a chat of its own (`api_scopes.chat_id`,
    beyond any Telegram id), so numbering, history and the budget work as for any chat and
    reach no one else's. A session is the API runs sharing a `session_id`: the last one is
    the parent of the next, as in a reply thread. Tokens are kept only as their SHA-256."""
    await _script(db, """
        CREATE TABLE boards (
            chat_id INTEGER PRIMARY KEY,
            token TEXT NOT NULL UNIQUE,
            made_at TEXT NOT NULL
        );
        CREATE TABLE api_scopes (
            chat_id INTEGER PRIMARY KEY,
            token_sha256 TEXT NOT NULL UNIQUE,
            made_at TEXT NOT NULL
        );
        CREATE TABLE api_runs (
            run_id INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
            session_id TEXT NOT NULL
        );
        CREATE INDEX api_runs_session ON api_runs (session_id, run_id)
    """)


@migration
async def m006_chat_settings(db: aiosqlite.Connection) -> None:
    """Each chat's own settings (/settings): only what the chat changed, as a JSON object;
    a chat without a row, or a key not in it, follows the environment's defaults."""
    await _script(db, """
        CREATE TABLE chat_settings (
            chat_id INTEGER PRIMARY KEY,
            settings TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            updated_by INTEGER
        )
    """)


@migration
async def m007_notes_uploads(db: aiosqlite.Connection) -> None:
    """Course notes uploaded to a chat (/notes), indexed per chat beside NOTES_DIR's: the
    tables of agent.tools.notes_index's SCHEMA, `scope` being the chat's id."""
    await _script(db, """
        CREATE TABLE notes_uploads (
            scope INTEGER NOT NULL,
            name TEXT NOT NULL,
            kind TEXT NOT NULL,
            parts INTEGER NOT NULL,
            chars INTEGER NOT NULL,
            PRIMARY KEY (scope, name)
        );
        CREATE VIRTUAL TABLE notes_upload_passages USING fts5 (
            scope UNINDEXED, name UNINDEXED, location UNINDEXED, heading, body,
            tokenize='trigram'
        )
    """)


@migration
async def m008_thread_summaries(db: aiosqlite.Connection) -> None:
    """Summaries of a reply thread's older turns (HISTORY_MAX_CHARS), kept so a long thread
    is not summarised again every turn: `run_id` is the newest run the summary covers."""
    await _script(db, """
        CREATE TABLE thread_summaries (
            run_id INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
            summary TEXT NOT NULL,
            made_at TEXT NOT NULL
        )
    """)


@migration
async def m009_steps_payload_only(db: aiosqlite.Connection) -> None:
    """A step is kept once, as its event's JSON (`payload`, which is what is read back): the
    columns m001 also extracted from it (kind, round, tool, arguments, text, ok,
    duration_ms, synthesized) were never read. One copy of the table, not one per column
    dropped (nothing refers to a step, so the old table goes without cascading)."""
    await _script(db, """
        CREATE TABLE steps_new (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            lane TEXT NOT NULL,
            payload TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        INSERT INTO steps_new (id, run_id, lane, payload, created_at)
            SELECT id, run_id, lane, payload, created_at FROM steps;
        DROP TABLE steps;
        ALTER TABLE steps_new RENAME TO steps;
        CREATE INDEX steps_run ON steps (run_id, id)
    """)


@migration
async def m010_endpoint_memory(db: aiosqlite.Connection) -> None:
    """What auto mode learned about each model endpoint (agent/model/endpoint_memory.py), as a
    JSON object of what differs from an unseen endpoint."""
    await _script(db, """
        CREATE TABLE endpoint_memory (
            endpoint TEXT PRIMARY KEY,
            learned TEXT NOT NULL,
            updated_at TEXT NOT NULL
        )
    """)


OLD_API_CHAT_BASE = 9_000_000_000_000_000
"""Where versions before m011 numbered the HTTP API's token scopes among the chat ids (above
any Telegram id): scope k was chat `OLD_API_CHAT_BASE + k`."""

_KIND = f"CASE WHEN chat_id >= {OLD_API_CHAT_BASE} THEN 'api' ELSE 'telegram' END"
_ID = (f"CASE WHEN chat_id >= {OLD_API_CHAT_BASE} THEN chat_id - {OLD_API_CHAT_BASE}"
       " ELSE chat_id END")
"""A pre-m011 chat id as its conversation's kind and id."""



@migration
async def m011_conversations(db: aiosqlite.Connection) -> None:
    """A conversation is keyed by what it is (`conversation_kind`: a Telegram chat, an HTTP
    API token's scope) and its id among its kind, not by a made-up chat id: runs, their
    counters and settings move over (API scope k, stored as chat 9×10^15 + k, becomes
    ('api', k)); an API run has no Telegram user (`user_id` NULL); a token's scope number
    comes from `api_scopes.id` (SQLite's rowid: no max + 1 of ours).

    The tables are copied (their constraints change), ids kept, so every reference to a run
    still holds; the search index keeps its rows (same ids, same text)."""
    await _script(db, f"""
        CREATE TABLE runs_new (
            id INTEGER PRIMARY KEY,
            conversation_kind TEXT NOT NULL,
            chat_id INTEGER NOT NULL,
            n INTEGER NOT NULL,
            user_id INTEGER,
            user_name TEXT NOT NULL,
            mode TEXT NOT NULL,
            question TEXT NOT NULL,
            model TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'running',
            started_at TEXT NOT NULL,
            ended_at TEXT,
            duration_ms INTEGER,
            prompt_tokens INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0,
            total_tokens INTEGER NOT NULL DEFAULT 0,
            answer TEXT NOT NULL DEFAULT '',
            parent_id INTEGER REFERENCES runs (id) ON DELETE SET NULL,
            UNIQUE (conversation_kind, chat_id, n)
        );
        INSERT INTO runs_new (id, conversation_kind, chat_id, n, user_id, user_name, mode,
            question, model, status, started_at, ended_at, duration_ms, prompt_tokens,
            completion_tokens, total_tokens, answer, parent_id)
        SELECT id, {_KIND}, {_ID}, n,
            CASE WHEN chat_id >= {OLD_API_CHAT_BASE} THEN NULL ELSE user_id END, user_name, mode,
            question, model, status, started_at, ended_at, duration_ms, prompt_tokens,
            completion_tokens, total_tokens, answer, parent_id FROM runs;
        DROP TABLE runs;
        ALTER TABLE runs_new RENAME TO runs;
        CREATE INDEX runs_status ON runs (status);
        {_RUNS_FTS_TRIGGERS};

        CREATE TABLE chat_counters_new (
            conversation_kind TEXT NOT NULL,
            chat_id INTEGER NOT NULL,
            last_n INTEGER NOT NULL,
            PRIMARY KEY (conversation_kind, chat_id)
        );
        INSERT INTO chat_counters_new SELECT {_KIND}, {_ID}, last_n FROM chat_counters;
        DROP TABLE chat_counters;
        ALTER TABLE chat_counters_new RENAME TO chat_counters;

        CREATE TABLE chat_settings_new (
            conversation_kind TEXT NOT NULL,
            chat_id INTEGER NOT NULL,
            settings TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            updated_by INTEGER,
            PRIMARY KEY (conversation_kind, chat_id)
        );
        INSERT INTO chat_settings_new SELECT {_KIND}, {_ID}, settings, updated_at, updated_by
            FROM chat_settings;
        DROP TABLE chat_settings;
        ALTER TABLE chat_settings_new RENAME TO chat_settings;

        CREATE TABLE api_scopes_new (
            id INTEGER PRIMARY KEY,
            token_sha256 TEXT NOT NULL UNIQUE,
            made_at TEXT NOT NULL
        );
        INSERT INTO api_scopes_new SELECT chat_id - {OLD_API_CHAT_BASE}, token_sha256, made_at
            FROM api_scopes;
        DROP TABLE api_scopes;
        ALTER TABLE api_scopes_new RENAME TO api_scopes
    """)


@migration
async def m012_course_figures(db: aiosqlite.Connection) -> None:
    """What the course's figures (/stats, the course page) count, kept as each run ends so
    they come from indexed queries rather than from reading every step: the run as the
    class saw it (`course_mode`: ask, plain, compare, quiz, step), its rounds, why it
    failed, whether /compare's two answers differed on a figure, the quiz's result; each
    tool call; each quiz round; the questions refused by the rate limit or the budget
    (one row per asker, reason and hour, counted). A run ended before this migration, or
    whose facts could not be saved, has `course_mode` NULL and gets them at the next
    count (bot/store/course_stats.py)."""
    await _script(db, """
        ALTER TABLE runs ADD COLUMN course_mode TEXT;
        ALTER TABLE runs ADD COLUMN rounds INTEGER;
        ALTER TABLE runs ADD COLUMN error_kind TEXT;
        ALTER TABLE runs ADD COLUMN differs INTEGER;
        ALTER TABLE runs ADD COLUMN quiz_rounds INTEGER;
        ALTER TABLE runs ADD COLUMN quiz_right INTEGER;
        CREATE INDEX runs_course ON runs (conversation_kind, chat_id, started_at);
        CREATE INDEX runs_course_user ON runs (conversation_kind, chat_id, user_id, started_at);
        CREATE TABLE tool_calls (
            run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            tool TEXT NOT NULL,
            ok INTEGER NOT NULL,
            failure TEXT,
            PRIMARY KEY (run_id, seq)
        );
        CREATE TABLE quiz_rounds (
            run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            round INTEGER NOT NULL,
            voters INTEGER NOT NULL,
            right_votes INTEGER NOT NULL,
            top_right INTEGER NOT NULL,
            PRIMARY KEY (run_id, round)
        );
        CREATE TABLE refusals (
            conversation_kind TEXT NOT NULL,
            chat_id INTEGER NOT NULL,
            user_id INTEGER NOT NULL,
            reason TEXT NOT NULL,
            hour TEXT NOT NULL,
            times INTEGER NOT NULL,
            PRIMARY KEY (conversation_kind, chat_id, hour, user_id, reason)
        )
    """)


@migration
async def m013_runs_parent_index(db: aiosqlite.Connection) -> None:
    """An index on a run's parent: deleting a run finds the runs that follow it (its
    replies, whose parent it was, and the thread summaries under them) without reading the
    whole table once for each run deleted."""
    await _script(db, "CREATE INDEX IF NOT EXISTS runs_parent ON runs (parent_id)")


COURSE_COLUMNS = "course_mode, mode, status, error_kind, differs, total_tokens"
"""What the course's counts read of a run, carried in its indexes (m013)."""


@migration
async def m014_course_figures_from_indexes(db: aiosqlite.Connection) -> None:
    """The course's counts read indexes only: the runs' indexes by start time carry what the
    counts read of a run (no row of the runs table is visited, so a large class's counts
    do not read each run's question and answer from disk with it), and each tool
    call and quiz round carries its run's conversation, asker and start, so they are
    found by an index of their own instead of one lookup per run. Both tables are facts
    the store makes again from a run's steps: they start empty, and each run's facts are
    marked as not kept (course_mode NULL), to be made at the next count."""
    await _script(db, f"""
        DROP INDEX runs_course;
        DROP INDEX runs_course_user;
        CREATE INDEX runs_course ON runs (conversation_kind, chat_id, started_at, user_id,
            {COURSE_COLUMNS});
        CREATE INDEX runs_course_user ON runs (conversation_kind, chat_id, user_id, started_at,
            {COURSE_COLUMNS});
        DROP TABLE tool_calls;
        DROP TABLE quiz_rounds;
        CREATE TABLE tool_calls (
            run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            conversation_kind TEXT NOT NULL,
            chat_id INTEGER NOT NULL,
            user_id INTEGER,
            started_at TEXT NOT NULL,
            tool TEXT NOT NULL,
            ok INTEGER NOT NULL,
            failure TEXT,
            PRIMARY KEY (run_id, seq)
        );
        CREATE INDEX tool_calls_course ON tool_calls (conversation_kind, chat_id, started_at,
            user_id, tool, ok);
        CREATE INDEX tool_calls_course_user ON tool_calls (conversation_kind, chat_id, user_id,
            started_at, tool, ok);
        CREATE TABLE quiz_rounds (
            run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            round INTEGER NOT NULL,
            conversation_kind TEXT NOT NULL,
            chat_id INTEGER NOT NULL,
            user_id INTEGER,
            started_at TEXT NOT NULL,
            voters INTEGER NOT NULL,
            right_votes INTEGER NOT NULL,
            top_right INTEGER NOT NULL,
            PRIMARY KEY (run_id, round)
        );
        CREATE INDEX quiz_rounds_course ON quiz_rounds (conversation_kind, chat_id, started_at,
            user_id, voters, right_votes, top_right, run_id);
        CREATE INDEX quiz_rounds_course_user ON quiz_rounds (conversation_kind, chat_id,
            user_id, started_at, voters, right_votes, top_right, run_id);
        UPDATE runs SET course_mode = NULL
    """)


@migration
async def m015_run_sources(db: aiosqlite.Connection) -> None:
    """The runs a comparison of stored runs was copied from (/compare N M): forgetting
    either takes the comparison with it, as it takes what else was made from a run."""
    await _script(db, """
        CREATE TABLE run_sources (
            run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            source_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            PRIMARY KEY (run_id, source_id)
        );
        CREATE INDEX run_sources_source ON run_sources (source_id)
    """)


@migration
async def m016_run_photos(db: aiosqlite.Connection) -> None:
    """The photos a run was asked about, as kept with it (a downscaled JPEG each, numbered
    from 1 in the order sent): /show, /export and the board show them beside the text read
    from them. They go with their run (/forget, TRANSCRIPT_RETENTION_DAYS)."""
    await _script(db, """
        CREATE TABLE run_photos (
            run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            number INTEGER NOT NULL,
            jpeg BLOB NOT NULL,
            PRIMARY KEY (run_id, number)
        )
    """)


@migration
async def m017_course_tallies(db: aiosqlite.Connection) -> None:
    """The class's counts add up tallies per quarter hour, kept by triggers
    (bot/store/tallies.py), instead of reading each of its runs and tool calls; the runs
    whose facts are not kept yet (running, or to be made from their steps) are found by an
    index of their own."""
    types = {"conversation_kind": "TEXT", "chat_id": "INTEGER", "quarter_hour": "TEXT",
             "course_mode": "TEXT", "status": "TEXT", "error_kind": "TEXT", "tool": "TEXT",
             COUNT: "INTEGER"}
    await _script(db, ";".join((
        "CREATE INDEX runs_unkept ON runs (conversation_kind, chat_id, started_at)"
        " WHERE course_mode IS NULL",
        *(statement for tally in TALLIES for statement in (
            tally.create(types, "WITHOUT ROWID"), tally.fill(), tally.sqlite_triggers())))))
