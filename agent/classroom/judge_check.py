"""Whether /compare's judgement says what is so: the figures it names are in the answers,
it does not say they agree when figures differ, it names one that differs when some do (and
of the figures one answer alone has, only those that differ), and it says the tools
calculated, looked up or read the notes only where a call that worked did. A model's words
are read by a few plain word patterns (linear), so a judgement that merely words it oddly
may count as false: the check errs towards dropping a line, never towards showing an untrue
one."""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal

from agent.grounding.figure_diff import differing
from agent.grounding.figures import figures
from agent.tool import Source

CLAIMS: dict[Source, re.Pattern[str]] = {
    Source.CALCULATED: re.compile(r"calculat|comput|计算|算出|算得", re.I),
    Source.LOOKED_UP: re.compile(r"\blook(?:s|ed|ing)? (?:\w+ )?up\b|\bfetch|\bretriev|"
                                 r"\bsearch|\bquer(?:y|ied)|查", re.I),
    Source.READ_IN_NOTES: re.compile(r"\bnotes\b|笔记|讲义", re.I),
}
"""How a judgement says the tools got a figure, in English or Chinese."""
AGREE = re.compile(r"(?i)(dis)?+agree|(不)?+一致")
NEGATED = re.compile(r"(?i)(?:\bnot|n't|\bnever|\bno longer)[ \t]*+$")
"""A "not" just before "agree" (read over a few characters: linear)."""


def untrue(judgement: str, plain: str, react: str,
           calls: Sequence[tuple[str, Source]], question: str = "") -> list[str]:
    """What is false in `judgement` of answers `plain` (no tools) and `react` (with
    `calls`, the tool calls that worked); empty when nothing is."""
    problems = []
    known = (_values(plain) | _values(react) | _values(question)
             | _values(" ".join(call for call, _ in calls)))  # "150 * (1 - 0.2)" says 0.2
    invented = [f.text for f in figures(judgement) if f.value not in known]
    if invented:
        problems.append("a figure in neither answer: " + ", ".join(invented))
    pairs = differing(plain, react)
    if pairs and _says_agree(judgement):
        problems.append("says the answers agree, but figures differ")
    named = _values(judgement, singles=True)
    if pairs and not any(p.left.value in named or p.right.value in named for p in pairs):
        problems.append("names no figure that differs")
    if pairs:  # a figure of one answer alone, named, must be one that differs
        paired = {p.left.value for p in pairs} | {p.right.value for p in pairs}
        both = (_values(plain) & _values(react)) | _values(question)
        odd = [f.text for f in figures(judgement)
               if f.value in known and f.value not in paired | both]
        if odd:
            problems.append("names as differing a figure that does not: " + ", ".join(odd))
    used = {source for _, source in calls}
    for source, words in CLAIMS.items():
        if source not in used and words.search(judgement):
            problems.append(f"says the tools {source}, but no call did")
    return problems


def _says_agree(judgement: str) -> bool:
    """Whether `judgement` says the answers agree ("disagree", "do not agree", 不一致 do
    not)."""
    for match in AGREE.finditer(judgement):
        if match[1] or match[2]:
            continue
        if not NEGATED.search(judgement[max(match.start() - 12, 0):match.start()]):
            return True
    return False


def _values(text: str, *, singles: bool = False) -> set[Decimal]:
    return {f.value for f in figures(text, singles=singles)}
