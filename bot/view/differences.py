"""The digits that differ between /compare's two answers, marked in both
(agent/grounding/figure_diff.py decides which): `<mark>` on the board and in the export,
underlined in the chat.

The marks go into each answer's text as two private-use characters before its Markdown is
drawn, and become markup after: drawing the Markdown then needs to know nothing of them.
The model's own text never carries them (they are taken out first).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from agent.grounding.figure_diff import differing
from agent.ledger import Entry
from bot.view.spans import Span
from bot.view.transcript import Transcript

OPEN, CLOSE = "\ue002", "\ue003"
"""Not bot.view.grounding_marks's two: a marked digit sits inside its figure's span."""
U = "<u>"

Drawn = tuple[str, tuple[Entry, ...]]
"""An answer's text to draw and its ledger, whose offsets are into that text."""


def plain_text(text: str) -> str:
    """`text` without the two mark characters (a model could write them)."""
    return text.replace(OPEN, "").replace(CLOSE, "")


def compared_answers(plain: Transcript, react: Transcript) -> tuple[Drawn, Drawn]:
    """Each lane's answer and ledger and, once both answers are final, the digits that differ
    between them inside OPEN and CLOSE, the ledger's offsets moved to match (a draft's marks
    would come and go as it streams)."""
    first, second = plain_text(plain.answer), plain_text(react.answer)
    if not (plain.answer_final and react.answer_final):
        return (first, tuple(plain.ledger)), (second, tuple(react.ledger))
    pairs = differing(first, second)
    return (_marked(first, {i for p in pairs for i in p.left_marks}, plain.ledger),
            _marked(second, {i for p in pairs for i in p.right_marks}, react.ledger))


def _marked(text: str, at: set[int], ledger: Sequence[Entry]) -> Drawn:
    out: list[str] = []
    added: list[tuple[int, str]] = []  # (where in `text`, which mark)
    inside = False
    for i, char in enumerate(text):
        if (i in at) != inside:
            inside = not inside
            added.append((i, OPEN if inside else CLOSE))
            out.append(added[-1][1])
        out.append(char)
    if inside:
        added.append((len(text), CLOSE))
        out.append(CLOSE)

    def moved(e: Entry) -> Entry:  # a mark at a figure's edge goes inside it
        before = sum(pos < e.start for pos, _ in added)
        within = sum(pos < e.end or (pos == e.end and mark == CLOSE) for pos, mark in added)
        return replace(e, start=e.start + before, end=e.end + within)

    return "".join(out), tuple(moved(e) for e in ledger)


def to_html_marks(html_text: str) -> str:
    """Drawn HTML with the marks as `<mark class="differs">`."""
    return html_text.replace(OPEN, '<mark class="differs">').replace(CLOSE, "</mark>")


def to_span_marks(spans: list[Span]) -> list[Span]:
    """Telegram spans with the marked digits underlined (inside code they stay plain)."""
    out: list[Span] = []
    inside = False
    for text, tags in spans:
        piece = ""
        for char in text:
            if char in (OPEN, CLOSE):
                if piece:
                    out.append((piece, _tags(tags, inside)))
                piece, inside = "", char == OPEN
            else:
                piece += char
        if piece:
            out.append((piece, _tags(tags, inside)))
    return out


def _tags(tags: tuple[str, ...], inside: bool) -> tuple[str, ...]:
    if not inside or any(t.startswith(("<code", "<pre")) for t in tags):
        return tags
    return (*tags, U)
