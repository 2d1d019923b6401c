"""A course's figures over a period, laid out by the chat's days: what the picture, the
page, the CSV's page and the API all show, from one place. Pure: the counts come from the
store (bot.store.course_stats), the days from the period's time zone.

A "lecture" is a day with runs: the questions-per-day chart and the quiz's line have one
point per such day, so a course that meets twice a week shows no empty weekdays.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from bot.course.period import Period
from bot.store.course_records import CourseCounts, Listed
from bot.store.kinds import CourseMode, RefusalReason, RunStatus

MODES = tuple(CourseMode)


@dataclass(frozen=True, slots=True)
class Day:
    day: date
    runs: dict[CourseMode, int]
    tokens: int
    quiz_rounds: int = 0
    quiz_right: int = 0

    @property
    def total(self) -> int:
        return sum(self.runs.values())


@dataclass(frozen=True, slots=True)
class ToolUse:
    tool: str
    calls: int
    failed: int


@dataclass(frozen=True, slots=True)
class Endings:
    """How the period's runs ended, and the questions refused before they started."""

    done: int = 0
    out_of_rounds: int = 0
    failed: dict[str, int] = field(default_factory=dict)
    """Failed runs by why (the model error's kind; "" when not known)."""
    stopped: int = 0
    interrupted: int = 0
    running: int = 0
    refused_rate: int = 0
    refused_budget: int = 0

    @property
    def failures(self) -> int:
        return sum(self.failed.values())


@dataclass(frozen=True, slots=True)
class CourseFigures:
    period: Period
    days: tuple[Day, ...]
    """The days with runs, oldest first."""
    tools: tuple[ToolUse, ...]
    """Most called first."""
    endings: Endings
    compared: int
    differed: int
    differing: tuple[Listed, ...]
    missed: tuple[Listed, ...]
    askers: int
    budget: int | None
    """CHAT_DAILY_TOKEN_BUDGET (None: no budget)."""

    @property
    def runs(self) -> int:
        return sum(d.total for d in self.days)

    @property
    def tokens(self) -> int:
        return sum(d.tokens for d in self.days)

    @property
    def calls(self) -> int:
        return sum(t.calls for t in self.tools)

    @property
    def failed_calls(self) -> int:
        return sum(t.failed for t in self.tools)

    @property
    def quiz_rounds(self) -> int:
        return sum(d.quiz_rounds for d in self.days)

    @property
    def quiz_right(self) -> int:
        return sum(d.quiz_right for d in self.days)

    def by_mode(self) -> dict[CourseMode, int]:
        return {m: sum(d.runs.get(m, 0) for d in self.days) for m in MODES}

    def over_budget_days(self) -> int:
        return 0 if self.budget is None else sum(d.tokens >= self.budget for d in self.days)

    def data(self) -> dict[str, Any]:
        """Everything the figures say, as JSON (the page's data, the API's answer)."""
        e = self.endings
        return {
            "from": self.period.first.isoformat(), "to": self.period.last.isoformat(),
            "timeZone": self.period.zone,
            "runs": self.runs, "askers": self.askers, "tokens": self.tokens,
            "budget": self.budget, "overBudgetDays": self.over_budget_days(),
            "modes": {str(m): n for m, n in self.by_mode().items()},
            "days": [{"day": d.day.isoformat(), "runs": d.total,
                      "modes": {str(m): d.runs.get(m, 0) for m in MODES},
                      "tokens": d.tokens, "quizRounds": d.quiz_rounds,
                      "quizRight": d.quiz_right} for d in self.days],
            "tools": [{"tool": t.tool, "calls": t.calls, "failed": t.failed}
                      for t in self.tools],
            "endings": {"done": e.done, "outOfRounds": e.out_of_rounds,
                        "failed": dict(e.failed), "stopped": e.stopped,
                        "interrupted": e.interrupted, "running": e.running,
                        "refusedRate": e.refused_rate, "refusedBudget": e.refused_budget},
            "compare": {"compared": self.compared, "differed": self.differed,
                        "differing": [{"n": x.n, "question": x.question}
                                      for x in self.differing]},
            "quiz": {"rounds": self.quiz_rounds, "topPickRight": self.quiz_right,
                     "missed": [{"n": x.n, "question": x.question, "round": x.round,
                                 "rightVotes": x.right_votes, "voters": x.voters}
                                for x in self.missed]},
        }


def course_figures(counts: CourseCounts, period: Period, budget: int | None) -> CourseFigures:
    runs: dict[date, dict[CourseMode, int]] = defaultdict(dict)
    tokens: dict[date, int] = defaultdict(int)
    for day, mode, n, used in counts.runs:
        runs[day][mode] = runs[day].get(mode, 0) + n
        tokens[day] += used
    quiz: dict[date, tuple[int, int]] = {day: (rounds, right)
                                         for day, rounds, right in counts.quiz}
    days = tuple(Day(d, runs[d], tokens[d], *quiz.get(d, (0, 0))) for d in sorted(runs))
    return CourseFigures(
        period=period, days=days,
        tools=tuple(ToolUse(*t) for t in counts.tools), endings=_endings(counts),
        compared=counts.compared, differed=counts.differed, differing=counts.differing,
        missed=counts.missed, askers=counts.askers, budget=budget)


def _endings(counts: CourseCounts) -> Endings:
    by: dict[str, int] = defaultdict(int)
    failed: dict[str, int] = defaultdict(int)
    for status, kind, n in counts.endings:
        if status == RunStatus.ERROR:
            failed[kind] += n
        else:
            by[status] += n
    return Endings(done=by[RunStatus.DONE], out_of_rounds=by[RunStatus.MAX_ROUNDS],
                   failed=dict(sorted(failed.items(), key=lambda kv: -kv[1])),
                   stopped=by[RunStatus.CANCELLED], interrupted=by[RunStatus.INTERRUPTED],
                   running=by[RunStatus.RUNNING],
                   refused_rate=counts.refused.get(RefusalReason.RATE, 0),
                   refused_budget=counts.refused.get(RefusalReason.BUDGET, 0))
