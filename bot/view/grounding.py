"""The quiet mark on figures of an answer that no observation, the question or the
history holds (the run lists them on its Answer, agent/grounding.py decides)."""

from __future__ import annotations

from collections.abc import Collection

from agent.grounding import figures
from bot.view.i18n import phrase
from bot.view.transcript import Transcript

MARK = "ⁱ"


def marked(answer: str, unfounded: Collection[str]) -> str:
    """`answer` with MARK after each figure listed in `unfounded`."""
    if not unfounded:
        return answer
    wanted = set(unfounded)
    pieces, last = [], 0
    for figure in figures(answer):
        if figure.text in wanted:
            pieces += (answer[last:figure.end], MARK)
            last = figure.end
    pieces.append(answer[last:])
    return "".join(pieces)


def unfounded_line(t: Transcript, lang: str) -> str:
    """The one line under an answer naming its marked figures (empty: none): "from the
    model's memory" for a run without tools, the lesson /compare exists to teach."""
    if not t.unfounded:
        return ""
    key = "grounding_memory" if t.mode == "plain" else "grounding_unfounded"
    joined = "、".join(t.unfounded) if lang.startswith("zh") else ", ".join(t.unfounded)
    return MARK + " " + phrase(lang, key, figures=joined)
