"""No figure without a lookup: an answer stating a figure that nothing backs, which an
offered tool would have given, goes back to the model once.

A small model asked "What time is it in New York now?" may answer "10:30 AM" with no call
at all; the ledger (agent/grounding/backing.py) finds that figure unbacked. When a run would
end so, and the figure is of a kind an offered tool gives (a time or date: get_time; a
temperature or wind speed: get_weather; an amount of money: convert_currency; a number
worked out of the question's numbers: calculate), the loop sends the model back once,
naming the figures and the tools, and the chain shows that step as Glassbox's. An answer
whose figures are backed is not checked twice: no extra round, no extra tokens. Facts of
the encyclopedia are left to the mark: a year or a count in an answer from memory says
nothing of which article would hold it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from agent.events import Remark
from agent.grounding.backing import ledger, lent
from agent.grounding.figures import Figure, Kind, figures
from agent.grounding.units import CURRENCIES, Unit
from agent.prompts import Turn
from agent.words import say

REMARK_KIND = "sent_back"

_WEATHER_UNITS = frozenset({Unit.CELSIUS, Unit.FAHRENHEIT, Unit.KELVIN, Unit.KMH, Unit.MS,
                            Unit.MPH})
LOOKUP_TOOLS = ("get_time", "get_weather", "convert_currency", "calculate")
"""The tools whose figures an answer must not state without calling them."""
MAX_NAMED = 4
"""Figures a remark and the message name at most (the rest are still marked)."""


def tool_for(figure: Figure, question_numbers: int) -> str:
    """The tool that gives a figure of this kind ("" for none of ours)."""
    if figure.kind in (Kind.TIME, Kind.DATE):
        return "get_time"
    if figure.unit in _WEATHER_UNITS:
        return "get_weather"
    if figure.unit in CURRENCIES:
        return "convert_currency"
    if question_numbers >= 2 and figure.unit in (Unit.NONE, Unit.PERCENT):
        return "calculate"  # a number the question's numbers come to
    return ""


@dataclass
class FigureCheck:
    """What a run needs to tell whether its answer states figures a tool should have given,
    and whether it has sent the model back already."""

    question: str
    history: Sequence[Turn]
    tools: Collection[str]
    observations: list[str] = field(default_factory=list)
    failing: set[str] = field(default_factory=set)
    """Tools whose last call in the run failed: asking again would fail again, and the
    answer's remark says what could not be looked up (agent/grounding/lookups.py)."""
    sent: bool = False
    sends_back: bool = True
    """False for a run whose model was given photos: any figure may have been read off a
    photo, which no tool gives, so none is sent back (it is still marked as unbacked)."""

    def observed(self, tool: str, text: str, ok: bool) -> None:
        self.observations.append(lent(text, ok))
        if ok:
            self.failing.discard(tool)
        else:
            self.failing.add(tool)

    def possible(self) -> bool:
        """Whether an answer may still be sent back: once a run, with a lookup tool offered.
        While it may, the answer streams as text whose role is not known yet."""
        return self.sends_back and not self.sent and any(
            tool in self.tools for tool in LOOKUP_TOOLS)

    def unbacked(self, answer: str) -> list[tuple[str, str]]:
        """The answer's figures nothing backs that an offered tool gives, with that tool."""
        numbers = sum(1 for f in figures(self.question, answer=False) if f.kind == Kind.NUMBER)
        found = {(f.start, f.end): f for f in figures(answer)}
        missing: list[tuple[str, str]] = []
        for entry in ledger(answer, self.observations, self.question, self.history):
            figure = found.get((entry.start, entry.end))
            if not entry.unbacked or figure is None:
                continue
            tool = tool_for(figure, numbers)
            if tool in self.tools and tool not in self.failing and (
                    entry.text, tool) not in missing:
                missing.append((entry.text, tool))
        return missing

    def send_back(self, rnd: int, lang: str, missing: Sequence[tuple[str, str]]
                  ) -> tuple[Remark, str]:
        """The chain's remark and the message to the model, for `missing`; once a run."""
        self.sent = True
        sep = say(lang, "list_sep")
        named = sep.join(text for text, _ in missing[:MAX_NAMED])
        tools = sep.join(dict.fromkeys(tool for _, tool in missing))
        remark = Remark(round=rnd, kind=REMARK_KIND,
                    text=say(lang, "sent_back_remark", figures=named, tools=tools))
        return remark, say(lang, "sent_back_prompt", figures=named, tools=tools)
