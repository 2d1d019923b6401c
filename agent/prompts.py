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
    """A summary of earlier turns (agent/classroom/history_summary.py), not a question and answer:
    `answer` holds it, and the model sees it marked as a summary."""


_INSTRUCTIONS = (
    "You are Glassbox, a teaching assistant in a class chat that shows its reasoning. Use the "
    "tools whenever they give you facts you do not have for sure: current weather, time, "
    "exchange rates, exact arithmetic, the course notes, encyclopedia facts. {calculate}A "
    "greeting or a question about you needs no tool: answer it at once. Before each tool "
    "call, write one short sentence saying what you need and why. Never invent an "
    "observation. Write a name in a tool's input as the question writes it. A question "
    "about two places or things needs a lookup for each of them before you compare them. "
    "When you have what you need, answer concisely, using Markdown "
    "where it helps, in the language this conversation is in (named at the end).")
_CALCULATE = (
    "Any calculation, however simple, goes to the `calculate` tool (e.g. for 12 × 34: "
    "calculate with the expression \"12*34\"): never work it out yourself, and never answer "
    "with code, which the class cannot run. ")


def react_instructions(tools: Collection[str] = ()) -> str:
    """The instructions of a run with `tools` (their names), the same for every language
    and chat: a prompt that begins the same way for every question lets a local server
    reuse what it read of the last one (llama.cpp keeps the longest shared prefix), so
    everything that differs (the language, the history, the question) comes after it.
    With `calculate` among them, every calculation goes to it: a small coder model
    otherwise answers arithmetic with a Python snippet."""
    return _INSTRUCTIONS.format(calculate=_CALCULATE if "calculate" in tools else "")


def language_tail(lang: str) -> str:
    """What ends the instructions: the run's language, in that language (a small model
    answers in the language it was last told to)."""
    return say(lang, "language_tail")


def system_react(lang: str, tools: Collection[str] = ()) -> str:
    """The instructions of a native run with `tools`: the same text for every language,
    then the language."""
    return react_instructions(tools) + "\n\n" + language_tail(lang)


def system_plain(lang: str) -> str:
    """The instructions of a run without tools, in the question's language."""
    return say(lang, "system_plain")


def language_line(lang: str) -> str:
    """The short line that repeats the answer's language after the observations, in that
    language: small models drift into the language of the tool results (English weather,
    Chinese course notes)."""
    return say(lang, "language_line")


def history_messages(history: Sequence[Turn], max_chars: int) -> list[dict[str, Any]]:
    """The newest turns that fit in `max_chars`, as chat messages, oldest first; a
    summary of earlier turns always goes first, marked as a summary."""
    summaries = [turn for turn in history if turn.summary]
    kept: list[Turn] = []
    used = 0
    for turn in reversed([turn for turn in history if not turn.summary]):
        size = len(turn.question) + len(turn.answer)
        if used + size > max_chars:
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


def repeated_remark(lang: str) -> str:
    return say(lang, "repeated_remark")


def loop_stop_remark(lang: str) -> str:
    return say(lang, "loop_stop_remark")


def not_run_result(lang: str, cap: int) -> str:
    """What the model is sent for each call past the cap of calls a round."""
    return say(lang, "not_run_result", cap=cap)


def not_run_remark(lang: str, skipped: int, cap: int) -> str:
    """The one observation the chain shows for all of a round's calls not run."""
    return say(lang, "not_run_remark", skipped=skipped, cap=cap)
