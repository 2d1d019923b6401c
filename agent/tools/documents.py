"""Course notes a person uploads (the bot's `/notes`): a PDF, Markdown or plain-text file read
into passages that say where they are ("p. 12", or the section's heading), for the notes
index to keep and search_notes to cite.

A PDF's text is extracted with pypdf, page by page; a scanned PDF has none, and says so.
"""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass
from pathlib import PurePath
from typing import Literal

from pypdf import PdfReader

from agent.tools.notes_index import split_passages

log = logging.getLogger(__name__)

Kind = Literal["pdf", "markdown", "text"]
KINDS: dict[str, Kind] = {".pdf": "pdf", ".md": "markdown", ".markdown": "markdown",
                          ".txt": "text"}
MAX_PAGES = 2000


class DocumentError(ValueError):
    """A file that cannot be indexed; `reason` says why: `type`, `unreadable`, `empty`."""

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
    """Pages of a PDF; headed sections of a Markdown or text file (1 if it has none)."""
    chars: int
    """Characters of text indexed."""


def kind_of(name: str) -> Kind | None:
    return KINDS.get(PurePath(name).suffix.lower())


def read_document(name: str, data: bytes) -> Document:
    """The file's passages; DocumentError if it is of another type, unreadable or has no
    text (a scanned PDF)."""
    kind = kind_of(name)
    if kind is None:
        raise DocumentError("type")
    if kind == "pdf":
        sections, parts = _pdf(data)
    else:
        text = data.decode("utf-8", "replace")
        sections = tuple(Section("", heading, body) for heading, body in split_passages(text))
        parts = max(1, len({s.heading for s in sections if s.heading}))
    chars = sum(len(s.body) for s in sections)
    if not chars:
        raise DocumentError("empty")
    return Document(name, kind, sections, parts, chars)


def _pdf(data: bytes) -> tuple[tuple[Section, ...], int]:
    try:
        reader = PdfReader(io.BytesIO(data))
        pages = reader.pages
        count = len(pages)
        sections: list[Section] = []
        for number, page in enumerate(pages, 1):
            if number > MAX_PAGES:
                break
            text = page.extract_text() or ""
            sections += [Section(f"p. {number}", heading, body)
                         for heading, body in split_passages(text)]
    except Exception as err:  # pypdf raises many kinds on a damaged or hostile file
        log.info("unreadable PDF: %s", err)
        raise DocumentError("unreadable", str(err)) from None
    return tuple(sections), count
