"""The quiet mark on figures of an answer that nothing backs (agent/grounding/backing.py decides;
the run stores the ledger on its Answer), and the ledger as each front end shows it."""

from __future__ import annotations

import html
from bisect import bisect_left
from collections.abc import Callable, Collection, Sequence

from agent.ledger import Backing, Entry
from bot.view.i18n import phrase
from bot.view.markdown import url_spans
from bot.view.transcript import Transcript

MARK = "ⁱ"


def marked(answer: str, ledger: Sequence[Entry] = (), unfounded: Collection[str] = ()) -> str:
    """`answer` with MARK after each unbacked figure of its ledger, in its text only (never
    in a link's target). A run stored before runs kept a ledger lists only the unbacked
    figures' texts: each occurrence is marked, as it was shown then."""
    urls = url_spans(answer)
    ends = [e.end for e in in_text(ledger, urls) if e.unbacked] if ledger \
        else _occurrences(answer, unfounded, urls)
    pieces, last = [], 0
    for end in sorted(set(ends)):
        pieces += (answer[last:end], MARK)
        last = end
    pieces.append(answer[last:])
    return "".join(pieces)


def in_text(ledger: Sequence[Entry], urls: Sequence[tuple[int, int]]) -> list[Entry]:
    """The entries of `ledger` outside every one of `urls` (url_spans of the answer)."""
    return [e for e in ledger if _outside(e.start, e.end, urls)]


def _outside(start: int, end: int, spans: Sequence[tuple[int, int]]) -> bool:
    """Whether start…end overlaps none of `spans` (sorted, apart: their ends are sorted
    too, so the last one starting before `end` decides)."""
    at = bisect_left(spans, (end,)) - 1
    return at < 0 or spans[at][1] <= start


def _occurrences(answer: str, texts: Collection[str],
                 urls: Sequence[tuple[int, int]]) -> list[int]:
    """Where each of `texts` ends in `answer`, standing alone (not part of a longer number)
    and outside `urls`."""
    ends = []
    for text in texts:
        start = answer.find(text)
        while start >= 0:
            end = start + len(text)
            before = answer[start - 1] if start else " "
            after = answer[end] if end < len(answer) else " "
            if not (before.isalnum() or before in "_.,:/-") and not after.isdigit() \
                    and _outside(start, end, urls):
                ends.append(end)
            start = answer.find(text, end)
    return ends


def unfounded_line(t: Transcript, lang: str) -> str:
    """The one line under an answer naming its marked figures (empty: none): "from the
    model's memory" for a run without tools, the lesson /compare exists to teach; after
    the model was sent back to look them up, that it was and they still are not."""
    if not t.unfounded:
        return ""
    key = "grounding_memory" if t.mode == "plain" else (
        "grounding_sent_back" if t.sent_back else "grounding_unfounded")
    joined = phrase(lang, "list_sep").join(t.unfounded)
    return MARK + " " + phrase(lang, key, figures=joined)


def status(entry: Entry, lang: str) -> str:
    """What backs one figure, in words: "observation 2", "converted from 2.3 °C", …"""
    if entry.backing == Backing.OBSERVATION:
        return phrase(lang, "ledger_observation", n=entry.source, rule=_rule(entry, lang))
    if entry.backing == Backing.COMPUTED:
        return phrase(lang, "ledger_computed", rule=_rule(entry, lang),
                      inputs=phrase(lang, "list_sep").join(entry.inputs))
    return phrase(lang, f"ledger_{entry.backing.value}")


def _rule(entry: Entry, lang: str) -> str:
    return phrase(lang, f"rule_{entry.rule.value}")


_OPEN, _CLOSE = "\ue000", "\ue001"
"""Private-use characters around each figure while the Markdown becomes HTML: they pass
through it untouched and become the figure's <span> after."""


def ledger_html(answer: str, ledger: Sequence[Entry], unfounded: Collection[str], lang: str,
                to_html: Callable[[str], str]) -> str:
    """The answer as HTML (`to_html` draws its Markdown), unbacked figures marked, each
    figure of the ledger in a <span> whose title says what backs it (the board shows it on
    hover or tap)."""
    if not ledger:
        return to_html(marked(answer, (), unfounded))
    ledger = in_text(ledger, url_spans(answer))
    text = answer.replace(_OPEN, "\ufffd").replace(_CLOSE, "\ufffd")
    pieces, last = [], 0
    for e in sorted(ledger, key=lambda e: e.start):
        if e.start < last:
            continue
        pieces += (text[last:e.start], _OPEN, text[e.start:e.end], _CLOSE,
                   MARK if e.unbacked else "")
        last = e.end
    pieces.append(text[last:])
    drawn = to_html("".join(pieces))
    opens = drawn.split(_OPEN)
    if len(opens) != len(ledger) + 1 or drawn.count(_CLOSE) != len(ledger):
        return drawn.replace(_OPEN, "").replace(_CLOSE, "")  # the Markdown moved them
    out = [opens[0]]
    for e, rest in zip(ledger, opens[1:], strict=True):
        kind = "unbacked" if e.unbacked else "backed"
        out.append(f'<span class="figure-{kind}" title="{html.escape(status(e, lang))}">'
                   + rest.replace(_CLOSE, "</span>", 1))
    return "".join(out)
