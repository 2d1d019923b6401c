"""What Glassbox read from what the student sent (InputRead steps), as every front end words
it: a heading that says it is Glassbox's reading and by what engine, never the model's; the
text line by line, each segment the reader was unsure of marked ❓; or why nothing was read.
A photo given to the model itself is headed as the model's, with no text: Glassbox read none.
Telegram's spans here; the board and the export build their HTML from the same pieces."""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import Any

from agent.events import InputKind, InputRead, Reader, ReadFailure, ReadSegment
from bot.view.i18n import phrase
from bot.view.spans import QUOTE, B, I, Span, squeeze

UNSURE = "❓"


def heading(read: InputRead, lang: str) -> str:
    """'📷 Read from the photo (Glassbox, OCR)', or 'from photo 2 of 3' in an album; '📷 Photo
    given to the model (qwen-vl-max)' when the model reads it."""
    by_model = "_model" if read.by is Reader.MODEL else ""
    key = f"read_{read.kind.value}{by_model}" + ("_of" if read.of > 1 else "")
    return phrase(lang, key, engine=read.engine, n=read.number, of=read.of)


def failure_line(read: InputRead, lang: str) -> str:
    """Why no text is shown: nothing was read, or the model reads the photo itself ('' when
    Glassbox read something)."""
    if read.by is Reader.MODEL:
        return phrase(lang, "read_by_model")
    return "" if read.failure is ReadFailure.NONE else phrase(lang, f"read_{read.failure.value}")


def lines(read: InputRead) -> list[list[ReadSegment]]:
    """The segments line by line."""
    out: dict[int, list[ReadSegment]] = {}
    for segment in read.segments:
        out.setdefault(segment.line, []).append(segment)
    return list(out.values())


def any_unsure(reads: Sequence[InputRead]) -> bool:
    return any(s.unsure for read in reads for s in read.segments)


def read_spans(reads: Sequence[InputRead], lang: str) -> list[Span]:
    """The read steps for a Telegram page, each a bold heading and the text in a quote."""
    out: list[Span] = []
    for read in reads:
        out.append(("\n\n", ()))
        out.append((heading(read, lang), (B,)))
        why = failure_line(read, lang)
        if why:
            out.append(("\n", ()))
            out.append((why, (I,)))
            continue
        out.append(("\n", ()))
        for n, line in enumerate(lines(read)):
            if n:
                out.append(("\n", (QUOTE,)))
            for k, segment in enumerate(line):
                text = (" " if k else "") + squeeze(segment.text)
                if segment.unsure:
                    out.append((text + UNSURE, (QUOTE, I)))
                else:
                    out.append((text, (QUOTE,)))
    if any_unsure(reads):
        out.append(("\n", ()))
        out.append((phrase(lang, "read_unsure"), (I,)))
    return out


def read_dict(read: InputRead, lang: str) -> dict[str, Any]:
    """One read step for the HTTP API, worded as the chat shows it: its heading, the text
    read (each segment with its confidence and whether it is marked unsure), or the line
    saying why there is none (nothing read; the model reads the photo itself)."""
    return {"kind": read.kind.value, "by": read.by.value, "engine": read.engine,
            "number": read.number, "of": read.of, "heading": heading(read, lang),
            "text": read.text or None, "note": failure_line(read, lang) or None,
            "segments": [{"text": s.text, "confidence": round(s.confidence, 3),
                          "line": s.line, "unsure": s.unsure} for s in read.segments]}


def reads_html(reads: Sequence[InputRead], lang: str,
               photo_url: Callable[[int], str] | None) -> str:
    """The read steps as HTML (the board, the export): each photo as a thumbnail that opens
    large (`photo_url(number)`; None: no photo is kept), beside its heading and text."""
    figures = []
    for read in reads:
        picture = ""
        if photo_url is not None and read.kind is InputKind.PHOTO:
            url = _e(photo_url(read.number))
            picture = (f'<a class="photo" href="{url}" target="_blank" rel="noopener">'
                       f'<img src="{url}" alt="{_e(heading(read, lang))}"></a>')
        why = failure_line(read, lang)
        if why:
            body = f"<i>{_e(why)}</i>"
        else:
            body = "<br>".join(" ".join(
                f'<mark class="unsure">{_e(s.text)}{UNSURE}</mark>' if s.unsure else _e(s.text)
                for s in line) for line in lines(read))
        figures.append(f'<figure class="read" data-kind="{read.kind.value}" '
                       f'data-by="{read.by.value}">{picture}'
                       f'<figcaption><div class="label">{_e(heading(read, lang))}</div>'
                       f'<div class="text">{body}</div></figcaption></figure>')
    if not figures:
        return ""
    legend = (f'<p class="unsure-legend">{_e(phrase(lang, "read_unsure"))}</p>'
              if any_unsure(reads) else "")
    return f'<section class="reads">{"".join(figures)}{legend}</section>'


def _e(text: str) -> str:
    return html.escape(text, quote=True)
