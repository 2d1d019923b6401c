"""What the loop says to the model, and the texts it writes itself (in zh or en)."""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from agent.words import say


@dataclass(frozen=True, slots=True)
class Turn:
    """One earlier question and its answer, passed in by the caller as history."""

    question: str
    answer: str
    summary: bool = False
    """A summary of earlier turns (agent/history_summary.py), not a question and answer:
    `answer` holds it, and the model sees it marked as a summary."""


def system_react(lang: str, tools: Collection[str] = ()) -> str:
    """The instructions of a run with `tools` (their names), in the question's language: a
    small model answers in the language it was instructed in, whatever it is told about
    the question. With `calculate` among them, every calculation goes to it: a small coder
    model otherwise answers arithmetic with a Python snippet."""
    calculate = say(lang, "system_react_calculate") if "calculate" in tools else ""
    return say(lang, "system_react", calculate=calculate)


def system_plain(lang: str) -> str:
    """The instructions of a run without tools, in the question's language."""
    return say(lang, "system_plain")


def language_line(lang: str) -> str:
    """The short line that repeats the answer's language after the observations, in that
    language: small models drift into the language of the tool results (English weather,
    Chinese course notes)."""
    return say(lang, "language_line")


def history_messages(history: Sequence[Turn], budget_chars: int) -> list[dict[str, Any]]:
    """The newest turns that fit in `budget_chars`, as chat messages, oldest first; a
    summary of earlier turns always goes first, marked as a summary."""
    summaries = [turn for turn in history if turn.summary]
    kept: list[Turn] = []
    used = 0
    for turn in reversed([turn for turn in history if not turn.summary]):
        size = len(turn.question) + len(turn.answer)
        if used + size > budget_chars:
            break
        kept.append(turn)
        used += size
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "[Summary of the earlier conversation, written by Glassbox "
                                    "(not the full text)]\n" + turn.answer}
        for turn in summaries]
    for turn in reversed(kept):
        messages.append({"role": "user", "content": turn.question})
        messages.append({"role": "assistant", "content": turn.answer})
    return messages


def args_text(arguments: dict[str, Any] | str) -> str:
    """Arguments as one compact line, for thoughts and for front ends."""
    if isinstance(arguments, str):
        return arguments
    return ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in arguments.items())


def limit_message(lang: str) -> str:
    return say(lang, "limit_message")


def repeated_note(lang: str) -> str:
    return say(lang, "repeated_note")


def loop_stop_note(lang: str) -> str:
    return say(lang, "loop_stop_note")


def not_run_result(lang: str, cap: int) -> str:
    """What the model is sent for each call past the cap of calls a round."""
    return say(lang, "not_run_result", cap=cap)


def not_run_note(lang: str, skipped: int, cap: int) -> str:
    """The one observation the chain shows for all of a round's calls not run."""
    return say(lang, "not_run_note", skipped=skipped, cap=cap)
