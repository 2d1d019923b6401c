"""Markdown pipe tables as aligned monospace text, for a code block in the chat and the export.

Telegram has no tables, and in a proportional font "a │ b" rows do not line up. In a
monospace block they do, if each cell is padded to the width it takes on screen: a CJK
character (East Asian Width W or F) takes two columns, a combining mark none.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

Align = Literal["left", "right", "center"]

_RULE_CELL = re.compile(r"\s*+(:?)-++(:?)\s*+")
COLUMN_GAP = " | "
RULE_GAP = "-+-"
"""ASCII, not box drawing: "│" and "─" are ambiguous-width, and a CJK monospace font draws
them two columns wide, which breaks the alignment the padding made."""


def display_width(text: str) -> int:
    """Columns `text` takes in a monospace font: wide and full-width characters count two,
    combining marks and zero-width characters none."""
    width = 0
    for ch in text:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def split_row(line: str) -> list[str]:
    """The cells of a table line: `| a | b |` or `a | b` (outer pipes optional)."""
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    return [cell.strip() for cell in body.split("|")]


def alignments(rule: str) -> list[Align]:
    """Each column's alignment from the `|:---|---:|:--:|` line under the header."""
    out: list[Align] = []
    for cell in split_row(rule):
        m = _RULE_CELL.fullmatch(cell)
        left, right = (m.group(1), m.group(2)) if m else ("", "")
        out.append("center" if left and right else "right" if right else "left")
    return out


MAX_PADDING = 20_000
"""The most characters of padding a table gets. Padded, a table takes rows × columns × the
widest cell of each column, quadratic in what was written: a model's table of thousands of
one-character columns and as many rows would come to tens of millions. One that would need
more is drawn with its cells as written, unaligned."""


def table_text(rows: list[list[str]], aligns: list[Align]) -> str:
    """`rows` (the header first) as lines of padded columns, a rule under the header."""
    columns = max(len(row) for row in rows)
    sizes = [[display_width(cell) for cell in row] for row in rows]
    widths = [0] * columns
    for row_sizes in sizes:
        for c, size in enumerate(row_sizes):
            widths[c] = max(widths[c], size)
    gap = len(COLUMN_GAP)
    padded = len(rows) * (sum(widths) + gap * (columns - 1))
    if padded - sum(sum(row) + gap * (len(row) - 1) for row in sizes) > MAX_PADDING:
        lines = [COLUMN_GAP.join(row).rstrip() for row in rows]
        return "\n".join([lines[0], "-" * display_width(lines[0]), *lines[1:]])
    grid = [row + [""] * (columns - len(row)) for row in rows]
    aligns = aligns + ["left"] * (columns - len(aligns))
    lines = [COLUMN_GAP.join(_pad(cell, widths[c], aligns[c]) for c, cell in enumerate(row))
             .rstrip() for row in grid]
    rule = RULE_GAP.join("-" * width for width in widths)
    return "\n".join([lines[0], rule, *lines[1:]])


def _pad(cell: str, width: int, align: Align) -> str:
    room = width - display_width(cell)
    if align == "right":
        return " " * room + cell
    if align == "center":
        return " " * (room // 2) + cell + " " * (room - room // 2)
    return cell + " " * room
