"""The sides of a comparison: "Is it colder in Berlin or in Paris?" needs an observation of
Berlin and one of Paris. A small model wrote both cities in its thought, looked up one,
and gave the other a figure of the first. So after each lookup the model is told which
sides named in the question nothing has looked up yet, and an answer that names a side
with no lookup gets Glassbox's remark saying so (agent/grounding/lookups.py).

The sides are the words a question writes with a capital (`Berlin`, `Paris`) when it
compares (`or`, `than`, `compare`, `both`, ...). Chinese questions are left alone: their
names cannot be told from the words around them without a dictionary.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from agent.words import say

MAX_SIDES = 8
"""Sides of one question looked at (a question is at most a few thousand characters)."""

_COMPARES = re.compile(
    r"\b(?:or|than|compared?|comparing|comparison|both|versus|vs|difference|between|"
    r"which)\b", re.IGNORECASE)
_NAME = re.compile(r"\b[A-Z][a-z]++")
"""One capitalised word: `New York` is two sides, both covered by a lookup of New York."""
_LOOK_BACK = 32
"""Characters before a name read to tell whether it starts a sentence."""


def sides(question: str) -> list[str]:
    """The names a comparing question sets side by side (empty: it does not compare, or
    names fewer than two). A capitalised word that starts a sentence is no name."""
    if not _COMPARES.search(question):
        return []
    found: list[str] = []
    for match in _NAME.finditer(question):
        before = question[max(0, match.start() - _LOOK_BACK): match.start()].rstrip()
        if not before or before[-1] in ".?!:;":
            continue
        if match.group() not in found:
            found.append(match.group())
        if len(found) == MAX_SIDES:
            break
    return found if len(found) >= 2 else []


def not_looked_up(question: str, looked: Iterable[str]) -> list[str]:
    """The sides of `question` that no text in `looked` (the calls' inputs and their
    observations) names."""
    seen = " ".join(looked).lower()
    return [name for name in sides(question) if name.lower() not in seen]


def still_missing(lang: str, names: list[str]) -> str:
    """What the model is told after an observation while sides are missing."""
    return say(lang, "sides_missing", names=say(lang, "list_sep").join(names))


class Sides:
    """A run's comparison sides, and which of them its lookups so far have covered."""

    def __init__(self, question: str) -> None:
        self.names = sides(question)
        self._looked: list[str] = []
        self._told_missing = False
        self._all_said = False

    def after(self, inputs: Iterable[str], results: Iterable[str], lang: str) -> list[str]:
        """The line telling the model which sides are still missing after a round's calls
        (`inputs`, as the calls' argument text) and their results; once the missing ones
        are looked up, one line saying so: a small model that had both went on looking
        them up again until the round cap. When the first lookups cover every side
        (get_weather[Berlin, Paris]) nothing is said: the tool's own text compares them,
        and a small model copied the line into its answer, Glassbox's words as its own."""
        if not self.names or self._all_said:
            return []
        self._looked += [*inputs, *results]
        seen = " ".join(self._looked).lower()
        missing = [name for name in self.names if name.lower() not in seen]
        if missing:
            self._told_missing = True
            return [still_missing(lang, missing)]
        self._all_said = True
        if not self._told_missing:
            return []
        return [say(lang, "sides_all_looked_up",
                    names=say(lang, "list_sep").join(self.names))]
