"""Numbered migrations: a database of the first version upgrades in place, losing nothing;
one where an older agent made the notes index itself takes the versioned one; SQLite and
PostgreSQL reach the same version by the same names."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import aiosqlite
import asyncpg
import pytest

from agent.events import Action, RunStarted, Thought
from agent.tools.notes_index import NOTES_PASSAGES, UPLOAD_PASSAGES
from bot.store.course_notes import open_notes_index
from bot.store.db import is_postgres_url
from bot.store.migrations import MIGRATIONS, migrate
from bot.store.pg_migrations import PG_MIGRATIONS, migrate_pg
from bot.store.records import Scope
from bot.store.transcripts import Store
from testkit.dbkit import Target, query

V1_RUN = (1, -42, 1, 7, "李雷", "ask", "杭州今天的天气怎么样？", "qwen-plus", "done",
          "2025-03-01T08:00:00.000+00:00", "2025-03-01T08:00:09.500+00:00", 9500, 100, 20, 120,
          "杭州今天晴。")
V1_STEPS = [
    RunStarted(round=0, mode="react", question="杭州今天的天气怎么样？", model="qwen-plus",
               tools=("weather",)),
    Thought(round=1, text="查天气"),
    Action(round=1, call_id="c1", tool="weather", arguments={"city": "杭州"}),
]


async def make_v1(path: Path) -> None:
    """A database as the first version left it, with a run and its steps in it."""
    async with aiosqlite.connect(path, isolation_level=None) as db:
        assert await migrate(db, MIGRATIONS[:1]) == ["m001_runs_and_steps"]
        await db.execute("INSERT INTO chat_counters VALUES (-42, 1)")
        await db.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
                         " ?)", V1_RUN)
        for event in V1_STEPS:
            data = event.to_dict()
            await db.execute(
                "INSERT INTO steps (run_id, lane, kind, round, tool, text, payload, created_at)"
                " VALUES (1, 'main', ?, ?, ?, ?, ?, '2025-03-01T08:00:01.000+00:00')",
                (data["type"], data["round"], data.get("tool"), data.get("text"),
                 json.dumps(data, ensure_ascii=False)))


async def test_a_version_1_database_upgrades_in_place(tmp_path: Path) -> None:
    path = tmp_path / "glassbox.sqlite3"
    await make_v1(path)

    store = await Store.open(path)
    try:
        old = await store.get(Scope(-42), 1)
        assert old is not None
        assert (old.user_name, old.question, old.status, old.duration_ms, old.answer) == (
            "李雷", "杭州今天的天气怎么样？", "done", 9500, "杭州今天晴。")
        assert (old.parent_id, old.message_ids, old.usage.total_tokens) == (None, (), 120)
        assert await store.events(old.id) == {"main": V1_STEPS}
        # the search index covers rows written before it existed
        assert [r.n for r in (await store.history(Scope(-42), keyword="今天的天气")).runs] == [1]
        follow_up = await store.start_run(chat_id=-42, user_id=8, user_name="韩梅梅",
                                          mode="ask", question="明天呢？", model="qwen-plus",
                                          parent_id=old.id)
        await store.add_message_ids(follow_up.id, [77])
        assert (follow_up.n, follow_up.parent_id) == (2, old.id)
        assert (await store.by_message(-42, 77)).id == follow_up.id  # type: ignore[union-attr]
    finally:
        await store.close()

    with sqlite3.connect(path) as db:
        names = [r[0] for r in db.execute("SELECT name FROM transcript_migrations ORDER BY name")]
        assert names == [fn.__name__ for fn in MIGRATIONS]
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)


# What the agent ran on the bot's database before m004 (it was not recorded anywhere).
AGENT_MADE_NOTES = (
    "CREATE TABLE IF NOT EXISTS notes_files ("
    " path TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL)",
    "CREATE VIRTUAL TABLE IF NOT EXISTS notes_passages USING fts5("
    " path UNINDEXED, heading, body, tokenize = 'trigram')",
)


async def test_agent_made_notes_tables_give_way_to_the_migrated_ones(tmp_path: Path) -> None:
    path = tmp_path / "glassbox.sqlite3"
    await make_v1(path)
    async with aiosqlite.connect(path, isolation_level=None) as db:
        assert await migrate(db, MIGRATIONS[:3]) == ["m002_messages_and_parent",
                                                     "m003_search_index"]
        for statement in AGENT_MADE_NOTES:
            await db.execute(statement)
        await db.execute("INSERT INTO notes_files VALUES ('old.md', 1, 1)")
        await db.execute("INSERT INTO notes_passages VALUES ('old.md', 'Old', 'Outdated tokens.')")
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "react.md").write_text("# ReAct\n\nThought, action, observation tokens.\n", "utf-8")

    store = await Store.open(path)
    try:
        assert (await store.get(Scope(-42), 1)) is not None
        # the old index is gone: a cache, rebuilt below
        assert await query(path, "SELECT count(*) FROM notes_passages") == [(0,)]
        index = await open_notes_index(store, notes)
        try:
            found = await index.search("tokens")
        finally:
            await index.close()
    finally:
        await store.close()

    assert [(p.path, p.heading) for p in found] == [("react.md", "ReAct")]
    with sqlite3.connect(path) as db:
        names = [r[0] for r in db.execute("SELECT name FROM transcript_migrations ORDER BY name")]
        files = db.execute("SELECT path FROM notes_files").fetchall()
    assert names == [fn.__name__ for fn in MIGRATIONS]
    assert files == [("react.md",)]


async def test_migrations_apply_once(tmp_path: Path) -> None:
    path = tmp_path / "glassbox.sqlite3"
    for _ in range(2):
        store = await Store.open(path)
        await store.close()
    async with aiosqlite.connect(path, isolation_level=None) as db:
        assert await migrate(db) == []
        rows = await db.execute_fetchall("SELECT count(*) FROM transcript_migrations")
        assert list(rows) == [(len(MIGRATIONS),)]


async def test_the_migrated_passage_tables_have_the_columns_search_weighs(
        tmp_path: Path) -> None:
    """bm25's weights follow each passage table's declared columns: the bot's migrations
    must make those columns, in that order, as the agent's own SCHEMA does."""
    path = tmp_path / "glassbox.sqlite3"
    await (await Store.open(path)).close()
    with sqlite3.connect(path) as db:
        for table in (NOTES_PASSAGES, UPLOAD_PASSAGES):
            made = [row[1] for row in db.execute(f"PRAGMA table_info({table.name})")]
            assert made == [column.split()[0] for column in table.columns]


async def test_a_failing_migration_leaves_the_previous_version(tmp_path: Path) -> None:
    async def m999_broken(db: aiosqlite.Connection) -> None:
        await db.execute("CREATE TABLE half_done (x)")
        await db.execute("THIS IS NOT SQL")

    path = tmp_path / "glassbox.sqlite3"
    async with aiosqlite.connect(path, isolation_level=None) as db:
        with pytest.raises(sqlite3.OperationalError):
            await migrate(db, [*MIGRATIONS, m999_broken])
        tables = {r[0] for r in await db.execute_fetchall(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        applied = {r[0] for r in await db.execute_fetchall(
            "SELECT name FROM transcript_migrations")}
    assert "runs" in tables and "half_done" not in tables
    assert applied == {fn.__name__ for fn in MIGRATIONS}


async def test_both_kinds_reach_the_same_version_and_apply_each_migration_once(
        db_target: Target) -> None:
    """A fresh database of either kind records every migration by the same names; opening
    it again applies none (and the store works after each start)."""
    for start in range(2):
        store = await Store.open(db_target)
        try:
            run = await store.start_run(chat_id=-42, user_id=7, user_name="A", mode="ask",
                                        question=f"start {start}", model="m")
            assert run.n == start + 1
        finally:
            await store.close()
    names = [row[0] for row in await query(
        db_target, "SELECT name FROM transcript_migrations ORDER BY name")]
    assert names == [fn.__name__ for fn in MIGRATIONS] == [name for name, _ in PG_MIGRATIONS]
    if is_postgres_url(db_target):
        pool = await asyncpg.create_pool(str(db_target), min_size=1, max_size=1)
        try:
            assert await migrate_pg(pool) == []
        finally:
            await pool.close()
    else:
        async with aiosqlite.connect(db_target, isolation_level=None) as db:
            assert await migrate(db) == []
