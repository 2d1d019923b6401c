"""One-line figures of a finished run, and of the difference between two, in zh or en.

Shared by every front end (terminal, Telegram, export) so they say the same thing.
"""

from __future__ import annotations

from agent.events import RunFinished, Usage
from agent.lang import pick


def seconds(ms: int, lang: str) -> str:
    if ms < 1000:
        return pick(lang, f"{ms} 毫秒", f"{ms} ms")
    return pick(lang, f"{ms / 1000:,.1f} 秒", f"{ms / 1000:,.1f} s")


def approx(usage: Usage) -> str:
    """"≈" before token counts estimated from the text (the server sent no usage)."""
    return "≈" if usage.estimated else ""


def plural(lang: str, n: int, zh: str, en: str) -> str:
    """'1 tool call', '2 tool calls', '1,280 tokens'; in Chinese '2 次工具调用'."""
    return pick(lang, f"{n:,} {zh}", f"{n:,} {en}" + ("" if n == 1 else "s"))


def figures(done: RunFinished, lang: str, *, tokens: bool = True) -> str:
    """'3.2 s · 2 rounds · 1,234 tokens' (or its Chinese); `tokens=False` leaves them out."""
    parts = [seconds(done.duration_ms, lang), plural(lang, done.rounds, "轮", "round")]
    if tokens and done.usage.total_tokens:
        parts.append(approx(done.usage)
                     + plural(lang, done.usage.total_tokens, "token", "token"))
    return " · ".join(parts)


def difference(plain: RunFinished, react: RunFinished, lang: str) -> str:
    """The compare summary: 'No tools → ReAct: rounds 1 → 2 · tool calls 0 → 2 · …'."""

    def pair(a: float, b: float, fmt: str) -> str:
        return f"{a:{fmt}} → {b:{fmt}}"

    parts = [
        pick(lang, "轮数 ", "rounds ") + pair(plain.rounds, react.rounds, ","),
        pick(lang, "工具调用 ", "tool calls ") + pair(plain.tool_calls, react.tool_calls, ","),
        pick(lang, "用时（秒）", "seconds ")
        + pair(plain.duration_ms / 1000, react.duration_ms / 1000, ",.1f"),
        pick(lang, "token ", "tokens ") + approx(plain.usage + react.usage)
        + pair(plain.usage.total_tokens, react.usage.total_tokens, ","),
    ]
    return pick(lang, "无工具 → ReAct：", "No tools → ReAct: ") + " · ".join(parts)
