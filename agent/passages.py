"""A text cut into passages under their headings: what the notes index keeps and
search_notes cites. Kept apart from the index (and light: the standard library only) so the
process that reads an uploaded file (agent/extraction.py) starts without the agent's HTTP
and settings stack.

Every regex here is linear in its text: a heading's closing `#`s are cut with string
methods, not a lazy regex that rescans.
"""

from __future__ import annotations

import re

PASSAGE_CHARS = 600
_HEADING = re.compile(r"\s{0,3}#{1,6}(\s+)")


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
    if not rest:  # only spaces after the #s: the last of them is the title
        return line[-1] if len(match.group(1)) > 1 else None
    return rest.rstrip().rstrip("#").rstrip() or rest[0]

