"""/compare's difference line: one short, temperature-0 model call, once both answers are in,
that says whether they agree, names the figures that differ and how the tools got theirs.

The call is told the facts, so the model need not guess them: which figures differ
(agent/grounding/figure_diff.py), what the tools actually did (the calls that worked, each
calculated, looked up or read in the class notes, as its tool's `source` says), and, last,
what those facts come to in one line (a small local model answered "The answers agree." of
1,199,999,999,999,999,999 against 121932631112635269 when only the list said otherwise). It
is still the model's judgement, and front ends label it so. A call that fails, says nothing,
or says what is not so (agent/classroom/judge_check.py) gives no line: the cost figures alone stay.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from agent.classroom.judge_check import untrue
from agent.events import Action, Event, Judgement, Observation, Usage
from agent.grounding.figure_diff import Pair, differing
from agent.grounding.figures import figures as figures_of
from agent.model.model_client import ModelClient, complete
from agent.model.model_errors import ModelError
from agent.prompts import args_text
from agent.tool import Source, Tool
from agent.words import say

log = logging.getLogger(__name__)

MAX_WORDS = 60
MAX_CHINESE_CHARS = 120
"""The Chinese cap: about as much to read as 60 English words."""
ANSWER_CHARS = 2000
"""Each answer is cut to this many characters in the prompt: the gist is at the start."""
JUDGE_MARK = "You compare two answers to one question."
"""The opening of the judge's system prompt (the test model server routes by it)."""
JUDGE_SYSTEM = JUDGE_MARK + (
    " The first answer is by a language model alone; the second is by the same model using"
    " tools. In one or two sentences, at most {words} words, written in {language}, say"
    " whether the answers agree. If figures differ, name them as listed, and say how the"
    " answer with tools got its figure, using only the tool calls listed: calculated, looked"
    " up, or read in the class notes. If no tool call worked, say the tools added nothing."
    " No preamble, no Markdown.")
JUDGE_SIDES = JUDGE_MARK + (
    " The answers are by {left} and by {right}, each of which could use tools. In one or two"
    " sentences, at most {words} words, written in {language}, say whether the answers agree."
    " If figures differ, name them as listed, and say how each side got its figure, using"
    " only the tool calls listed for that side: calculated, looked up, or read in the class"
    " notes; a side with no tool call that worked gave its figure without tools. No"
    " preamble, no Markdown.")
MAX_CALLS = 8
"""Tool calls listed in the prompt: enough to say what the tools did."""
MAX_PAIRS = 5
"""Differing figures listed in the prompt."""


class ToolUses:
    """The tool calls of a run that worked, each with how its result came to be."""

    def __init__(self, tools: Sequence[Tool]) -> None:
        self._sources = {tool.name: tool.source for tool in tools}
        self._actions: dict[str, Action] = {}
        self.calls: list[tuple[str, Source]] = []

    def add(self, event: Event) -> None:
        if isinstance(event, Action):
            self._actions[event.call_id] = event
        elif isinstance(event, Observation) and event.ok and event.call_id in self._actions:
            action = self._actions[event.call_id]
            self.calls.append((f"{action.tool}({args_text(action.arguments)})",
                               self._sources.get(action.tool, Source.LOOKED_UP)))


@dataclass(frozen=True, slots=True)
class Side:
    """One side of a comparison of two runs that could each use tools: what it is called
    (a model's name, a run's number), its answer, its tool calls that worked (ToolUses)."""

    label: str
    answer: str
    calls: Sequence[tuple[str, Source]] = ()


async def judge(question: str, plain_answer: str, react_answer: str, *, client: ModelClient,
                lang: str, calls: Sequence[tuple[str, Source]] = ()) -> Judgement | None:
    """The difference line for two finished answers, in `lang`, or None (logged) if the call
    failed or gave nothing; `calls`: the ReAct lane's tool calls that worked (ToolUses)."""
    system = JUDGE_SYSTEM.format(words=MAX_WORDS, language=say(lang, "language_name"))
    plain_answer, react_answer = plain_answer[:ANSWER_CHARS], react_answer[:ANSWER_CHARS]
    pairs = differing(plain_answer, react_answer)[:MAX_PAIRS]
    figures = "; ".join(f"{p.left.text} (without tools) vs {p.right.text} (with tools)"
                        for p in pairs) or "none"
    used = "; ".join(f"{call}: {source}" for call, source in calls[:MAX_CALLS]) or "none"
    user = (f"Question:\n{question}\n\nAnswer without tools:\n{plain_answer}"
            f"\n\nAnswer with tools:\n{react_answer}\n\nFigures that differ: {figures}"
            f"\n\nTool calls that worked: {used}"
            f"\n\nSo: {_facts(pairs, plain_answer, react_answer, calls)}")
    return await _asked(client, system, user, lang, plain_answer, react_answer, calls,
                        question)


async def judge_sides(question: str, left: Side, right: Side, *, client: ModelClient,
                      lang: str) -> Judgement | None:
    """The difference line for two runs that could each use tools (two models, two stored
    runs), in `lang`, naming how each side got its figures; None as `judge` gives it."""
    system = JUDGE_SIDES.format(left=left.label, right=right.label, words=MAX_WORDS,
                                language=say(lang, "language_name"))
    first, second = left.answer[:ANSWER_CHARS], right.answer[:ANSWER_CHARS]
    pairs = differing(first, second)[:MAX_PAIRS]
    figures = "; ".join(f"{p.left.text} ({left.label}) vs {p.right.text} ({right.label})"
                        for p in pairs) or "none"
    used = "".join(f"\n\nTool calls that worked, {side.label}: "
                   + ("; ".join(f"{call}: {source}" for call, source in side.calls[:MAX_CALLS])
                      or "none") for side in (left, right))
    user = (f"Question:\n{question}\n\nAnswer by {left.label}:\n{first}"
            f"\n\nAnswer by {right.label}:\n{second}\n\nFigures that differ: {figures}"
            f"{used}\n\nSo: {_sides_facts(pairs, left, right)}")
    return await _asked(client, system, user, lang, first, second,
                        [*left.calls, *right.calls], question)


async def _asked(client: ModelClient, system: str, user: str, lang: str, first: str,
                 second: str, calls: Sequence[tuple[str, Source]],
                 question: str) -> Judgement | None:
    """The judge's line for the prompt `user`, or None when the call failed, said nothing,
    or said what is not so of the answers `first` and `second` (judge_check)."""
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    try:
        done = await complete(client, messages, temperature=0, max_tokens=200)
    except ModelError as err:
        log.warning("no compare judgement: the call failed: %s", err)
        return None
    text = capped(" ".join((done.content if done else "").split()), lang)
    if not text:
        return None
    problems = untrue(text, first, second, calls, question)
    if problems:
        log.info("compare judgement dropped (%s): %r", "; ".join(problems), text)
        return None
    return Judgement(round=0, text=text, usage=done.usage if done else Usage())


def _sides_facts(pairs: list[Pair], left: Side, right: Side) -> str:
    """What the listed facts of two sides come to, as the line to write should say it."""
    how = " and ".join(
        f"{side.label} {' and '.join(dict.fromkeys(str(s) for _, s in side.calls))} its figure"
        if side.calls else f"{side.label} used no tool" for side in (left, right))
    if pairs:
        return f"the answers do not agree. Say so, name the figures that differ, and say {how}."
    return f"no figure differs. Say whether the answers agree, and say {how}."


def _facts(pairs: list[Pair], plain: str, react: str,
           calls: Sequence[tuple[str, Source]]) -> str:
    """What the listed facts come to, as the line to write should say it."""
    how = " and ".join(dict.fromkeys(str(source) for _, source in calls))
    tools = (f"say the answer with tools {how} its figure" if how
             else "say the tools added nothing")
    if pairs:
        return f"the answers do not agree. Say so, name the figures that differ, and {tools}."
    alone = {f.value for f in figures_of(plain)}
    extra = [f.text for f in figures_of(react) if f.value not in alone][:MAX_PAIRS]
    if extra:
        return (f"only the answer with tools gives {', '.join(extra)}. Say so, and {tools}.")
    return f"no figure differs. Say whether the answers agree, and {tools}."


def capped(text: str, lang: str) -> str:
    """`text` within the line's length: MAX_WORDS words, or MAX_CHINESE_CHARS characters
    for Chinese, with an ellipsis where it was cut."""
    if lang.startswith("zh") and len(text) > MAX_CHINESE_CHARS:
        return text[: MAX_CHINESE_CHARS - 1] + "…"
    words = text.split(" ")
    if len(words) > MAX_WORDS:
        return " ".join(words[:MAX_WORDS]) + "…"
    return text
