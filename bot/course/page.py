"""The course page (`/board/<token>/course`): the course's charts, larger, for a projector,
a period picker, the headline figures, and the lists behind the charts (each question a
link to its run on the board). Pure: figures and the drawn SVGs in, HTML out.

No script: the picker is a plain form that reloads the page. The charts are images whose
glyphs are paths (bot/course/chart.py), so a lecture hall needs no network and no font.
Every link is relative to the page, so the board's secret is in no link of it.
"""

from __future__ import annotations

import base64
import html
from urllib.parse import urlencode

from bot.course.chart_labels import Chart, ending_rows, headline, period_words
from bot.course.course_figures import MODES, CourseFigures
from bot.course.course_words import word
from bot.store.course_records import Listed
from bot.view.i18n import lang_code


def course_page(figures: CourseFigures, svgs: dict[Chart, str], lang: str) -> str:
    p = figures.period
    query = {"from": p.first.isoformat(), "to": p.last.isoformat(),
             **({"lang": lang} if lang == "zh" else {})}
    charts = "".join(
        f'<figure class="chart {chart}"><img alt="{_e(_title(chart, lang))}" '
        f'src="data:image/svg+xml;base64,{base64.b64encode(svg.encode()).decode()}">'
        "</figure>" for chart, svg in svgs.items())
    return (
        f'<!DOCTYPE html>\n<html lang="{lang_code(lang)}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(word(lang, 'title'))} · {_e(period_words(figures, lang))}</title>"
        '<link rel="stylesheet" href="/static/course.css"></head><body>'
        f"<header><h1>{_e(word(lang, 'title'))}</h1>"
        f'<p class="period">{_e(period_words(figures, lang))} · {_e(p.zone)}</p>'
        f"{_picker(figures, lang)}"
        f'<p class="csv"><a href="course.csv?{_e(urlencode(query))}" download>'
        f"{_e(word(lang, 'csv_link'))}</a></p></header>"
        f'<main>{_headline(figures, lang)}<div class="charts">{charts}</div>'
        f'<div class="lists">{_differing(figures, lang)}{_missed(figures, lang)}</div>'
        f'<div class="lists">{_tools(figures, lang)}{_endings(figures, lang)}</div>'
        f"{_days(figures, lang)}</main></body></html>\n")


def _picker(figures: CourseFigures, lang: str) -> str:
    p = figures.period
    keep = '<input type="hidden" name="lang" value="zh">' if lang == "zh" else ""
    return ('<form class="picker" method="get">'
            f'<label>{_e(word(lang, "pick_from"))} <input type="date" name="from" '
            f'value="{p.first.isoformat()}" required></label> '
            f'<label>{_e(word(lang, "pick_to"))} <input type="date" name="to" '
            f'value="{p.last.isoformat()}" required></label>{keep} '
            f'<button type="submit">{_e(word(lang, "pick_show"))}</button></form>')


def _headline(figures: CourseFigures, lang: str) -> str:
    facts = [headline(figures, lang),
             word(lang, "caption_tools", calls=figures.calls, failed=figures.failed_calls)]
    if figures.compared:
        facts.append(word(lang, "caption_compare", differed=figures.differed,
                          compared=figures.compared))
    if figures.quiz_rounds:
        facts.append(word(lang, "caption_quiz", right=figures.quiz_right,
                          rounds=figures.quiz_rounds))
    facts.append(word(lang, "caption_tokens", tokens=figures.tokens))
    return '<ul class="headline">' + "".join(f"<li>{_e(f)}</li>" for f in facts) + "</ul>"


def _run_link(item: Listed, lang: str) -> str:
    suffix = "?lang=zh" if lang == "zh" else ""
    return (f'<a href="course/runs/{item.n}{suffix}">#{item.n}</a> '
            f'<span class="question">{_e(item.question)}</span>')


def _differing(figures: CourseFigures, lang: str) -> str:
    items = "".join(f"<li>{_run_link(x, lang)}</li>" for x in figures.differing)
    return _list(word(lang, "list_differing"), items, word(lang, "no_compare"))


def _missed(figures: CourseFigures, lang: str) -> str:
    items = "".join(
        f"<li>{_run_link(x, lang)} <span class=\"figure\">"
        f"{_e(word(lang, 'list_round', round=x.round, right=x.right_votes, voters=x.voters))}"
        "</span></li>" for x in figures.missed)
    return _list(word(lang, "list_missed"), items, word(lang, "no_quiz"))


def _list(title: str, items: str, empty: str) -> str:
    body = f"<ol>{items}</ol>" if items else f'<p class="empty">{_e(empty)}</p>'
    return f'<section class="list"><h2>{_e(title)}</h2>{body}</section>'


def _tools(figures: CourseFigures, lang: str) -> str:
    rows = "".join(f"<tr><td>{_e(t.tool)}</td><td>{t.calls}</td><td>{t.failed}</td></tr>"
                   for t in figures.tools)
    head = (f"<tr><th></th><th>{_e(word(lang, 'calls_ok'))} + "
            f"{_e(word(lang, 'calls_failed'))}</th><th>{_e(word(lang, 'calls_failed'))}</th></tr>")
    return _table(word(lang, "tools"), head, rows, word(lang, "no_tools"))


def _endings(figures: CourseFigures, lang: str) -> str:
    rows = "".join(f"<tr><td>{_e(label)}</td><td>{n}</td></tr>"
                   for label, n, _ in ending_rows(figures, lang))
    return _table(word(lang, "endings"), "", rows, word(lang, "nothing"))


def _days(figures: CourseFigures, lang: str) -> str:
    head = ("<tr><th></th>" + "".join(f"<th>{_e(word(lang, f'mode_{m}'))}</th>" for m in MODES)
            + f"<th>{_e(word(lang, 'csv_tokens'))}</th><th>/quiz</th></tr>")
    rows = "".join(
        f"<tr><td>{d.day.isoformat()}</td>"
        + "".join(f"<td>{d.runs.get(m, 0)}</td>" for m in MODES)
        + f"<td>{d.tokens:,}</td>"
        + f"<td>{f'{d.quiz_right}/{d.quiz_rounds}' if d.quiz_rounds else ''}</td></tr>"
        for d in figures.days)
    return _table(word(lang, "per_lecture"), head, rows, word(lang, "nothing"))


def _table(title: str, head: str, rows: str, empty: str) -> str:
    body = (f'<div class="table"><table>{head}{rows}</table></div>' if rows
            else f'<p class="empty">{_e(empty)}</p>')
    return f'<section class="list"><h2>{_e(title)}</h2>{body}</section>'


def _title(chart: Chart, lang: str) -> str:
    return word(lang, {Chart.LECTURES: "per_lecture"}.get(chart, str(chart)))


def _e(value: str) -> str:
    return html.escape(value, quote=True)
