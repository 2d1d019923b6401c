"""What the course's charts say in words and colours, without drawing them: which charts there
are, the headline, the period, and the rows of how runs ended. The bot's /stats caption and
the course page read these in the bot's own process, which never loads matplotlib (the
pictures are drawn in a process of their own, bot/course/chart.py)."""

from __future__ import annotations

from enum import StrEnum

from bot.course.course_figures import CourseFigures
from bot.course.course_words import word, word_for

OK, FAILED = "#009E73", "#D55E00"


class Chart(StrEnum):
    LECTURES = "lectures"
    TOOLS = "tools"
    ENDINGS = "endings"
    COMPARE = "compare"
    QUIZ = "quiz"
    TOKENS = "tokens"


def headline(figures: CourseFigures, lang: str) -> str:
    return " · ".join((word_for(lang, "n_questions", figures.runs),
                       word_for(lang, "n_lectures", len(figures.days)),
                       word_for(lang, "n_askers", figures.askers)))


def period_words(figures: CourseFigures, lang: str) -> str:
    p = figures.period
    return word(lang, "period", first=p.first.isoformat(), last=p.last.isoformat())


def ending_rows(figures: CourseFigures, lang: str) -> list[tuple[str, int, str]]:
    """(label, runs, colour) of each way runs ended that happened, and the refusals."""
    e = figures.endings
    rows = [(word(lang, "end_done"), e.done, OK),
            (word(lang, "end_out_of_rounds"), e.out_of_rounds, "#E69F00")]
    rows += [(word(lang, "end_failed", kind=kind) if kind else word(lang, "end_failed_unknown"),
              n, FAILED) for kind, n in e.failed.items()]
    rows += [(word(lang, "end_stopped"), e.stopped, "#999999"),
             (word(lang, "end_interrupted"), e.interrupted, "#999999"),
             (word(lang, "end_running"), e.running, "#56B4E9"),
             (word(lang, "end_refused_rate"), e.refused_rate, "#CC79A7"),
             (word(lang, "end_refused_budget"), e.refused_budget, "#CC79A7")]
    return [row for row in rows if row[1]]
