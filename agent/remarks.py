"""Glassbox's own notes in a chain (Note events), in the run's language, and the one label
every front end puts before them.

A note says what Glassbox saw, never what the model thought nor whether its answer is good: a
round without reasoning is reported as such, true to that round (which tool it called), and a
forced last round says why it was forced. Front ends show a round's notes as one quiet line.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent.events import Note
from agent.lang import pick

NOTE_LABEL = ("由 Glassbox 补写", "Written by Glassbox")
"""The label of a Glassbox note (zh, en), in the chat, /show, the export and the terminal."""


NAMED_TOOLS = 8
"""A note names at most this many tools."""


def note_label(lang: str) -> str:
    return pick(lang, *NOTE_LABEL)


def no_reasoning_for_calls(rnd: int, lang: str, tools: Sequence[str]) -> Note:
    """A round whose model called tools without a word of reasoning."""
    names = list(dict.fromkeys(tools))
    shown = names[:NAMED_TOOLS]
    if len(names) > NAMED_TOOLS:  # a reply may carry a thousand calls
        more = len(names) - NAMED_TOOLS
        shown.append(pick(lang, f"另外 {more} 个工具", f"{more} more tools"))
    joined = pick(lang, "、", ", ").join(shown)
    return Note(round=rnd, kind="no_reasoning", text=pick(
        lang, f"模型没有写出思考过程，直接调用了 {joined}。",
        f"the model wrote no reasoning; it called {joined}."))


def no_reasoning_for_answer(rnd: int, lang: str, *, observed: int) -> Note:
    """An answering round without reasoning, after `observed` observations. It says what
    Glassbox saw, never how good the answer is: failed calls show on their observations,
    and what the answer could not rest on is the lookups' note (agent/lookups.py)."""
    if not observed:
        text = pick(lang, "模型没有写出思考过程，也没有使用工具，直接作答。",
                    "the model wrote no reasoning and used no tool before answering.")
    else:
        text = pick(lang, "模型作答前没有写出思考过程。",
                    "the model wrote no reasoning before answering.")
    return Note(round=rnd, kind="no_reasoning", text=text)


def forced_answer(rnd: int, lang: str, *, tool_rounds: int, repeated: bool) -> Note:
    """The last round, asked for without tools: why it was forced."""
    if repeated:
        text = pick(lang, "模型第三次发出同样的调用，Glassbox 停止了工具，请它根据已有观察作答。",
                    "the model made the same call a third time, so Glassbox stopped the "
                    "tools and asked it to answer from what it observed.")
    else:
        text = pick(lang, f"已用完 {tool_rounds} 轮工具调用的上限，Glassbox 请模型不用工具、"
                    "根据已有观察作答。",
                    f"the model used all {tool_rounds} tool rounds, so Glassbox asked it to "
                    "answer from what it observed, without tools.")
    return Note(round=rnd, kind="forced_answer", text=text)
