"""The course-notes index: passages of `NOTES_DIR`'s Markdown and text files in SQLite FTS5.

`SearchNotes` needs only a `NotesIndex`, something it can `search`. `SqliteNotesIndex` is
the one implementation: it works on an aiosqlite connection it is given, whose tables
(`SCHEMA`) exist already. The agent keeps one in a private in-memory database of its own
(`SqliteNotesIndex.in_memory`); a front end may keep one in its own database, where it
creates the tables itself (the bot: migration m004). The agent knows no database file.

The trigram tokenizer makes Chinese searchable without a word segmenter. The index is
brought up to date before each search by comparing each file's modification time and
size with what was indexed.

Queries are read on the event loop, so every regex here is linear in its text (as
agent/passages.py's, which splits the files).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import aiosqlite

from agent.passages import split_passages

SUFFIXES = (".md", ".markdown", ".txt")
MAX_FILE_BYTES = 2_000_000
BATCH_ROWS = 50
"""Passages an upload writes (or deletes) in one transaction: few enough that the database's
write lock is held briefly, so answers storing their steps meanwhile are not held up
(docs/reliability.md)."""
BATCH_PAUSE_S = 0.05
"""The pause between an upload's transactions, in which a waiting writer's busy handler
(which polls every up to 100 ms) finds the lock free."""


@dataclass(frozen=True, slots=True)
class PassageTable:
    """An FTS5 table of passages: its columns, and so how `search` reads and ranks it."""

    name: str
    columns: tuple[str, ...]
    """In order, as CREATE names them; bm25 weighs them in this order."""
    hit: str
    """What a hit reads: its path (or name), heading, body and location."""
    scoped: bool = False
    """Whether its rows belong to a scope (uploads) and a search reads one scope's only."""

    @property
    def create(self) -> str:
        return (f"CREATE VIRTUAL TABLE {self.name} USING fts5("
                f" {', '.join(self.columns)}, tokenize = 'trigram')")

    @property
    def weights(self) -> str:
        """bm25's weight per column: a heading counts twice the body, the others nothing."""
        return ", ".join({"heading": "2.0", "body": "1.0"}.get(column.split()[0], "0.0")
                         for column in self.columns)


NOTES_PASSAGES = PassageTable("notes_passages", ("path UNINDEXED", "heading", "body"),
                              "path, heading, body, ''")
UPLOAD_PASSAGES = PassageTable(
    "notes_upload_passages",
    ("scope UNINDEXED", "name UNINDEXED", "location UNINDEXED", "heading", "body"),
    "name, heading, body, location", scoped=True)

SCHEMA = (
    "CREATE TABLE notes_files ("
    " path TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL)",
    NOTES_PASSAGES.create,
    "CREATE TABLE notes_uploads ("
    " scope INTEGER NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL, parts INTEGER NOT NULL,"
    " chars INTEGER NOT NULL, PRIMARY KEY (scope, name))",
    UPLOAD_PASSAGES.create,
)
"""The tables `SqliteNotesIndex` works on, as the agent creates them in its own in-memory
database. A front end keeping the index in its database creates them its own way (with the
passage tables' columns in the same order)."""
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")
_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True, slots=True)
class Passage:
    path: str
    """The file's path relative to the notes directory, or an uploaded file's name."""
    heading: str
    body: str
    location: str = ""
    """Where in an uploaded file: "p. 12" for a PDF's page; empty otherwise."""


@dataclass(frozen=True, slots=True)
class Upload:
    """An uploaded file as indexed (agent/tools/documents.py read it)."""

    name: str
    kind: str
    parts: int
    chars: int


class NotesIndex(Protocol):
    """What `SearchNotes` needs; whoever opens an index closes it."""

    async def search(self, query: str, limit: int = 3) -> list[Passage]:
        """The best `limit` passages for `query`, best first (none: an empty list)."""
        ...


@runtime_checkable
class CourseNotes(Protocol):
    """An index that also keeps files uploaded to a scope (the bot's, in its database:
    `SqliteNotesIndex`, or bot.store.pg_notes's on PostgreSQL)."""

    async def search(self, query: str, limit: int = 3,
                     scope: int | None = None) -> list[Passage]: ...

    async def put_upload(self, scope: int, upload: Upload,
                         sections: list[tuple[str, str, str]]) -> bool: ...

    async def forget_upload(self, scope: int, name: str) -> bool: ...

    async def uploads(self, scope: int) -> list[Upload]: ...

    async def close(self) -> None: ...


def match_query(query: str) -> tuple[str, list[str]]:
    """The FTS5 MATCH expression for `query`, and its two-character Chinese words.

    Every piece (`query_pieces`) is matched as a phrase, OR'ed, and bm25 ranks the passages
    with the most (and rarest) pieces first.
    """
    unique, short = query_pieces(query)
    return " OR ".join('"' + p.replace('"', '""') + '"' for p in unique), short


def is_chinese(piece: str) -> bool:
    return _CJK.fullmatch(piece) is not None


def query_pieces(query: str) -> tuple[list[str], list[str]]:
    """What a search looks for: the query's pieces (each once, lower case), and its
    two-character Chinese words.

    Words of three or more characters are pieces; a run of Chinese is cut into overlapping
    three-character pieces, so '什么是思维链' finds '思维链'. Two-character Chinese words
    ('工具') are too short for trigrams; shorter English words ('is', 'AI') are dropped: as
    substrings they would match almost anything.
    """
    pieces: list[str] = []
    short: list[str] = []
    for word in _WORD.findall(query.lower()):
        for part in re.split(f"({_CJK.pattern})", word):
            if not part:
                continue
            if _CJK.fullmatch(part) and len(part) > 3:
                pieces.extend(part[i:i + 3] for i in range(len(part) - 2))
            elif len(part) >= 3:
                pieces.append(part)
            elif len(part) == 2 and _CJK.fullmatch(part):
                short.append(part)
    return list(dict.fromkeys(pieces)), short


def scan(notes_dir: Path) -> dict[str, tuple[Path, int, int]]:
    """Relative path -> (path, mtime in ns, size) of every notes file on disk now."""
    if not notes_dir.is_dir():
        return {}
    found: dict[str, tuple[Path, int, int]] = {}
    for path in sorted(notes_dir.rglob("*")):
        if path.suffix.lower() in SUFFIXES and path.is_file():
            stat = path.stat()
            if stat.st_size <= MAX_FILE_BYTES:
                found[path.relative_to(notes_dir).as_posix()] = (
                    path, stat.st_mtime_ns, stat.st_size)
    return found


def _read_passages(path: Path) -> list[tuple[str, str]]:
    return split_passages(path.read_text("utf-8", "replace"))


Stat = tuple[int, int]
"""A notes file's (mtime in ns, size): what tells that it changed."""


class Writer(Protocol):
    """A connection's two writing calls (aiosqlite's, or the bot's PostgreSQL one)."""

    async def execute(self, sql: str, parameters: Sequence[Any], /) -> Any: ...

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]], /) -> Any: ...


async def write_file(db: Writer, rel: str, stat: Stat | None,
                     passages: list[tuple[str, str]]) -> None:
    """Put file `rel` (mtime, size) with its passages in place of what was indexed for it
    (`stat` None: it is gone), inside the caller's transaction."""
    await db.execute("DELETE FROM notes_passages WHERE path = ?", (rel,))
    await db.execute("DELETE FROM notes_files WHERE path = ?", (rel,))
    if stat is not None:
        await db.executemany("INSERT INTO notes_passages (path, heading, body) VALUES (?, ?, ?)",
                             [(rel, heading, body) for heading, body in passages])
        await db.execute("INSERT INTO notes_files (path, mtime_ns, size) VALUES (?, ?, ?)",
                         (rel, *stat))


async def reindex(notes_dir: Path, indexed: Iterable[Sequence[Any]],
                  replace: Callable[[str, Stat | None, list[tuple[str, str]]], Awaitable[None]]
                  ) -> int:
    """Hand each file added, changed or removed since `indexed` (rows of path, mtime_ns and
    size) to `replace`, with its stat now and its passages; how many."""
    count = 0
    async for rel, stat, passages in changes(notes_dir, {row[0]: (row[1], row[2])
                                                         for row in indexed}):
        await replace(rel, stat, passages)
        count += 1
    return count


async def changes(notes_dir: Path, indexed: dict[str, Stat]
                  ) -> AsyncIterator[tuple[str, Stat | None, list[tuple[str, str]]]]:
    """The files added, changed or removed since `indexed` (path -> stat): each path with its
    stat now (None: gone) and its passages, read when it comes up (off the event loop)."""
    on_disk = await asyncio.to_thread(scan, notes_dir)
    now = {rel: (mtime, size) for rel, (_, mtime, size) in on_disk.items()}
    for rel in sorted(rel for rel in now.keys() | indexed.keys()
                      if now.get(rel) != indexed.get(rel)):
        passages = (await asyncio.to_thread(_read_passages, on_disk[rel][0])
                    if rel in on_disk else [])
        yield rel, now.get(rel), passages


class SqliteNotesIndex:
    """The index in the `notes_` tables of the connection it is given: `search` refreshes,
    then ranks with bm25.

    It takes over `db` (`close` closes it), which must be in autocommit mode
    (isolation_level=None) with the tables of `SCHEMA` in it. Each file is re-indexed in a
    short `BEGIN IMMEDIATE` transaction of its own, the file read before it begins, so a
    database shared with another writer (the bot's store) keeps that writer waiting for
    milliseconds at most, and `busy_timeout` covers the wait.
    """

    def __init__(self, db: aiosqlite.Connection, notes_dir: Path) -> None:
        self.db = db
        self.notes_dir = notes_dir
        self._lock = asyncio.Lock()

    @classmethod
    async def in_memory(cls, notes_dir: Path) -> SqliteNotesIndex:
        """An index in a private in-memory database: rebuilt from the files once per process."""
        db = await aiosqlite.connect(":memory:", isolation_level=None)
        try:
            for statement in SCHEMA:
                await db.execute(statement)
        except BaseException:
            await db.close()
            raise
        return cls(db, notes_dir)

    async def close(self) -> None:
        await self.db.close()

    async def refresh(self) -> int:
        """Re-index the files added, changed or removed since last time; how many."""
        async with self._lock:
            rows = await self.db.execute_fetchall("SELECT path, mtime_ns, size FROM notes_files")
            return await reindex(self.notes_dir, rows, self._replace)

    async def _replace(self, rel: str, stat: Stat | None,
                       passages: list[tuple[str, str]]) -> None:
        """Put file `rel` (mtime, size) with its passages in place of what was indexed for it;
        `stat` None: it is gone."""
        async with self._transaction():
            await write_file(self.db, rel, stat, passages)

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[None]:
        """A short `BEGIN IMMEDIATE` transaction: committed, or rolled back on any error."""
        await self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            await self.db.execute("ROLLBACK")
            raise
        await self.db.execute("COMMIT")

    async def search(self, query: str, limit: int = 3,
                     scope: int | None = None) -> list[Passage]:
        """The best `limit` passages for `query`, best first: of NOTES_DIR's files and, with
        a `scope`, of the files uploaded to it (never another scope's)."""
        await self.refresh()
        expression, short = match_query(query)
        if not expression and not short:
            return []
        found = await self._ranked(NOTES_PASSAGES, None, expression, short, limit)
        if scope is not None:
            found += await self._ranked(UPLOAD_PASSAGES, scope, expression, short, limit)
            found.sort(key=lambda hit: hit[0])
        return [passage for _, passage in found[:limit]]

    async def _ranked(self, passages: PassageTable, scope: int | None, expression: str,
                      short: list[str],
                      limit: int) -> list[tuple[tuple[int, float], Passage]]:
        """(rank key, passage) of the table's best passages (of `scope`'s, if it has scopes):
        the two-character Chinese words a passage holds first, then bm25 (its weights)."""
        hits = " + ".join(["(instr(lower(heading || ' ' || body), ?) > 0)"] * len(short)) or "0"
        table, columns, weights = passages.name, passages.hit, passages.weights
        where, params = ("scope = ? AND ", (scope,)) if passages.scoped else ("", ())
        if expression:
            first = f"{hits} DESC, " if short else ""  # ORDER BY 0 would name a column
            sql = (f"SELECT {columns}, {hits}, bm25({table}, {weights}) FROM {table}"
                   f" WHERE {where}{table} MATCH ? ORDER BY {first}"
                   f"bm25({table}, {weights}) LIMIT ?")
            rows = await self.db.execute_fetchall(
                sql, (*short, *params, expression, *short, limit))
        else:
            sql = (f"SELECT {columns}, {hits}, 0.0 FROM {table} WHERE {where}{hits} > 0"
                   f" ORDER BY {hits} DESC, rowid LIMIT ?")
            rows = await self.db.execute_fetchall(sql, (*short, *params, *short, *short, limit))
        return [((-row[4], row[5]), Passage(row[0], row[1], row[2], row[3])) for row in rows]

    # --- uploaded files, per scope (the bot: per chat) ---------------------------------

    async def put_upload(self, scope: int, upload: Upload,
                         sections: list[tuple[str, str, str]]) -> bool:
        """Index an uploaded file's (location, heading, body) sections in `scope`, in place
        of a file of the same name; whether one was replaced.

        A file of a million characters takes a second of writes, so they go in batches of
        `BATCH_ROWS`, each its own transaction, with a pause between them in which another
        writer of the database (the bot's store) gets its turn. The file is listed from the
        first batch on; a search meanwhile finds the part written so far."""
        async with self._lock:
            old = await self._rowids(scope, upload.name)
            async with self._transaction():
                cursor = await self.db.execute(
                    "DELETE FROM notes_uploads WHERE scope = ? AND name = ?", (scope, upload.name))
                await self.db.execute(
                    "INSERT INTO notes_uploads (scope, name, kind, parts, chars)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (scope, upload.name, upload.kind, upload.parts, upload.chars))
            replaced = cursor.rowcount > 0
            await self._delete_rows(old)
            rows = [(scope, upload.name, *section) for section in sections]
            for start in range(0, len(rows), BATCH_ROWS):
                await asyncio.sleep(BATCH_PAUSE_S if start else 0)
                async with self._transaction():
                    await self.db.executemany(
                        "INSERT INTO notes_upload_passages (scope, name, location, heading,"
                        " body) VALUES (?, ?, ?, ?, ?)", rows[start:start + BATCH_ROWS])
        return replaced

    async def forget_upload(self, scope: int, name: str) -> bool:
        """Remove an uploaded file from `scope`; whether there was one."""
        async with self._lock:
            rows = await self._rowids(scope, name)
            async with self._transaction():
                cursor = await self.db.execute(
                    "DELETE FROM notes_uploads WHERE scope = ? AND name = ?", (scope, name))
            await self._delete_rows(rows)
            return cursor.rowcount > 0

    async def uploads(self, scope: int) -> list[Upload]:
        rows = await self.db.execute_fetchall(
            "SELECT name, kind, parts, chars FROM notes_uploads WHERE scope = ? ORDER BY name",
            (scope,))
        return [Upload(*row) for row in rows]

    async def _rowids(self, scope: int, name: str) -> list[int]:
        """The passages of an uploaded file (read before writing: readers take no lock)."""
        rows = await self.db.execute_fetchall(
            "SELECT rowid FROM notes_upload_passages WHERE scope = ? AND name = ?",
            (scope, name))
        return [row[0] for row in rows]

    async def _delete_rows(self, rowids: list[int]) -> None:
        """Delete passages by rowid, in batches as `put_upload` writes them."""
        for start in range(0, len(rowids), BATCH_ROWS):
            await asyncio.sleep(BATCH_PAUSE_S if start else 0)
            batch = rowids[start:start + BATCH_ROWS]
            async with self._transaction():
                await self.db.execute(
                    "DELETE FROM notes_upload_passages WHERE rowid IN"
                    f" ({', '.join('?' * len(batch))})", batch)


@dataclass(frozen=True, slots=True)
class ScopedNotes:
    """The index as one scope sees it: the shared notes and its own uploads."""

    index: CourseNotes
    scope: int

    async def search(self, query: str, limit: int = 3) -> list[Passage]:
        return await self.index.search(query, limit, scope=self.scope)
