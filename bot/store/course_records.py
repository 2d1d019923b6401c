"""What the course's figures are made of, as the store keeps and hands them out: one run's
facts (written as it ends), and the counts of a scope and a period (read in a few indexed
queries). Pure data: the views import them without a database driver."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime

from bot.store.kinds import CourseMode


@dataclass(frozen=True, slots=True)
class ToolCall:
    tool: str
    ok: bool
    failure: str | None = None


@dataclass(frozen=True, slots=True)
class QuizRound:
    """One round the class voted on, whose move is known: how many voted, how many of them
    for what the model did, and whether the class's top pick (or one tied for it) was it."""

    round: int
    voters: int
    right_votes: int
    top_right: bool


@dataclass(frozen=True, slots=True)
class RunFacts:
    """What the course's figures count of one run (bot/course/facts.py makes them)."""

    mode: CourseMode
    rounds: int = 0
    error_kind: str = ""
    differs: bool | None = None
    """/compare: whether the two answers differ on a figure; None for any other run, or a
    compare run without both answers."""
    tool_calls: tuple[ToolCall, ...] = ()
    quiz: tuple[QuizRound, ...] = ()


@dataclass(frozen=True, slots=True)
class Listed:
    """A run named in one of the figures' lists (each links to the run on the board)."""

    n: int
    question: str
    round: int = 0
    right_votes: int = 0
    voters: int = 0


@dataclass(frozen=True, slots=True)
class CourseCounts:
    """A scope's counts over a period, by the chat's days."""

    runs: tuple[tuple[date, CourseMode, int, int], ...] = ()
    """(day, mode, runs, tokens)."""
    endings: tuple[tuple[str, str, int], ...] = ()
    """(status, error kind, runs)."""
    tools: tuple[tuple[str, int, int], ...] = ()
    """(tool, calls, failed calls)."""
    compared: int = 0
    """Compare runs with both answers."""
    differed: int = 0
    differing: tuple[Listed, ...] = ()
    """The newest compare runs whose two answers differed on a figure."""
    quiz: tuple[tuple[date, int, int], ...] = ()
    """(day, rounds voted on, rounds whose top pick was right)."""
    missed: tuple[Listed, ...] = ()
    """The quiz rounds with the smallest share of the class right, fewest first."""
    refused: dict[str, int] = field(default_factory=dict)
    """Questions not started, by RefusalReason."""
    askers: int = 0


@dataclass(frozen=True, slots=True)
class RunLine:
    """One run as the course's CSV lists it."""

    n: int
    started_at: datetime
    user_id: int | None
    user_name: str
    mode: str
    question: str
    tools: tuple[str, ...]
    status: str
    error_kind: str
    rounds: int
    tokens: int
    duration_ms: int | None
    quiz_rounds: int
    quiz_right: int
