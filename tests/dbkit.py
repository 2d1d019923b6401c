"""A test's own reads and writes of a SQLite file the bot (or its store) may be using, done
without blocking the event loop they run on: a blocking `sqlite3` call waiting for a lock the
bot holds keeps the bot from ever finishing the write that holds it (a deadlock, not a
failure), and any such call stalls every chat of the bot under test while it runs."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import aiosqlite


async def query(path: Path, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """The rows of one statement (a SELECT or a PRAGMA)."""
    async with aiosqlite.connect(path) as db:
        return [tuple(row) for row in await db.execute_fetchall(sql, params)]


async def execute(path: Path, sql: str, params: Sequence[Any] = ()) -> None:
    """One statement, committed."""
    async with aiosqlite.connect(path) as db:
        await db.execute(sql, params)
        await db.commit()


async def execute_many(path: Path, sql: str, rows: Iterable[Sequence[Any]]) -> None:
    """One statement for each of `rows`, in one transaction."""
    async with aiosqlite.connect(path) as db:
        await db.executemany(sql, rows)
        await db.commit()
