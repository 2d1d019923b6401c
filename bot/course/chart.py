"""The course's figures drawn by matplotlib (a `Figure` saved without pyplot, so by its Agg
and SVG backends: no display): one tall PNG of
every chart for Telegram (a phone shows it whole, top to bottom), and each chart alone as
SVG for the course page, larger. Labels in the chat's language, drawn with Debian's Noto
CJK font so Chinese never shows as boxes; the SVG carries its glyphs as paths, so the page
needs no font and no network.

Pure: figures in, bytes out. Too much CPU for a coroutine of the bot's event loop, so it
runs in a process of its own (bot/course/drawing.py).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from enum import StrEnum

import matplotlib
from matplotlib import font_manager
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator, PercentFormatter

from bot.course.course_figures import MODES, CourseFigures
from bot.course.course_words import word, word_for

CJK_FAMILY = "Noto Sans CJK SC"
"""Debian's fonts-noto-cjk: the Chinese labels' font (its Latin letters are fine too)."""
FONTS = [CJK_FAMILY, "Noto Sans CJK JP", "DejaVu Sans"]
STYLE = {"font.family": "sans-serif", "font.sans-serif": FONTS, "font.size": 12,
         "axes.titlesize": 14, "axes.titleweight": "bold", "axes.spines.top": False,
         "axes.spines.right": False, "svg.fonttype": "path", "svg.hashsalt": "glassbox"}
MODE_COLOURS = {"ask": "#0072B2", "plain": "#E69F00", "compare": "#009E73",
                "quiz": "#CC79A7", "step": "#56B4E9"}
"""Okabe and Ito's colours: told apart with every common colour blindness."""
PAGE_TYPE = {"font.size": 14, "axes.titlesize": 16}
"""The page's charts are shown some 600 px wide on a projector: larger type than the PNG's."""
OK, FAILED, BUDGET = "#009E73", "#D55E00", "#D55E00"
MOST_BARS = 40
"""Lectures drawn as bars; a longer period shows its last MOST_BARS (the page lists all)."""
MOST_TICKS = 12


class Chart(StrEnum):
    LECTURES = "lectures"
    TOOLS = "tools"
    ENDINGS = "endings"
    COMPARE = "compare"
    QUIZ = "quiz"
    TOKENS = "tokens"


def cjk_font() -> tuple[str, str]:
    """The file and the family matplotlib draws Chinese with (the face of a collection it
    chose); ValueError when it has no CJK font."""
    path = font_manager.findfont(font_manager.FontProperties(family=CJK_FAMILY),
                                 fallback_to_default=False)
    return str(path), font_manager.get_font(path).family_name


def picture(figures: CourseFigures, lang: str, *, width_px: int = 1080, dpi: int = 150) -> bytes:
    """Every chart, one under another, under a title: a PNG `width_px` wide."""
    with matplotlib.rc_context(STYLE):
        width = width_px / dpi
        fig = Figure(figsize=(width, width * 1.9), dpi=dpi, layout="constrained")
        fig.suptitle(f"{word(lang, 'title')} · {period_words(figures, lang)}\n"
                     f"{headline(figures, lang)}", fontsize=15, fontweight="bold")
        axes = fig.subplots(len(Chart), 1, height_ratios=[1.3, 1, 1, 0.45, 1, 1])
        for ax, chart in zip(axes, Chart, strict=True):
            DRAW[chart](ax, figures, lang)
        out = io.BytesIO()
        fig.savefig(out, format="png", dpi=dpi)
    return out.getvalue()


def svgs(figures: CourseFigures, lang: str) -> dict[Chart, str]:
    """Each chart alone, as an SVG document sized to scale with the page."""
    out: dict[Chart, str] = {}
    with matplotlib.rc_context({**STYLE, **PAGE_TYPE}):
        for chart in Chart:
            fig = Figure(figsize=(7, 2.2 if chart == Chart.COMPARE else 3.8),
                         layout="constrained")
            DRAW[chart](fig.subplots(), figures, lang)
            buf = io.StringIO()
            fig.savefig(buf, format="svg")
            out[chart] = buf.getvalue()
    return out


def headline(figures: CourseFigures, lang: str) -> str:
    return " · ".join((word_for(lang, "n_questions", figures.runs),
                       word_for(lang, "n_lectures", len(figures.days)),
                       word_for(lang, "n_askers", figures.askers)))


def period_words(figures: CourseFigures, lang: str) -> str:
    p = figures.period
    return word(lang, "period", first=p.first.isoformat(), last=p.last.isoformat())


def _lectures(ax: Axes, figures: CourseFigures, lang: str) -> None:
    ax.set_title(word(lang, "per_lecture"), loc="left")
    days = figures.days[-MOST_BARS:]
    if not days:
        return _empty(ax, word(lang, "nothing"))
    xs = range(len(days))
    bottom = [0] * len(days)
    for mode in MODES:
        heights = [d.runs.get(mode, 0) for d in days]
        if any(heights):
            ax.bar(xs, heights, bottom=bottom, color=MODE_COLOURS[mode],
                   label=word(lang, f"mode_{mode}"))
            bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    _day_ticks(ax, [d.day.strftime("%m-%d") for d in days])
    ax.set_ylabel(word(lang, "questions"))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend(loc="upper left", ncols=5, fontsize=10, frameon=False,
              bbox_to_anchor=(0, -0.18))


def _tools(ax: Axes, figures: CourseFigures, lang: str) -> None:
    ax.set_title(word(lang, "tools"), loc="left")
    tools = figures.tools[:10]
    if not tools:
        return _empty(ax, word(lang, "no_tools"))
    ys = range(len(tools))
    worked = [t.calls - t.failed for t in tools]
    ax.barh(ys, worked, color=OK, label=word(lang, "calls_ok"))
    ax.barh(ys, [t.failed for t in tools], left=worked, color=FAILED,
            label=word(lang, "calls_failed"))
    ax.set_yticks(list(ys), [t.tool for t in tools])
    ax.invert_yaxis()
    for y, t in zip(ys, tools, strict=True):
        failed = f" · {word(lang, 'calls_failed')} {t.failed}" if t.failed else ""
        ax.annotate(f" {t.calls}{failed}",
                    (t.calls, y), va="center", fontsize=11)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.margins(x=0.15)
    ax.legend(loc="lower right", fontsize=10, frameon=False)


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


def _endings(ax: Axes, figures: CourseFigures, lang: str) -> None:
    ax.set_title(word(lang, "endings"), loc="left")
    rows = ending_rows(figures, lang)
    if not rows:
        return _empty(ax, word(lang, "nothing"))
    ys = range(len(rows))
    ax.barh(ys, [n for _, n, _ in rows], color=[c for _, _, c in rows])
    ax.set_yticks(list(ys), [label for label, _, _ in rows])
    ax.invert_yaxis()
    for y, (_, n, _) in zip(ys, rows, strict=True):
        ax.annotate(f" {n}", (n, y), va="center", fontsize=11)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.margins(x=0.12)


def _compare(ax: Axes, figures: CourseFigures, lang: str) -> None:
    ax.set_title(word(lang, "compare"), loc="left")
    if not figures.compared:
        return _empty(ax, word(lang, "no_compare"))
    same = figures.compared - figures.differed
    ax.barh([0], [same], color=OK, label=word(lang, "compare_same"))
    ax.barh([0], [figures.differed], left=[same], color=FAILED,
            label=word(lang, "compare_differ"))
    ax.set_yticks([])
    ax.set_xlim(0, figures.compared)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.annotate(f"{figures.differed} / {figures.compared}", (figures.compared, 0),
                xytext=(-6, 0), textcoords="offset points", ha="right", va="center",
                color="white", fontweight="bold")
    ax.legend(loc="upper left", ncols=2, fontsize=10, frameon=False,
              bbox_to_anchor=(0, -0.35))


def _quiz(ax: Axes, figures: CourseFigures, lang: str) -> None:
    ax.set_title(word(lang, "quiz"), loc="left")
    days = [d for d in figures.days if d.quiz_rounds][-MOST_BARS:]
    if not days:
        return _empty(ax, word(lang, "no_quiz"))
    xs = list(range(len(days)))
    ax.plot(xs, [d.quiz_right / d.quiz_rounds for d in days], marker="o", linewidth=2.5,
            color=MODE_COLOURS["quiz"])
    for x, d in zip(xs, days, strict=True):
        ax.annotate(f"{d.quiz_right}/{d.quiz_rounds}", (x, d.quiz_right / d.quiz_rounds),
                    xytext=(0, 8), textcoords="offset points", ha="center", fontsize=10)
    ax.set_ylim(-0.05, 1.15)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_ylabel(word(lang, "quiz_share"))
    ax.set_xlim(-0.5, len(days) - 0.5)
    _day_ticks(ax, [d.day.strftime("%m-%d") for d in days])


def _tokens(ax: Axes, figures: CourseFigures, lang: str) -> None:
    ax.set_title(word(lang, "tokens"), loc="left")
    days = figures.days[-MOST_BARS:]
    if not days:
        return _empty(ax, word(lang, "nothing"))
    budget = figures.budget
    colours = [FAILED if budget is not None and d.tokens >= budget else MODE_COLOURS["ask"]
               for d in days]
    ax.bar(range(len(days)), [d.tokens for d in days], color=colours)
    if budget is not None:
        ax.axhline(budget, color=BUDGET, linestyle="--", linewidth=1.5,
                   label=word(lang, "budget", budget=budget))
        ax.legend(loc="upper left", fontsize=10, frameon=False)
        ax.set_ylim(0, max(budget, *(d.tokens for d in days)) * 1.15)
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:,.0f}")
    _day_ticks(ax, [d.day.strftime("%m-%d") for d in days])


def _day_ticks(ax: Axes, labels: list[str]) -> None:
    step = max(1, -(-len(labels) // MOST_TICKS))
    ax.set_xticks(list(range(0, len(labels), step)), labels[::step])


def _empty(ax: Axes, words: str) -> None:
    ax.set_axis_off()
    ax.text(0.5, 0.5, words, ha="center", va="center", transform=ax.transAxes, fontsize=13,
            color="#666666")


DRAW: dict[Chart, Callable[[Axes, CourseFigures, str], None]] = {
    Chart.LECTURES: _lectures, Chart.TOOLS: _tools, Chart.ENDINGS: _endings,
    Chart.COMPARE: _compare, Chart.QUIZ: _quiz, Chart.TOKENS: _tokens,
}
