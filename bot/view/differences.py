"""The digits that differ between /compare's two answers, marked in both (agent/figure_diff.py
decides which): `<mark>` on the board and in the export, underlined in the chat.

The marks go into each answer's text as two private-use characters before its Markdown is
drawn, and become markup after: drawing the Markdown then needs to know nothing of them.
The model's own text never carries them (they are taken out first).
"""

from __future__ import annotations

from collections.abc import Callable

from agent.figure_diff import differing
from bot.view.grounding import marked
from bot.view.spans import Span
from bot.view.transcript import Transcript

OPEN, CLOSE = "\ue000", "\ue001"
U = "<u>"


def plain_text(text: str) -> str:
    """`text` without the two mark characters (a model could write them)."""
    return text.replace(OPEN, "").replace(CLOSE, "")


def compared_answers(plain: Transcript, react: Transcript,
                     prepare: Callable[[str], str] = str) -> tuple[str, str]:
    """Each lane's answer as drawn (`prepare`d, its unfounded figures marked) and, once both
    are final, the digits that differ between them marked (a draft's marks would come and
    go as it streams)."""
    first = marked(prepare(plain_text(plain.answer)), plain.unfounded)
    second = marked(prepare(plain_text(react.answer)), react.unfounded)
    if plain.answer_final and react.answer_final:
        return mark_pair(first, second)
    return first, second


def mark_pair(first: str, second: str) -> tuple[str, str]:
    """Both answers, each figure's differing digits between OPEN and CLOSE."""
    first, second = plain_text(first), plain_text(second)
    pairs = differing(first, second)
    return (_marked(first, {i for p in pairs for i in p.left_marks}),
            _marked(second, {i for p in pairs for i in p.right_marks}))


def _marked(text: str, at: set[int]) -> str:
    out, inside = [], False
    for i, char in enumerate(text):
        if (i in at) != inside:
            inside = not inside
            out.append(OPEN if inside else CLOSE)
        out.append(char)
    if inside:
        out.append(CLOSE)
    return "".join(out)


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
