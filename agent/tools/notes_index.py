"""The course-notes index: passages of `NOTES_DIR`'s Markdown and text files in SQLite FTS5.

The trigram tokenizer makes Chinese searchable without a word segmenter. The index lives
in the bot's database (tables prefixed `notes_`) and is brought up to date before each
search by comparing each file's modification time and size with what was indexed.

Files are split and queries read on the event loop, so every regex here is linear in its
text: a heading's closing `#`s are cut with string methods, not a lazy regex that rescans.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from pathlib import Path

import aiosqlite

SUFFIXES = (".md", ".markdown", ".txt")
PASSAGE_CHARS = 600
MAX_FILE_BYTES = 2_000_000

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS notes_files ("
    " path TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL)",
    "CREATE VIRTUAL TABLE IF NOT EXISTS notes_passages USING fts5("
    " path UNINDEXED, heading, body, tokenize = 'trigram')",
)
_HEADING = re.compile(r"\s{0,3}#{1,6}(\s+)")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")
_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True, slots=True)
class Passage:
    path: str
    """The file's path relative to the notes directory."""
    heading: str
    body: str


def split_passages(text: str) -> list[tuple[str, str]]:
    """(heading, passage) pairs: paragraphs under their nearest heading, long ones cut."""
    out: list[tuple[str, str]] = []
    heading = ""
    paragraph: list[str] = []

    def flush() -> None:
        body = " ".join(" ".join(paragraph).split())
        paragraph.clear()
        for start in range(0, len(body), PASSAGE_CHARS):
            out.append((heading, body[start:start + PASSAGE_CHARS]))

    for line in text.splitlines():
        if (title := _heading(line)) is not None:
            flush()
            heading = title
        elif line.strip():
            paragraph.append(line.strip())
        else:
            flush()
    flush()
    return out


def _heading(line: str) -> str | None:
    """The title of a Markdown heading line (`## Title ##`), or None."""
    match = _HEADING.match(line)
    if match is None:
        return None
    rest = line[match.end():]
    if not rest:  # only spaces after the #s: the last of them is the title (as ever was)
        return line[-1] if len(match.group(1)) > 1 else None
    return rest.rstrip().rstrip("#").rstrip() or rest[0]


def match_query(query: str) -> tuple[str, list[str]]:
    """The FTS5 MATCH expression for `query`, and its two-character Chinese words.

    Words of three or more characters are matched as phrases; a run of Chinese is cut
    into overlapping three-character pieces, so '什么是思维链' finds '思维链'. Every
    piece is OR'ed and bm25 ranks the passages with the most (and rarest) pieces first.
    Two-character Chinese words ('工具') are too short for trigrams; shorter English
    words ('is', 'AI') are dropped: as substrings they would match almost anything.
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
    unique = list(dict.fromkeys(pieces))
    return " OR ".join('"' + p.replace('"', '""') + '"' for p in unique), short


class NotesIndex:
    """One aiosqlite connection to the bot's database; `search` refreshes, then ranks."""

    def __init__(self, db: aiosqlite.Connection, notes_dir: Path) -> None:
        self.db = db
        self.notes_dir = notes_dir
        self._lock = asyncio.Lock()

    @classmethod
    async def open(cls, database_path: Path, notes_dir: Path) -> NotesIndex:
        database_path.parent.mkdir(parents=True, exist_ok=True)
        db = await aiosqlite.connect(database_path)
        try:
            await db.execute("PRAGMA journal_mode=WAL")
            await db.execute("PRAGMA busy_timeout=5000")
            for statement in _SCHEMA:
                await db.execute(statement)
            await db.commit()
        except BaseException:
            await db.close()
            raise
        return cls(db, notes_dir)

    async def close(self) -> None:
        await self.db.close()

    def _files(self) -> dict[str, tuple[Path, int, int]]:
        """Relative path -> (path, mtime in ns, size) of every notes file on disk now."""
        if not self.notes_dir.is_dir():
            return {}
        found: dict[str, tuple[Path, int, int]] = {}
        for path in sorted(self.notes_dir.rglob("*")):
            if path.suffix.lower() in SUFFIXES and path.is_file():
                stat = path.stat()
                if stat.st_size <= MAX_FILE_BYTES:
                    found[path.relative_to(self.notes_dir).as_posix()] = (
                        path, stat.st_mtime_ns, stat.st_size)
        return found

    async def refresh(self) -> int:
        """Re-index the files added, changed or removed since last time; how many."""
        async with self._lock:
            on_disk = await asyncio.to_thread(self._files)
            async with self.db.execute("SELECT path, mtime_ns, size FROM notes_files") as cur:
                indexed = {row[0]: (row[1], row[2]) async for row in cur}
            stale = [rel for rel in indexed  # removed or changed since indexed
                     if rel not in on_disk or on_disk[rel][1:] != indexed[rel]]
            fresh = [p for p in on_disk if p not in indexed or p in stale]
            if not stale and not fresh:
                return 0
            for rel in stale:
                await self.db.execute("DELETE FROM notes_passages WHERE path = ?", (rel,))
                await self.db.execute("DELETE FROM notes_files WHERE path = ?", (rel,))
            for rel in fresh:
                path, mtime, size = on_disk[rel]
                text = await asyncio.to_thread(path.read_text, "utf-8", "replace")
                await self.db.executemany(
                    "INSERT INTO notes_passages (path, heading, body) VALUES (?, ?, ?)",
                    [(rel, heading, body) for heading, body in split_passages(text)])
                await self.db.execute(
                    "INSERT INTO notes_files (path, mtime_ns, size) VALUES (?, ?, ?)",
                    (rel, mtime, size))
            await self.db.commit()
            return len(set(stale) | set(fresh))

    async def search(self, query: str, limit: int = 3) -> list[Passage]:
        """The best `limit` passages for `query`, best first."""
        await self.refresh()
        expression, short = match_query(query)
        # How many of the two-character words a passage holds: they rank first among the
        # trigram matches, and alone they select passages by a (small) scan.
        hits = " + ".join(["(instr(lower(heading || ' ' || body), ?) > 0)"] * len(short))
        if expression:
            first = f"{hits} DESC, " if short else ""
            sql = (f"SELECT path, heading, body FROM notes_passages WHERE notes_passages MATCH ?"
                   f" ORDER BY {first}bm25(notes_passages, 0.0, 2.0, 1.0) LIMIT ?")
            rows = await self.db.execute_fetchall(sql, (expression, *short, limit))
        elif short:
            sql = (f"SELECT path, heading, body FROM notes_passages WHERE {hits} > 0"
                   f" ORDER BY {hits} DESC, rowid LIMIT ?")
            rows = await self.db.execute_fetchall(sql, (*short, *short, limit))
        else:
            return []
        return [Passage(row[0], row[1], row[2]) for row in rows]
