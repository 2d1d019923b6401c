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

import matplotlib
from matplotlib import font_manager
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.ticker import FixedLocator, MaxNLocator, PercentFormatter

from bot.course.chart_labels import FAILED, OK, Chart, ending_rows, headline, period_words
from bot.course.course_figures import MODES, CourseFigures
from bot.course.course_words import word

CJK_FAMILY = "Noto Sans CJK SC"
"""Debian's fonts-noto-cjk: the Chinese labels' font (its Latin letters are fine too)."""
FONTS = [CJK_FAMILY, "Noto Sans CJK JP", "DejaVu Sans"]
STYLE = {"font.family": "sans-serif", "font.sans-serif": FONTS, "font.size": 12,
         "axes.titlesize": "large", "axes.titleweight": "bold", "axes.labelsize": "medium",
         "xtick.labelsize": "medium", "ytick.labelsize": "medium", "legend.fontsize": "small",
         "axes.spines.top": False, "axes.spines.right": False, "svg.fonttype": "path",
         "svg.hashsalt": "glassbox"}
"""Every other size is relative to font.size ('small', 'large'), which each output sets."""
MODE_COLOURS = {"ask": "#0072B2", "plain": "#E69F00", "compare": "#009E73",
                "quiz": "#CC79A7", "step": "#56B4E9"}
"""Okabe and Ito's colours: told apart with every common colour blindness."""
PAGE_TYPE = {"font.size": 16}
"""The page's charts are 7 in (504 pt) wide, shown some 600 px wide on a projector and 370 px
on a phone: 16 pt type is 19 and 12 px there."""
PHONE_TYPE = 0.031
"""The PNG's type, as a share of its width: a phone shows the picture 360 to 430 px wide
when it is opened, so its labels are 11 to 13 px there (at 8 px, as a 12 pt label at 1080
px is, they could not be read without zooming in), and 9 to 10 px in the chat's bubble.
Larger type no longer fits: the tools' rows would overlap and the legends overflow."""
BUDGET = FAILED
MOST_BARS = 40
"""Lectures drawn as bars; a longer period shows its last MOST_BARS (the page lists all)."""
TICK_EMS = 4.5
"""The room a day's label ('09-01') takes on the axis, in ems of the type: the days are
labelled as often as that leaves them apart, at any size."""
MOST_LABELLED = 12
"""The quiz's points that are each labelled with their count: more would overlap."""
BAR_WIDTH = 0.8


def cjk_font() -> tuple[str, str]:
    """The file and the family matplotlib draws Chinese with (the face of a collection it
    chose); ValueError when it has no CJK font."""
    path = font_manager.findfont(font_manager.FontProperties(family=CJK_FAMILY),
                                 fallback_to_default=False)
    return str(path), font_manager.get_font(path).family_name


def warm() -> tuple[str, str]:
    """Load what every picture needs, once for the drawing process, before its first: the
    CJK font's faces and glyphs, the text layout and the PNG encoder. The CJK font
    (cjk_font)."""
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(2, 1), dpi=72)
        fig.text(0.5, 0.5, "课程 Course 0123456789", ha="center", fontweight="bold")
        fig.text(0.5, 0.1, "问题 questions", ha="center")
        fig.savefig(io.BytesIO(), format="png", pil_kwargs={"compress_level": 1})
    return cjk_font()


def picture(figures: CourseFigures, lang: str, *, width_px: int = 1080, dpi: int = 150) -> bytes:
    """Every chart, one under another, under a title: a PNG `width_px` wide."""
    points = PHONE_TYPE * width_px * 72 / dpi
    with matplotlib.rc_context({**STYLE, "font.size": points}):
        width = width_px / dpi
        fig = Figure(figsize=(width, width * 2.1), dpi=dpi, layout="constrained")
        fig.suptitle(f"{word(lang, 'title')} · {period_words(figures, lang)}\n"
                     f"{headline(figures, lang)}", fontsize="large", fontweight="bold")
        axes = fig.subplots(len(Chart), 1, height_ratios=[1.3, 1, 1, 0.45, 1, 1])
        for ax, chart in zip(axes, Chart, strict=True):
            DRAW[chart](ax, figures, lang)
        out = io.BytesIO()
        # zlib's fastest level: the picture is flat colour, a few KiB larger, in a tenth
        # of the time of the default level
        fig.savefig(out, format="png", dpi=dpi, pil_kwargs={"compress_level": 1})
    return out.getvalue()


def svgs(figures: CourseFigures, lang: str) -> dict[Chart, str]:
    """Each chart alone, as an SVG document sized to scale with the page."""
    out: dict[Chart, str] = {}
    with matplotlib.rc_context({**STYLE, **PAGE_TYPE}):
        for chart in Chart:
            fig = Figure(figsize=(7, 2.8 if chart == Chart.COMPARE else 4.2),
                         layout="constrained")
            DRAW[chart](fig.subplots(), figures, lang)
            buf = io.StringIO()
            fig.savefig(buf, format="svg")
            out[chart] = buf.getvalue()
    return out


def _lectures(ax: Axes, figures: CourseFigures, lang: str) -> None:
    _title(ax, word(lang, "per_lecture"))
    days = figures.days[-MOST_BARS:]
    if not days:
        return _empty(ax, word(lang, "nothing"))
    bottom = [0] * len(days)
    for mode in MODES:
        heights = [d.runs.get(mode, 0) for d in days]
        if any(heights):
            _bars(ax, heights, bottom, MODE_COLOURS[mode], word(lang, f"mode_{mode}"))
            bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    _day_ticks(ax, [d.day.strftime("%m-%d") for d in days])
    ax.set_ylabel(word(lang, "questions"))
    ax.yaxis.set_major_locator(MaxNLocator(nbins=4, integer=True))
    ax.yaxis.set_major_formatter(_thousands)
    _legend_below(ax, ncols=3)


def _tools(ax: Axes, figures: CourseFigures, lang: str) -> None:
    _title(ax, word(lang, "tools"))
    tools = figures.tools[:10]
    if not tools:
        return _empty(ax, word(lang, "no_tools"))
    ys = range(len(tools))
    worked = [t.calls - t.failed for t in tools]
    _bars(ax, worked, [0] * len(tools), OK, word(lang, "calls_ok"), across=True)
    _bars(ax, [t.failed for t in tools], worked, FAILED, word(lang, "calls_failed"),
          across=True)
    ax.set_yticks(list(ys), [t.tool for t in tools])
    ax.invert_yaxis()
    for y, t in zip(ys, tools, strict=True):
        failed = f" · {word(lang, 'calls_failed')} {t.failed:,}" if t.failed else ""
        ax.annotate(f" {t.calls:,}{failed}", (t.calls, y), va="center", fontsize="small")
    _counts_axis(ax.xaxis)
    ax.set_xlim(0, max(t.calls for t in tools) * 1.6)
    _legend_below(ax, ncols=2)


def _endings(ax: Axes, figures: CourseFigures, lang: str) -> None:
    _title(ax, word(lang, "endings"))
    rows = ending_rows(figures, lang)
    if not rows:
        return _empty(ax, word(lang, "nothing"))
    ys = range(len(rows))
    _bars(ax, [n for _, n, _ in rows], [0] * len(rows), [c for _, _, c in rows], across=True)
    ax.set_yticks(list(ys), [label for label, _, _ in rows])
    ax.invert_yaxis()
    for y, (_, n, _) in zip(ys, rows, strict=True):
        ax.annotate(f" {n:,}", (n, y), va="center", fontsize="small")
    _counts_axis(ax.xaxis)
    ax.set_xlim(0, max(n for _, n, _ in rows) * 1.25)


def _compare(ax: Axes, figures: CourseFigures, lang: str) -> None:
    _title(ax, word(lang, "compare"))
    if not figures.compared:
        return _empty(ax, word(lang, "no_compare"))
    same = figures.compared - figures.differed
    _bars(ax, [same], [0], OK, word(lang, "compare_same"), across=True)
    _bars(ax, [figures.differed], [same], FAILED, word(lang, "compare_differ"), across=True)
    ax.set_yticks([])
    ax.set_xlim(0, figures.compared)
    _counts_axis(ax.xaxis)
    ax.annotate(f"{figures.differed:,} / {figures.compared:,}", (figures.compared, 0),
                xytext=(-6, 0), textcoords="offset points", ha="right", va="center",
                color="white", fontweight="bold")
    _legend_below(ax, ncols=2)


def _quiz(ax: Axes, figures: CourseFigures, lang: str) -> None:
    _title(ax, word(lang, "quiz"))
    days = [d for d in figures.days if d.quiz_rounds][-MOST_BARS:]
    if not days:
        return _empty(ax, word(lang, "no_quiz"))
    xs = list(range(len(days)))
    ax.plot(xs, [d.quiz_right / d.quiz_rounds for d in days], marker="o", linewidth=2.5,
            color=MODE_COLOURS["quiz"])
    if len(days) <= MOST_LABELLED:
        for x, d in zip(xs, days, strict=True):
            ax.annotate(f"{d.quiz_right}/{d.quiz_rounds}", (x, d.quiz_right / d.quiz_rounds),
                        xytext=(0, 8), textcoords="offset points", ha="center",
                        fontsize="small")
    ax.set_ylim(-0.05, 1.15)
    ax.yaxis.set_major_locator(FixedLocator([0, 0.5, 1]))
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_ylabel(word(lang, "quiz_share"))
    ax.set_xlim(-0.5, len(days) - 0.5)
    _day_ticks(ax, [d.day.strftime("%m-%d") for d in days])


def _tokens(ax: Axes, figures: CourseFigures, lang: str) -> None:
    _title(ax, word(lang, "tokens"))
    days = figures.days[-MOST_BARS:]
    if not days:
        return _empty(ax, word(lang, "nothing"))
    budget = figures.budget
    colours = [FAILED if budget is not None and d.tokens >= budget else MODE_COLOURS["ask"]
               for d in days]
    _bars(ax, [d.tokens for d in days], [0] * len(days), colours)
    top = max(d.tokens for d in days)
    if budget is not None:
        ax.axhline(budget, color=BUDGET, linestyle="--", linewidth=1.5,
                   label=word(lang, "budget", budget=budget))
        _legend_below(ax, ncols=1, handlelength=2)
        top = max(budget, top)
    ax.set_ylim(0, top * 1.15)
    _counts_axis(ax.yaxis)
    _day_ticks(ax, [d.day.strftime("%m-%d") for d in days])


def _title(ax: Axes, words: str) -> None:
    """A chart's title over its left edge, wrapped where the picture ends: at a phone's
    type a long title is wider than the chart."""
    ax.set_title(words, loc="left", wrap=True)


def _legend_below(ax: Axes, ncols: int, handlelength: float = 1) -> None:
    """The chart's legend under its axis' labels: set off in ems of the type, not in a share
    of the chart's height (which the layout is still working out)."""
    ax.legend(loc="upper left", bbox_to_anchor=(0, 0), borderaxespad=2.2, ncols=ncols,
              frameon=False, handlelength=handlelength, columnspacing=1)


def _bars(ax: Axes, lengths: list[int], starts: list[int], colour: str | list[str],
          label: str | None = None, *, across: bool = False) -> None:
    """Bars at 0, 1, 2… of `lengths` from `starts` (up; `across`: to the right), as one
    artist rather than one per bar: a course's bars are many, and each artist costs its
    own layout and drawing."""
    half = BAR_WIDTH / 2
    boxes = []
    for at, (length, start) in enumerate(zip(lengths, starts, strict=True)):
        box = [(at - half, start), (at + half, start), (at + half, start + length),
               (at - half, start + length)]
        boxes.append([(y, x) for x, y in box] if across else box)
    bars = PolyCollection(boxes, facecolors=colour, edgecolors="none", label=label)
    (bars.sticky_edges.x if across else bars.sticky_edges.y).append(0)  # no margin below 0
    ax.add_collection(bars)
    ax.autoscale_view()


def _counts_axis(axis: Axis) -> None:
    """A few whole numbers on `axis`, with thousands separated."""
    axis.set_major_locator(MaxNLocator(nbins=4, integer=True))
    axis.set_major_formatter(_thousands)


def _thousands(value: float, _: int) -> str:
    return f"{value:,.0f}"


def _day_ticks(ax: Axes, labels: list[str]) -> None:
    """Days along the bottom, as many as fit apart at the type's size."""
    width_pt = ax.get_position().width * ax.get_figure().get_figwidth() * 72
    fit = max(2, int(width_pt / (TICK_EMS * FontProperties(size="medium").get_size_in_points())))
    step = max(1, -(-len(labels) // fit))
    ax.set_xticks(list(range(0, len(labels), step)), labels[::step])


def _empty(ax: Axes, words: str) -> None:
    ax.set_axis_off()
    ax.text(0.5, 0.5, words, ha="center", va="center", transform=ax.transAxes, fontsize="large",
            color="#666666")


DRAW: dict[Chart, Callable[[Axes, CourseFigures, str], None]] = {
    Chart.LECTURES: _lectures, Chart.TOOLS: _tools, Chart.ENDINGS: _endings,
    Chart.COMPARE: _compare, Chart.QUIZ: _quiz, Chart.TOKENS: _tokens,
}
