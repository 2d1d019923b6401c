"""The photos a run was asked about, kept with it as downscaled JPEGs (table `run_photos` of
migration m016), for /show, /export and the board; deleted with their run."""

from __future__ import annotations

from collections.abc import Sequence

from bot.store.db import Db


class PhotosTable:
    def __init__(self, db: Db) -> None:
        self._db = db

    async def put(self, run_id: int, jpegs: Sequence[bytes]) -> None:
        """Keep `jpegs` as run `run_id`'s photos 1, 2, …"""
        await self._db.executemany(
            "INSERT INTO run_photos (run_id, number, jpeg) VALUES (?, ?, ?)",
            [(run_id, number, jpeg) for number, jpeg in enumerate(jpegs, 1)])

    async def get(self, run_id: int, number: int) -> bytes | None:
        rows = await self._db.fetch(
            "SELECT jpeg FROM run_photos WHERE run_id = ? AND number = ?", (run_id, number))
        return bytes(next(iter(rows))[0]) if rows else None

    async def all(self, run_id: int) -> list[bytes]:
        """Run `run_id`'s photos in order (none: it was asked in words)."""
        rows = await self._db.fetch(
            "SELECT jpeg FROM run_photos WHERE run_id = ? ORDER BY number", (run_id,))
        return [bytes(row[0]) for row in rows]
