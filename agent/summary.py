"""One-line figures of a finished run, and of the difference between two, in zh or en.

Shared by every front end (terminal, Telegram) so they say the same thing.
"""

from __future__ import annotations

from agent.events import RunFinished
from agent.lang import pick


def figures(done: RunFinished, lang: str) -> str:
    """'3.2 s · 2 rounds · 1 tool call · 1,234 tokens' (or its Chinese)."""
    seconds = done.duration_ms / 1000
    tokens = f"{done.usage.total_tokens:,}"
    if lang == "zh":
        return (f"{seconds:.1f} 秒 · {done.rounds} 轮 · {done.tool_calls} 次工具调用 · "
                f"{tokens} tokens")
    rounds = "round" if done.rounds == 1 else "rounds"
    calls = "tool call" if done.tool_calls == 1 else "tool calls"
    return f"{seconds:.1f} s · {done.rounds} {rounds} · {done.tool_calls} {calls} · {tokens} tokens"


def difference(plain: RunFinished, react: RunFinished, lang: str) -> str:
    """The compare summary: both runs' figures and what ReAct cost on top."""
    extra_s = (react.duration_ms - plain.duration_ms) / 1000
    extra_t = react.usage.total_tokens - plain.usage.total_tokens
    return pick(
        lang,
        f"无工具：{figures(plain, lang)}｜ReAct：{figures(react, lang)}｜"
        f"ReAct 多用 {extra_s:+.1f} 秒、{extra_t:+,} tokens",
        f"Plain: {figures(plain, lang)} | ReAct: {figures(react, lang)} | "
        f"ReAct used {extra_s:+.1f} s and {extra_t:+,} tokens more",
    )
