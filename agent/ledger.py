"""A figure ledger: what backs each figure of an answer, by which rule (agent/grounding/backing.py
decides). Stored on the Answer, so a run replays with the ledger it was shown with."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Backing(StrEnum):
    """Where a figure comes from."""

    OBSERVATION = "observation"
    """Quoted (exactly, rounded, or as the same date or time) from observation `source`."""
    QUESTION = "question"
    HISTORY = "history"
    """From the question, or from the thread's earlier questions and answers."""
    COMPUTED = "computed"
    """Worked out from backed figures (`inputs`) by `rule`."""
    UNBACKED = "unbacked"
    """No rule verifies it: the quiet mark ⁱ goes after it."""


class Rule(StrEnum):
    """The rule that backs a figure; each is tested in tests/test_grounding_rules.py."""

    EXACT = "exact"
    ROUNDED = "rounded"
    """A source's value rounded to the figure's own precision (21 for 21.4, 2487万)."""
    DATE = "date"
    """The same date, as far as the figure writes it (December 2nd for 2026-12-02)."""
    TIME = "time"
    """The same time of day (2:05 PM for 14:05)."""
    CONVERTED = "converted"
    """A unit conversion of a source's value (°C/°F/K, km/h/m/s/mph, km/mi, % and fraction)."""
    RATE = "rate"
    """An amount converted through an exchange rate a source states (as a rate or a pair)."""
    EXAMPLE = "example"
    """The amount a worked example converts through an observed rate ("so 10 USD is …")."""
    SUM = "sum"
    DIFFERENCE = "difference"
    PRODUCT = "product"
    RATIO = "ratio"
    MEAN = "mean"
    PERCENT_CHANGE = "percent_change"
    """An amount a percentage more or less (20% off 150 is 120)."""
    TIME_DIFFERENCE = "time_difference"
    """Hours or minutes between two backed times of day (18:15 is 9 hours after 09:15)."""
    NONE = "none"


@dataclass(frozen=True, slots=True)
class Entry:
    """One figure of an answer and what backs it. `start`/`end`: where it is in the answer."""

    start: int
    end: int
    text: str
    backing: Backing
    rule: Rule = Rule.NONE
    source: int = 0
    """The observation's number (1 for the run's first), 0 when none."""
    inputs: tuple[str, ...] = ()
    """The figures a computed one comes from, as the sources write them."""

    @property
    def unbacked(self) -> bool:
        return self.backing == Backing.UNBACKED

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Entry:
        return cls(data["start"], data["end"], data["text"], Backing(data["backing"]),
                   Rule(data.get("rule", "none")), data.get("source", 0),
                   tuple(data.get("inputs", ())))
