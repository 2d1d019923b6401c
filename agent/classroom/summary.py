"""One-line figures of a finished run, and of the difference between two, in zh or en.

Shared by every front end (terminal, Telegram, export) so they say the same thing.
"""

from __future__ import annotations

from agent.events import RunFinished, Usage
from agent.words import count, say


def seconds(ms: int, lang: str) -> str:
    if ms < 1000:
        return say(lang, "figures_ms", ms=ms)
    return say(lang, "figures_s", s=ms / 1000)


def approx(usage: Usage) -> str:
    """"≈" before token counts estimated from the text (the server sent no usage)."""
    return "≈" if usage.estimated else ""


def figures(done: RunFinished, lang: str, *, tokens: bool = True) -> str:
    """'3.2 s · 2 rounds · 1,234 tokens' (or its Chinese); `tokens=False` leaves them out."""
    parts = [seconds(done.duration_ms, lang), count(lang, "figures_rounds", done.rounds)]
    if tokens and done.usage.total_tokens:
        parts.append(approx(done.usage)
                     + count(lang, "figures_tokens", done.usage.total_tokens))
    return " · ".join(parts)


def difference(plain: RunFinished, react: RunFinished, lang: str, sides: str = "") -> str:
    """The compare summary: 'No tools → ReAct: rounds 1 → 2 · tool calls 0 → 2 · …'; with
    `sides`, named so instead ('#3 → #5: …', two stored runs)."""

    def pair(a: float, b: float, fmt: str) -> str:
        return f"{a:{fmt}} → {b:{fmt}}"

    parts = [
        say(lang, "difference_rounds", pair=pair(plain.rounds, react.rounds, ",")),
        say(lang, "difference_tool_calls", pair=pair(plain.tool_calls, react.tool_calls, ",")),
        say(lang, "difference_seconds",
            pair=pair(plain.duration_ms / 1000, react.duration_ms / 1000, ",.1f")),
        say(lang, "difference_tokens", pair=approx(plain.usage + react.usage)
            + pair(plain.usage.total_tokens, react.usage.total_tokens, ",")),
    ]
    if sides:
        return say(lang, "difference_sides", sides=sides, parts=" · ".join(parts))
    return say(lang, "difference", parts=" · ".join(parts))
