"""What /history and /show print: a page of runs with its buttons, and a run's header line.

Buttons carry only numbers (`hist:<page>[:<search>]`, `show:<n>`); whoever taps one is
checked against the chat's scope again, so forged data reaches nothing new.
"""

from __future__ import annotations

import html
from datetime import UTC

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from agent.lang import Lang
from bot.export import mode_label, shorten, status_label
from bot.i18n import text
from bot.store_records import HistoryPage, RunRecord

QUESTION_CHARS = 60
"""A question in the list is cut to this many characters."""
RUNS_PER_ROW = 5
_MARK = {"running": "⏳", "done": "✅", "max_rounds": "⚠️", "error": "❌", "cancelled": "⏹",
         "interrupted": "⚡"}


def history_text(page: HistoryPage, lang: Lang, keyword: str) -> str:
    """The page as HTML: a title line, then two lines a run, newest first."""
    shown = shorten(keyword, QUESTION_CHARS)  # a keyword can be as long as a message
    if not page.runs:
        if keyword:
            return text(lang, "history_nothing_found", keyword=shown)
        return text(lang, "history_empty")
    numbers = {"page": page.page, "pages": page.pages, "total": page.total}
    title = (text(lang, "history_found", keyword=shown, **numbers) if keyword
             else text(lang, "history_title", **numbers))
    rows = [_row(record, lang) for record in page.runs]
    return "\n\n".join([title, *rows, f"<i>{text(lang, 'history_hint')}</i>"])


def history_keyboard(page: HistoryPage, search: int | None) -> InlineKeyboardMarkup | None:
    """A button per run to show it, then ◀ ▶ to turn the page (keeping the search)."""
    runs = [InlineKeyboardButton(f"#{r.n} ▶", callback_data=f"show:{r.n}") for r in page.runs]
    rows = [runs[i:i + RUNS_PER_ROW] for i in range(0, len(runs), RUNS_PER_ROW)]
    suffix = "" if search is None else f":{search}"
    turn = []
    if page.page > 1:
        turn.append(InlineKeyboardButton("◀", callback_data=f"hist:{page.page - 1}{suffix}"))
    if page.page < page.pages:
        turn.append(InlineKeyboardButton("▶", callback_data=f"hist:{page.page + 1}{suffix}"))
    if turn:
        rows.append(turn)
    return InlineKeyboardMarkup(rows) if rows else None


def run_header(record: RunRecord, lang: Lang) -> str:
    """One line for the top of /show: number, who, when, how it ended."""
    when = record.started_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return text(lang, "show_header", n=record.n, name=record.user_name, when=when,
                status=_status(record, lang))


def _row(record: RunRecord, lang: Lang) -> str:
    when = record.started_at.astimezone(UTC).strftime("%m-%d %H:%M")
    facts = " · ".join([when, record.user_name, mode_label(record.mode, lang),
                        _status(record, lang)])
    question = shorten(record.question, QUESTION_CHARS)
    return f"<b>#{record.n}</b> · {html.escape(facts)}\n{html.escape(question)}"


def _status(record: RunRecord, lang: Lang) -> str:
    return f"{_MARK.get(record.status, '•')} {status_label(record.status, lang)}"

