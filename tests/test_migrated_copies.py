"""The migrated stores the tests copy (testkit/dbkit.py, `Migrated`): each copy has every
migration recorded, so the store opened on it applies none again, and what one test writes
is in its copy only, on SQLite and on PostgreSQL alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.store.migrations import MIGRATIONS
from bot.store.transcripts import Store
from testkit.dbkit import BACKENDS, Migrated, Target, query

APPLIED = "SELECT name, applied_at FROM transcript_migrations ORDER BY name"


async def write_a_run(target: Target) -> None:
    store = await Store.open(target)
    try:
        await store.start_run(chat_id=-100, user_id=7, user_name="u7", mode="ask",
                              question="q", model="qwen-plus")
    finally:
        await store.close()


@pytest.mark.parametrize("backend", BACKENDS)
async def test_each_copy_is_migrated_once_for_all_and_its_own(backend: str, tmp_path: Path,
                                                             migrated: Migrated) -> None:
    async with migrated.copy(backend, tmp_path / "one" / "s.sqlite3") as one, \
            migrated.copy(backend, tmp_path / "two" / "s.sqlite3") as two:
        assert one != two
        recorded = await query(one, APPLIED)
        assert sorted(name for name, _ in recorded) == sorted(m.__name__ for m in MIGRATIONS)
        await write_a_run(one)
        assert await query(one, APPLIED) == recorded  # nothing applied again, at open
        assert await query(one, "SELECT count(*) FROM runs") == [(1,)]
        assert await query(two, "SELECT count(*) FROM runs") == [(0,)]
