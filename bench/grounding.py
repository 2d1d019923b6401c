"""`python -m bench --grounding`: how far a class can trust the grounding marks, as precision
and recall over answers whose figures were labelled by hand (tests/grounding/labelled.json).

A mark is what the class sees: MARK after a figure. It is right when it falls on a figure
labelled unbacked (⟦u:…⟧), wrong on one labelled backed (⟦b:…⟧) or on text that is no
figure at all (a list number, code, a version). Precision: right marks / marks; recall:
unbacked figures marked / unbacked figures. Each labelled figure counts once however many
marks fall on it.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agent.grounding.backing import ledger
from agent.prompts import Turn
from bot.view.grounding_marks import MARK, marked

LABELLED = Path(__file__).parent.parent / "tests" / "grounding" / "labelled.json"
_LABEL = re.compile(r"⟦([bu]):([^⟧]*)⟧")


@dataclass(frozen=True, slots=True)
class Span:
    start: int
    end: int
    unbacked: bool


@dataclass(frozen=True, slots=True)
class Case:
    id: str
    lang: str
    question: str
    history: tuple[Turn, ...]
    observations: tuple[str, ...]
    answer: str
    """The answer as the model wrote it (labels taken out)."""
    spans: tuple[Span, ...]


@dataclass
class Score:
    marks: int = 0
    right: int = 0
    unbacked: int = 0
    found: int = 0
    wrong: list[str] = field(default_factory=list)
    """Case id and the text a wrong mark fell after, or an unbacked figure left unmarked."""

    @property
    def precision(self) -> float:
        return self.right / self.marks if self.marks else 1.0

    @property
    def recall(self) -> float:
        return self.found / self.unbacked if self.unbacked else 1.0


def parse(data: dict) -> Case:
    """A labelled case: the answer without its labels, and where each labelled figure is."""
    text, spans, last = [], [], 0
    raw = data["answer"]
    length = 0
    for label in _LABEL.finditer(raw):
        before = raw[last:label.start()]
        text.append(before)
        length += len(before)
        figure = label[2]
        spans.append(Span(length, length + len(figure), label[1] == "u"))
        text.append(figure)
        length += len(figure)
        last = label.end()
    text.append(raw[last:])
    return Case(data["id"], data["lang"], data["question"],
                tuple(Turn(q, a) for q, a in data["history"]), tuple(data["observations"]),
                "".join(text), tuple(spans))


def cases(path: Path = LABELLED) -> list[Case]:
    return [parse(c) for c in json.loads(path.read_text("utf-8"))["cases"]]


def mark_positions(shown: str) -> list[int]:
    """Where the marks of `shown` fall in the text without them (the offset each follows)."""
    out, seen = [], 0
    for i, ch in enumerate(shown):
        if ch == MARK:
            out.append(i - seen)
            seen += 1
    return out


Marker = Callable[[Case], str]
"""A case's answer as the class sees it: with MARK after each figure called unbacked."""


def glassbox(case: Case) -> str:
    """The marks this checkout draws."""
    return marked(case.answer, ledger(case.answer, case.observations, case.question,
                                      case.history))


def _under(case: Case, p: int) -> Span | None:
    """The labelled figure a mark at `p` is on: the last one starting before it, if the
    mark follows it or its unit ("25 °Cⁱ", "100 US dollarsⁱ" for ⟦u:25⟧, ⟦u:100⟧)."""
    span = next((sp for sp in reversed(case.spans) if sp.start < p), None)
    if span is None or p <= span.end:
        return span
    tail = case.answer[span.end:p]
    return span if len(tail) <= 14 and not any(c.isdigit() or c in "\n,;" for c in tail) else None


def score(marker: Marker, labelled: list[Case]) -> Score:
    s = Score()
    for case in labelled:
        hit: set[Span] = set()
        for p in mark_positions(marker(case)):
            span = _under(case, p)
            if span is None or not span.unbacked:
                s.marks += 1
                s.wrong.append(f"{case.id}: false mark after {case.answer[max(0, p - 12):p]!r}")
            elif span not in hit:
                s.marks += 1
                s.right += 1
                hit.add(span)
        for span in case.spans:
            if span.unbacked:
                s.unbacked += 1
                if span in hit:
                    s.found += 1
                else:
                    s.wrong.append(f"{case.id}: missed {case.answer[span.start:span.end]!r}")
    return s


def main(argv: list[str]) -> int:
    argparse.ArgumentParser(prog="python -m bench --grounding",
                            description=__doc__.split("\n\n")[0]).parse_args(argv)
    labelled = cases()
    s = score(glassbox, labelled)
    print(f"{len(labelled)} answers ({sum(c.lang == 'zh' for c in labelled)} Chinese), "
          f"{sum(len(c.spans) for c in labelled)} labelled figures, {s.unbacked} unbacked")
    print(f"marks {s.marks}, right {s.right}; precision {s.precision:.3f}, "
          f"recall {s.recall:.3f}")
    for line in s.wrong:
        print("  " + line)
    return 0

