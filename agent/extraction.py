"""Reading an uploaded file's text in a process of its own, so a hostile or merely huge file
costs that process, never the bot: `python -m agent.extraction KIND CHARS PAGE_CHARS PAGES
MEMORY_MB CPU_S` reads the file from stdin and writes what it reads to stdout, one JSON
array a line, as it goes (agent/tools/documents.py starts it, reads the lines and kills it
at its time limit):

    ["pages", 12]                        a PDF's page count, first
    ["section", "p. 3", heading, body]   a passage
    ["page", 3, cut]                     page 3 is done; `cut`: longer than PAGE_CHARS
    ["text", 19500000]                   a text file's characters, all of them
    ["end", reason]                      done: "" all of it, "chars" CHARS kept (the rest
                                         left), "pages" PAGES read, "memory" MEMORY_MB hit
    ["error", "unreadable"]              the file (or its next page) cannot be read

It caps its own address space (MEMORY_MB) and CPU time (CPU_S, in case its parent is gone
and cannot kill it) and runs at a lower priority than the bot. Standard library, pypdf and
agent.passages only: it starts in a fraction of a second.
"""

from __future__ import annotations

import io
import json
import os
import resource
import sys
from collections.abc import Iterator
from typing import Any

from agent.passages import split_passages

HEADING_CHARS = 200
"""A heading longer than this (a "# " line of a megabyte) is cut: each line stays short."""


def _emit(*item: Any) -> None:
    sys.stdout.write(json.dumps(item, ensure_ascii=False) + "\n")


def _sections(text: str, room: int) -> Iterator[tuple[str, str]]:
    """The passages of `text` (at most `room` characters of them)."""
    for heading, body in split_passages(text):
        if room <= 0:
            return
        yield heading[:HEADING_CHARS], body[:room]
        room -= len(body)


def read_text(data: bytes, chars: int) -> str:
    """A text or Markdown file: its first `chars` characters as passages."""
    text = data.decode("utf-8", "replace")
    _emit("text", len(text))
    for heading, body in _sections(text[:chars], chars):
        _emit("section", "", heading, body)
    return "chars" if len(text) > chars else ""


def read_pdf(data: bytes, chars: int, page_chars: int, pages: int) -> str:
    """A PDF, page by page, each page's text cut at `page_chars`, until `chars` are kept or
    `pages` pages read."""
    from pypdf import PdfReader  # only a PDF needs it

    reader = PdfReader(io.BytesIO(data))
    count = len(reader.pages)
    _emit("pages", count)
    kept = 0
    for number, page in enumerate(reader.pages, 1):
        if number > pages:
            return "pages"
        text = page.extract_text() or ""
        for heading, body in _sections(text[:page_chars], chars - kept):
            _emit("section", f"p. {number}", heading, body)
            kept += len(body)
        _emit("page", number, len(text) > page_chars)
        sys.stdout.flush()
        if kept >= chars:
            return "chars" if number < count else ""
    return ""


def _limit(memory_mb: int, cpu_s: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory_mb * 1024 * 1024,) * 2)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s))
    os.nice(10)


def main(argv: list[str]) -> int:
    kind, chars, page_chars, pages, memory_mb, cpu_s = argv
    _limit(int(memory_mb), int(cpu_s))
    data = sys.stdin.buffer.read()
    try:
        if kind == "pdf":
            reason = read_pdf(data, int(chars), int(page_chars), int(pages))
        else:
            reason = read_text(data, int(chars))
    except MemoryError:
        reason = "memory"
    except Exception:  # pypdf raises many kinds on a damaged or hostile file
        _emit("error", "unreadable")
        return 0
    _emit("end", reason)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
