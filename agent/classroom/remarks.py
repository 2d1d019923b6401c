"""Glassbox's own remarks in a chain (Remark events), in the run's language, and the one label
every front end puts before them.

A remark says what Glassbox saw, never what the model thought nor whether its answer is good: a
round without reasoning is reported as such, true to that round (which tool it called), and a
forced last round says why it was forced. Front ends show a round's notes as one quiet line.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent.events import Remark
from agent.words import say

NAMED_TOOLS = 8
"""A remark names at most this many tools."""


def remark_label(lang: str) -> str:
    """The label of a Glassbox remark, in the chat, /show, the export and the terminal."""
    return say(lang, "remark_label")


def no_reasoning_for_calls(rnd: int, lang: str, tools: Sequence[str]) -> Remark:
    """A round whose model called tools without a word of reasoning."""
    names = list(dict.fromkeys(tools))
    shown = names[:NAMED_TOOLS]
    if len(names) > NAMED_TOOLS:  # a reply may carry a thousand calls
        more = len(names) - NAMED_TOOLS
        shown.append(say(lang, "more_tools", more=more))
    joined = say(lang, "list_sep").join(shown)
    return Remark(round=rnd, kind="no_reasoning",
                text=say(lang, "remark_no_reasoning_calls", tools=joined))


def no_reasoning_for_answer(rnd: int, lang: str, *, observed: int) -> Remark:
    """An answering round without reasoning, after `observed` observations. It says what
    Glassbox saw, never how good the answer is: failed calls show on their observations,
    and what the answer could not rest on is the lookups' remark (agent/grounding/lookups.py)."""
    if not observed:
        text = say(lang, "remark_no_reasoning_no_tool")
    else:
        text = say(lang, "remark_no_reasoning")
    return Remark(round=rnd, kind="no_reasoning", text=text)


def forced_answer(rnd: int, lang: str, *, tool_rounds: int, repeated: bool) -> Remark:
    """The last round, asked for without tools: why it was forced."""
    if repeated:
        text = say(lang, "remark_forced_repeated")
    else:
        text = say(lang, "remark_forced_rounds", rounds=tool_rounds)
    return Remark(round=rnd, kind="forced_answer", text=text)
