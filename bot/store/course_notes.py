"""The course-notes index search_notes uses, kept in the bot's database: on SQLite the
agent's `SqliteNotesIndex` over the tables migration m004 made, on PostgreSQL
bot.store.pg_notes's over the store's pool.

It gets a connection of its own, so its writes never land inside one of the Store's
transactions (the Store runs each of its own, BEGIN IMMEDIATE to COMMIT, under its lock on
its connection). SQLite orders the two writers: in WAL mode readers never wait, and a
writer waits up to `busy_timeout` for the other's transaction; the index's last one file
each, milliseconds.
"""

from __future__ import annotations

from pathlib import Path

import aiosqlite

from agent.tools.notes_index import CourseNotes, SqliteNotesIndex
from bot.store.db import PostgresDb
from bot.store.pg_notes import PostgresNotesIndex
from bot.store.transcripts import Store


async def open_notes_index(store: Store, notes_dir: Path) -> CourseNotes:
    """The index of `notes_dir` in `store`'s database (open, so migrated); close it after."""
    if isinstance(store.db, PostgresDb):
        return PostgresNotesIndex(store.db, notes_dir)
    db = await aiosqlite.connect(store.db.path, isolation_level=None)
    try:
        await db.execute("PRAGMA synchronous = NORMAL")  # as the Store's; the index is a cache
        await db.execute("PRAGMA busy_timeout = 5000")
    except BaseException:
        await db.close()
        raise
    return SqliteNotesIndex(db, notes_dir)
