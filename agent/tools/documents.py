"""Course notes a person uploads (the bot's `/notes`): a PDF, Markdown or plain-text file read
into passages that say where they are ("p. 12", or the section's heading), for the notes
index to keep and search_notes to cite.

The file is read in a process of its own (agent/extraction.py) with a memory limit, killed
at a time limit, so a PDF whose pages decode to megabytes of drawing operators, or a 20 MB
text file, costs that process and a bounded wait, never the event loop. What it read by
then is kept, up to `Limits.chars` characters a file and `Limits.page_chars` a page, and
`Document` says what was cut and why. A scanned PDF has no text, and says so.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import os
import sys
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path, PurePath
from typing import Literal

from wire.wire_errors import GlassboxError

log = logging.getLogger(__name__)

Kind = Literal["pdf", "markdown", "text"]
KINDS: dict[str, Kind] = {".pdf": "pdf", ".md": "markdown", ".markdown": "markdown",
                          ".txt": "text"}
_ROOT = Path(__file__).resolve().parents[2]
"""Where the `agent` package lives, for the extraction process's import path."""
_PASSED_ON = frozenset({"PATH", "PYTHONPATH", "PYTHONHOME", "LANG", "LC_ALL", "LC_CTYPE",
                        "TMPDIR"})
"""The environment the reading process gets: none of the bot's settings, so a file that
took over the parser would find no token or key there."""
_LINE_BYTES = 64 * 1024
"""The longest line the extraction process writes: a passage and its (cut) heading."""


class Stop(StrEnum):
    """Why reading stopped before the end of the file (NONE: it did not)."""

    NONE = ""
    CHARS = "chars"
    """`Limits.chars` characters kept; the rest left out."""
    PAGES = "pages"
    TIME = "time"
    MEMORY = "memory"
    UNREADABLE = "unreadable"
    """A later page could not be read."""


@dataclass(frozen=True, slots=True)
class Limits:
    chars: int = 1_000_000
    """Characters kept a file: a 400-page book's text."""
    page_chars: int = 20_000
    """Characters kept a page: four dense pages of text; past that a page is drawing."""
    pages: int = 2000
    seconds: float = 30.0
    """Reading stops (the process is killed) after this long."""
    memory_mb: int = 768
    """The reading process's address space."""


class DocumentError(GlassboxError, ValueError):
    """A file that cannot be indexed; `reason` says why: `type`, `unreadable`, `empty`,
    `time` or `memory` (nothing read within the limit)."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(detail or reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Section:
    location: str
    """Where in the file: "p. 12" for a PDF's page, "" for a text file (its heading says)."""
    heading: str
    body: str


@dataclass(frozen=True, slots=True)
class Document:
    name: str
    kind: Kind
    sections: tuple[Section, ...]
    parts: int
    """Pages of a PDF read; headed sections of a Markdown or text file (1 if it has none)."""
    chars: int
    """Characters of text indexed."""
    stop: Stop = Stop.NONE
    total: int = 0
    """A PDF's pages; a text file's characters (what `parts`/`chars` are out of)."""
    long_pages: int = 0
    """Pages cut at `Limits.page_chars`."""


def kind_of(name: str) -> Kind | None:
    return KINDS.get(PurePath(name).suffix.lower())


@dataclass
class _Reading:
    """What the extraction process said so far."""

    sections: list[Section]
    pages: int = 0
    total: int = 0
    long_pages: int = 0
    stop: Stop | None = None
    """None: it has not said it ended."""
    error: bool = False

    def take(self, item: list[object]) -> None:
        kind = item[0]
        if kind == "section":
            self.sections.append(Section(str(item[1]), str(item[2]), str(item[3])))
        elif kind == "page":
            self.pages += 1
            self.long_pages += bool(item[2])
        elif kind in ("pages", "text"):
            self.total = int(item[1])  # type: ignore[call-overload]
        elif kind == "end":
            self.stop = Stop(item[1])
        elif kind == "error":
            self.error = True
            self.stop = Stop.UNREADABLE


async def read_document(name: str, data: bytes, limits: Limits = Limits()) -> Document:
    """The file's passages, as far as `limits` let it be read; DocumentError if it is of
    another type, unreadable or has no text (a scanned PDF), or nothing was read within the
    limits."""
    kind = kind_of(name)
    if kind is None:
        raise DocumentError("type")
    reading = await _extract(kind, data, limits)
    sections = tuple(reading.sections)
    chars = sum(len(s.body) for s in sections)
    stop = Stop.MEMORY if reading.stop is None else reading.stop  # died without a word
    if not chars:
        if reading.error and not reading.pages:
            raise DocumentError("unreadable")
        raise DocumentError(stop.value if stop in (Stop.TIME, Stop.MEMORY) else "empty")
    parts = (reading.pages if kind == "pdf"
             else max(1, len({s.heading for s in sections if s.heading})))
    return Document(name, kind, sections, parts, chars, stop, reading.total,
                    reading.long_pages)


async def _extract(kind: Kind, data: bytes, limits: Limits) -> _Reading:
    """Run agent/extraction.py on `data`; what it said before it ended or was killed."""
    env = {name: value for name, value in os.environ.items() if name in _PASSED_ON}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(_ROOT), env.get("PYTHONPATH"))))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "agent.extraction", kind, str(limits.chars),
        str(limits.page_chars), str(limits.pages), str(limits.memory_mb),
        str(math.ceil(limits.seconds) + 1), stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, env=env,
        limit=_LINE_BYTES)
    assert proc.stdin is not None and proc.stdout is not None
    reading = _Reading([])

    async def feed() -> None:
        assert proc.stdin is not None
        try:
            proc.stdin.write(data)
            await proc.stdin.drain()
            proc.stdin.close()
        except (BrokenPipeError, ConnectionResetError):
            return  # it died before reading it all: its lines say why

    async def collect() -> None:
        assert proc.stdout is not None
        async for line in proc.stdout:
            reading.take(json.loads(line))

    try:
        async with asyncio.timeout(limits.seconds):
            await asyncio.gather(feed(), collect())
    except TimeoutError:
        reading.stop = Stop.TIME
    finally:
        if proc.returncode is None:
            proc.kill()
        code = await proc.wait()
    if reading.stop is None:
        log.info("extraction of a %s ended without a word (exit %s)", kind, code)
    return reading
