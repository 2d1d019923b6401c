"""/stats [period]: the course's figures as one picture (sendPhoto), its caption the headline
figures, in the chat's language: `/stats` (the last 30 days), `/stats 7d`,
`/stats 2026-09-01..2026-12-31`.

In a group, an admin gets the class's figures in the group; anyone else gets their own
numbers only, privately (a student's numbers are not the class's business). In a private
chat, the chat's own. A group's figures never hold a private chat's runs: those are runs
of another conversation.
"""

from __future__ import annotations

import html
import logging

from telegram import Update
from telegram.constants import ChatType
from telegram.ext import BaseHandler, CommandHandler

from bot.course.chart_labels import headline, period_words
from bot.course.course_figures import CourseFigures
from bot.course.course_words import word
from bot.course.drawing import AlreadyDrawing, DrawingFailed, TooBusy
from bot.course.period import MAX_DAYS, PeriodProblem, parse_period, today_in
from bot.store.records import Scope
from bot.telegram.context import Context
from bot.telegram.delivery.outbox import Notice
from bot.telegram.handlers.common import chat_settings, is_admin, lang_of, sender_of
from bot.view.i18n import text
from bot.view.textlen import shorten, utf16_len

log = logging.getLogger(__name__)
MAX_CAPTION = 1024
"""sendPhoto's caption, in UTF-16 units after its markup is parsed (ours is within it)."""
LISTED, LISTED_CHARS = 3, 60
"""Runs each list in the caption names, and a question's characters there."""


def handlers() -> list[BaseHandler]:  # type: ignore[type-arg]
    return [CommandHandler("stats", stats_command)]


async def stats_command(update: Update, context: Context) -> None:
    msg, chat, user = update.effective_message, update.effective_chat, update.effective_user
    assert msg is not None and msg.text is not None and chat is not None and user is not None
    sender = sender_of(update)
    settings = await chat_settings(context, chat.id)
    lang = settings.words_lang(lang_of(user))
    _, _, words = msg.text.partition(" ")
    period = parse_period(words, settings.timezone, today_in(settings.timezone))
    if isinstance(period, PeriodProblem):
        await context.parts.outbox.notice(chat.id, msg.message_id, sender.id,
                                    html.escape(word(lang, f"period_{period}", most=MAX_DAYS)),
                                    Notice.USAGE, "stats")
        return
    private = chat.type == ChatType.PRIVATE
    whole = private or await is_admin(context, chat.id, sender)
    scope = Scope(chat.id) if whole else Scope(chat.id, sender.id)
    services = context.services
    to = chat.id if whole else user.id
    try:
        with services.drawing.turn(chat.id):
            figures = await services.course.figures(scope, period)
            if not figures.runs:
                await context.parts.outbox.say(chat.id, msg.message_id,
                                         html.escape(word(lang, "nothing")))
                return
            png = await services.drawing.picture(figures, lang)
    except (AlreadyDrawing, TooBusy, DrawingFailed) as err:
        key = {AlreadyDrawing: "drawing_already", TooBusy: "drawing_busy"}.get(
            type(err), "drawing_failed")
        await context.parts.outbox.notice(chat.id, msg.message_id, sender.id,
                                    html.escape(word(lang, key)), Notice.BUSY, "stats")
        return
    title = chat.effective_name or str(chat.id)
    sent = await context.parts.outbox.send_photo(to, msg.message_id if whole else None, png,
                                           caption(figures, lang, title, own=not whole))
    if not whole:
        await context.parts.outbox.say(chat.id, msg.message_id,
                                 text(lang, "stats_sent" if sent else "stats_start_private"))


def caption(figures: CourseFigures, lang: str, title: str, *, own: bool) -> str:
    """The picture's caption (Telegram HTML, well within 1,024 characters): whose figures,
    the period, and the headline figures."""
    lines = [f"📊 <b>{html.escape(title[:80])}</b> · {html.escape(period_words(figures, lang))}",
             html.escape(headline(figures, lang))]
    parts = [word(lang, "caption_tools", calls=figures.calls, failed=figures.failed_calls)]
    if figures.compared:
        parts.append(word(lang, "caption_compare", differed=figures.differed,
                          compared=figures.compared))
    if figures.quiz_rounds:
        parts.append(word(lang, "caption_quiz", right=figures.quiz_right,
                          rounds=figures.quiz_rounds))
    parts.append(word(lang, "caption_tokens", tokens=figures.tokens))
    lines.append(html.escape(" · ".join(parts)))
    lines += _lists(figures, lang)
    if own:
        lines.append(f"<i>{html.escape(word(lang, 'caption_own'))}</i>")
    else:
        lines.append(f"<i>{html.escape(word(lang, 'caption_page'))}</i>")
    text = "\n".join(lines)
    return text if utf16_len(text) <= MAX_CAPTION else "\n".join(lines[:3] + lines[-1:])


def _lists(figures: CourseFigures, lang: str) -> list[str]:
    """The first of the lists behind the charts (the page has them all): where the model
    alone differed on a figure, the rounds the class got most wrong."""
    differing = [f"#{x.n} {shorten(x.question, LISTED_CHARS)}"
                 for x in figures.differing[:LISTED]]
    missed = [f"#{x.n} " + word(lang, "list_round", round=x.round, right=x.right_votes,
                                voters=x.voters) for x in figures.missed[:LISTED]]
    return [html.escape(f"{mark} {word(lang, title)}{word(lang, 'colon')}{' · '.join(items)}")
            for mark, title, items in (("⚠️", "list_differing", differing),
                                       ("🗳", "list_missed", missed)) if items]
