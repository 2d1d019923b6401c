"""What the loop says to the model, and the texts it writes itself (in zh or en)."""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from agent.lang import pick


@dataclass(frozen=True, slots=True)
class Turn:
    """One earlier question and its answer, passed in by the caller as history."""

    question: str
    answer: str
    summary: bool = False
    """A summary of earlier turns (agent/history_summary.py), not a question and answer:
    `answer` holds it, and the model sees it marked as a summary."""


def react_instructions(tools: Collection[str] = ()) -> str:
    """The instructions of a run with `tools` (their names), the same for every language
    and chat: a prompt that begins the same way for every question lets a local server
    reuse what it read of the last one (llama.cpp keeps the longest shared prefix), so
    everything that differs (the language, the history, the question) comes after it.
    With `calculate` among them, every calculation goes to it: a small coder model
    otherwise answers arithmetic with a Python snippet."""
    calculate = "calculate" in tools
    return (
        "You are Glassbox, a teaching assistant in a class chat that shows its reasoning. "
        "Use the tools whenever they give you facts you do not have for sure: current weather, "
        "time, exchange rates, exact arithmetic, the course notes, encyclopedia facts. "
        + ("Any calculation, however simple, goes to the `calculate` tool (e.g. for 12 × 34: "
           "calculate with the expression \"12*34\"): never work it out yourself, and never "
           "answer with code, which the class cannot run. " if calculate else "")
        + "A greeting or a question about you needs no tool: answer it at once. Before each "
        "tool call, write one short sentence saying what you need and why. Never invent an "
        "observation. A question about two places or things needs a lookup for each of them "
        "before you compare them. When you have what you need, answer concisely, using "
        "Markdown where it helps, in the language this conversation is in (named at the end)."
    )


def language_tail(lang: str) -> str:
    """What ends the instructions: the run's language, in that language (a small model
    answers in the language it was last told to)."""
    return pick(lang, "本次对话使用中文：请用中文作答。",
                "This conversation is in English: answer in English.")


def system_react(lang: str, tools: Collection[str] = ()) -> str:
    """The instructions of a native run with `tools`: the same text for every language,
    then the language."""
    return react_instructions(tools) + "\n\n" + language_tail(lang)


def system_plain(lang: str) -> str:
    """The instructions of a run without tools, in the question's language."""
    return pick(
        lang,
        "你是 Glassbox，课堂聊天里的助教。你没有工具：根据你所知道的用中文简洁作答，必要时使用 "
        "Markdown。如果有些事你无法知道（实时数据、精确数字），请直说。",
        "You are Glassbox, a teaching assistant in a class chat. You have no tools: answer from "
        "what you know, concisely, in English, using Markdown where it helps. "
        "Say so when you cannot know something (live data, exact figures).",
    )


def language_line(lang: str) -> str:
    """The short line that repeats the answer's language after the observations, in that
    language: small models drift into the language of the tool results (English weather,
    Chinese course notes)."""
    return pick(lang, "（请用中文回答。）", "(Answer in English.)")


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
    return pick(
        lang,
        "你已经用完了可以调用工具的轮数。请不要再调用工具，根据上面的观察给出你能给出的最好回答；"
        "没能查到的内容请直接说明没有查到，不要猜测。",
        "You have used all your tool rounds. Do not call any more tools; give the best answer "
        "you can from the observations above, and say plainly what you could not look up "
        "instead of guessing it.",
    )


def repeated_note(lang: str) -> str:
    return pick(lang, "（这个调用与之前的一次完全相同，未再次执行；以下是之前的结果。）",
                "(This call is identical to an earlier one and was not run again; "
                "here is the earlier result.)")


def loop_stop_note(lang: str) -> str:
    return pick(lang, "（同一调用第三次出现，停止调用工具，直接作答。）",
                "(The same call a third time: no more tools, answering now.)")


def not_run_result(lang: str, cap: int) -> str:
    """What the model is sent for each call past the cap of calls a round."""
    return pick(lang, f"未运行：每轮最多运行 {cap} 个工具调用。如仍需要，请在下一轮再调用。",
                f"Not run: at most {cap} tool calls run per round. Call it again in the next "
                "round if you still need it.")


def not_run_note(lang: str, skipped: int, cap: int) -> str:
    """The one observation the chain shows for all of a round's calls not run."""
    return pick(lang, f"另有 {skipped} 个调用未运行：每轮最多 {cap} 个",
                f"{skipped} more calls not run: at most {cap} per round")
