"""The course-notes index on PostgreSQL: what `SqliteNotesIndex` does with FTS5, over the
tables of pg_migrations' m004 and m007.

A search looks for the same pieces as on SQLite (notes_index.query_pieces): English words
by full-text search (the passages' generated `words` tsvector, the heading weighted above
the body; stemmed, so "plans" finds "Planning"), Chinese three-character pieces and
two-character words as substrings, which pg_trgm's index on the passage text serves.
Passages holding more of the two-character words come first, as on SQLite, then the best
ranked: ts_rank for the English words plus, for each Chinese piece, 2 if the heading holds
it and 1 if the body does (the weights bm25 gets on SQLite).

It shares the store's pool. Each file is re-indexed in a short transaction of its own under
an advisory lock on its path, so two instances refreshing at once never index it twice.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from agent.tools.notes_index import (
    Passage,
    Stat,
    Upload,
    is_chinese,
    query_pieces,
    reindex,
    write_file,
)
from bot.store.db import Conn, PostgresDb


@dataclass(frozen=True, slots=True)
class _Table:
    name: str
    hit: str
    """What a hit reads: its path (or name), heading, body and location."""
    scoped: bool


_NOTES = _Table("notes_passages", "path, heading, body, ''", scoped=False)
_UPLOADS = _Table("notes_upload_passages", "name, heading, body, location", scoped=True)
_TEXT = "lower(heading || ' ' || body)"
"""What the substring pieces are looked for in (as the trigram index holds it)."""


def _ranked_sql(table: _Table) -> str:
    """One table's best passages. Parameters: the English words, the Chinese pieces, the
    two-character words, the scope (or NULL), the limit.

    Each English word and Chinese piece weighs as bm25's idf does on SQLite (a word in few
    passages counts more), times 2 where the heading holds it and 1 where the body does."""
    mine = f"{table.name}.scope = q.wanted" if table.scoped else "TRUE"
    english = "words @@ to_tsquery('english', t || '{}')"
    return f"""
        WITH q AS (
            SELECT ?::text[] AS english, ?::text[] AS chinese, ?::text[] AS short,
                   ?::bigint AS wanted),
        mine AS (SELECT {table.name}.* FROM {table.name}, q WHERE {mine}),
        total AS (SELECT count(*)::float8 AS n FROM mine),
        e AS (SELECT t, ln(1 + (total.n - df + 0.5) / (df + 0.5)) AS w FROM (
                SELECT t, (SELECT count(*) FROM mine WHERE {english.format("")}) AS df
                FROM q, unnest(q.english) AS t) AS x, total),
        c AS (SELECT p, ln(1 + (total.n - df + 0.5) / (df + 0.5)) AS w FROM (
                SELECT p, (SELECT count(*) FROM mine WHERE strpos({_TEXT}, p) > 0) AS df
                FROM q, unnest(q.chinese) AS p) AS x, total)
        SELECT {table.hit},
            (SELECT count(*) FROM unnest(q.short) s WHERE strpos({_TEXT}, s) > 0) AS shorts,
            (SELECT coalesce(sum(w * (2 * ({english.format(":A")})::int
                                     + ({english.format(":B")})::int)), 0) FROM e)
            + (SELECT coalesce(sum(w * (2 * (strpos(lower(heading), p) > 0)::int
                                     + (strpos(lower(body), p) > 0)::int)), 0) FROM c)
            AS score
        FROM mine, q
        WHERE EXISTS (SELECT 1 FROM unnest(q.english) AS t WHERE {english.format("")})
           OR {_TEXT} LIKE ANY (SELECT '%' || p || '%' FROM unnest(q.chinese) AS p)
           OR {_TEXT} LIKE ANY (SELECT '%' || s || '%' FROM unnest(q.short) AS s)
        ORDER BY shorts DESC, score DESC, id
        LIMIT ?"""


class PostgresNotesIndex:
    """The notes of `notes_dir` and the uploaded files, in the store's PostgreSQL database."""

    def __init__(self, db: PostgresDb, notes_dir: Path) -> None:
        self.db, self.notes_dir = db, notes_dir
        self._lock = asyncio.Lock()

    async def close(self) -> None:
        """Nothing of its own to close: the store's pool closes with the store."""

    async def refresh(self) -> int:
        """Re-index the files added, changed or removed since last time; how many."""
        async with self._lock:
            rows = await self.db.fetch("SELECT path, mtime_ns, size FROM notes_files")
            return await reindex(self.notes_dir, rows, self._replace)

    async def _replace(self, rel: str, stat: Stat | None,
                       passages: list[tuple[str, str]]) -> None:
        async with self.db.transaction() as conn:
            await conn.execute("SELECT pg_advisory_xact_lock(hashtext(?))", (rel,))
            await write_file(conn, rel, stat, passages)

    async def search(self, query: str, limit: int = 3,
                     scope: int | None = None) -> list[Passage]:
        """The best `limit` passages for `query`, best first: of NOTES_DIR's files and, with
        a `scope`, of the files uploaded to it (never another scope's)."""
        await self.refresh()
        pieces, short = query_pieces(query)
        if not pieces and not short:
            return []
        # Pieces are letters and digits only (query_pieces), so safe in a tsquery and a LIKE.
        english = [p for p in pieces if not is_chinese(p)]
        chinese = [p for p in pieces if is_chinese(p)]
        found = await self._ranked(_NOTES, (english, chinese, short, None, limit))
        if scope is not None:
            found += await self._ranked(_UPLOADS, (english, chinese, short, scope, limit))
            found.sort(key=lambda hit: hit[0])
        return [passage for _, passage in found[:limit]]

    async def _ranked(self, table: _Table,
                      params: tuple[object, ...]) -> list[tuple[tuple[int, float], Passage]]:
        rows = await self.db.fetch(_ranked_sql(table), params)
        return [((-row[4], -float(row[5])), Passage(row[0], row[1], row[2], row[3]))
                for row in rows]

    # --- uploaded files, per scope (per chat) -------------------------------------------

    async def put_upload(self, scope: int, upload: Upload,
                         sections: list[tuple[str, str, str]]) -> bool:
        """Index an uploaded file's (location, heading, body) sections in `scope`, in place
        of a file of the same name; whether one was replaced."""
        async with self.db.transaction() as conn:
            await conn.execute("SELECT pg_advisory_xact_lock(?, hashtext(?))",
                               (scope % 2**31, upload.name))
            replaced = await _drop_upload(conn, scope, upload.name)
            await conn.executemany(
                "INSERT INTO notes_upload_passages (scope, name, location, heading, body)"
                " VALUES (?, ?, ?, ?, ?)",
                [(scope, upload.name, *section) for section in sections])
            await conn.execute(
                "INSERT INTO notes_uploads (scope, name, kind, parts, chars)"
                " VALUES (?, ?, ?, ?, ?)",
                (scope, upload.name, upload.kind, upload.parts, upload.chars))
        return replaced

    async def forget_upload(self, scope: int, name: str) -> bool:
        """Remove an uploaded file from `scope`; whether there was one."""
        async with self.db.transaction() as conn:
            return await _drop_upload(conn, scope, name)

    async def uploads(self, scope: int) -> list[Upload]:
        rows = await self.db.fetch(
            "SELECT name, kind, parts, chars FROM notes_uploads WHERE scope = ? ORDER BY name",
            (scope,))
        return [Upload(*row) for row in rows]


async def _drop_upload(conn: Conn, scope: int, name: str) -> bool:
    await conn.execute(
        "DELETE FROM notes_upload_passages WHERE scope = ? AND name = ?", (scope, name))
    return await conn.execute(
        "DELETE FROM notes_uploads WHERE scope = ? AND name = ?", (scope, name)) > 0
