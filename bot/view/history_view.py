"""What /history and /show print: a page of runs with its buttons, and a run replayed.

Buttons carry only numbers (`hist:<page>[:<search>]`, `show:<n>`); whoever taps one is
checked against the chat's scope again, so forged data reaches nothing new.
"""

from __future__ import annotations

import html

from agent.events import Event
from agent.lang import Lang
from bot.store.kinds import RunMode
from bot.store.records import HistoryPage, RunRecord
from bot.view.buttons import Button, Keyboard
from bot.view.i18n import mode_label, status_label, text
from bot.view.render import render_view
from bot.view.spans import PAGE_LIMIT, to_plain
from bot.view.textlen import shorten, utf16_len
from bot.view.transcript import View, replay
from bot.view.when import local_time

QUESTION_CHARS = 60
"""A question in the list is cut to this many characters."""
RUNS_PER_ROW = 5
SHOW_PAGES = 4
"""/show sends at most this many messages; the last then says the rest is in /export."""
SHOW_CALLS = 800
"""A longer run is drawn only as far as this many tool calls for /show: at 35 characters or
more a call, well past the pages it sends (a run of thousands drawn whole takes seconds)."""
_MARK = {"running": "⏳", "done": "🏁", "max_rounds": "⚠️", "error": "❌", "cancelled": "⏹",
         "interrupted": "⚡"}


def history_text(page: HistoryPage, lang: Lang, keyword: str, zone: str) -> str:
    """The page as HTML: a title line, then two lines a run, newest first, times in the
    time zone `zone` (named in the title)."""
    shown = shorten(keyword, QUESTION_CHARS)  # a keyword can be as long as a message
    if not page.runs:
        if keyword:
            return text(lang, "history_nothing_found", keyword=shown)
        return text(lang, "history_empty")
    numbers = {"page": page.page, "pages": page.pages, "total": page.total, "zone": zone}
    title = (text(lang, "history_found", keyword=shown, **numbers) if keyword
             else text(lang, "history_title", **numbers))
    rows = [_row(record, lang, zone) for record in page.runs]
    return "\n\n".join([title, *rows, f"<i>{text(lang, 'history_hint')}</i>"])


def history_keyboard(page: HistoryPage, search: int | None) -> Keyboard:
    """A button per run to show it, then ◀ ▶ to turn the page (keeping the search)."""
    runs = [Button(f"#{r.n} ▶", f"show:{r.n}") for r in page.runs]
    rows = [tuple(runs[i:i + RUNS_PER_ROW]) for i in range(0, len(runs), RUNS_PER_ROW)]
    suffix = "" if search is None else f":{search}"
    turn = []
    if page.page > 1:
        turn.append(Button("◀", f"hist:{page.page - 1}{suffix}"))
    if page.page < page.pages:
        turn.append(Button("▶", f"hist:{page.page + 1}{suffix}"))
    if turn:
        rows.append(tuple(turn))
    return tuple(rows)


def show_pages(record: RunRecord, lanes: dict[str, list[Event]], lang: Lang,
               zone: str, *, remarks: bool = True) -> list[str]:
    """Run `record` (its stored steps by lane) drawn as it looked live, observations whole,
    a header on top (its time in `zone`): at most SHOW_PAGES messages, the last saying the
    rest is in /export when there is more (thousands of steps would fill a hundred).
    `remarks`: whether the chat shows Glassbox's remarks."""
    view = replay(record, lanes, lang, remarks=remarks)
    if record.status == "running":
        view.add_notice(text(lang, "still_running"))
    pages = _first_pages(view) or render_view(view, live=False)
    header = run_header(record, lang, zone)
    if utf16_len(to_plain(header + "\n\n" + pages[0])) <= PAGE_LIMIT:
        pages = [header + "\n\n" + pages[0], *pages[1:]]
    else:
        pages = [header, *pages]
    if len(pages) <= SHOW_PAGES:
        return pages
    return [*pages[:SHOW_PAGES - 1], text(lang, "show_rest_in_export", n=record.n)]


def _first_pages(view: View) -> list[str] | None:
    """A run of thousands of calls drawn only as far as its first SHOW_CALLS calls: pages
    that begin exactly as the whole run's do, and enough of them (one more than /show sends
    besides the header) that the cut lies past every page sent. None: draw the run whole."""
    clipped = view.clipped(SHOW_CALLS)
    if clipped is None:
        return None
    pages = render_view(clipped, live=False, marks=False)
    return pages if len(pages) > SHOW_PAGES else None


def run_header(record: RunRecord, lang: Lang, zone: str) -> str:
    """One line for the top of /show: number, who, when (in `zone`, named), how it ended."""
    when = local_time(record.started_at, zone, "%Y-%m-%d %H:%M") + f" ({zone})"
    return text(lang, "show_header", n=record.n, name=record.user_name, when=when,
                status=_status(record, lang))


def _row(record: RunRecord, lang: Lang, zone: str) -> str:
    when = local_time(record.started_at, zone, "%m-%d %H:%M")
    mode = mode_label(record.mode, lang)
    if record.mode in (RunMode.RUNS, RunMode.MODELS):  # a comparison: both sides' labels
        mode = f"⚖️ {mode} {record.model}"
    facts = " · ".join([when, record.user_name, mode, _status(record, lang)])
    question = shorten(record.question, QUESTION_CHARS)
    return f"<b>#{record.n}</b> · {html.escape(facts)}\n{html.escape(question)}"


def _status(record: RunRecord, lang: Lang) -> str:
    return f"{_MARK.get(record.status, '•')} {status_label(record.status, lang)}"

