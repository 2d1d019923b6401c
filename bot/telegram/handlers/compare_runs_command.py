"""`/compare N M` in a chat: two of its stored runs side by side (bot/runs/compare_runs.py),
sent as one message folded as a finished /compare is, and shown on the chat's board.

A private chat reaches only its user's runs, a group all of the group's (as /show does). A
comparison is stored, so asking for one counts against HISTORY_RATE_LIMIT as a list does."""

from __future__ import annotations

import asyncio
import re

from telegram import Message, Update

from agent.lang import Lang
from bot.runs.compare_runs import Refused, Unfit, compare_stored
from bot.store.records import RunRecord, telegram_chat
from bot.telegram.context import Context
from bot.telegram.delivery.outbox import Notice
from bot.telegram.handlers.common import chat_settings, sender_of
from bot.telegram.handlers.history import scope_of, too_often
from bot.view.i18n import text
from bot.view.render import render_view
from bot.view.transcript import replay

TWO_RUNS = re.compile(r"#?([0-9]{1,9})\s+#?([0-9]{1,9})")
"""What follows /compare when it names two stored runs rather than asking a question."""

_WORDS = {Unfit.MISSING: "no_run", Unfit.SAME: "runs_same", Unfit.RUNNING: "runs_running",
          Unfit.COMPARISON: "runs_comparison"}


def two_runs(typed: str) -> tuple[int, int] | None:
    """The two run numbers `/compare 3 5` names; None for a question."""
    found = TWO_RUNS.fullmatch(typed.strip())
    return (int(found[1]), int(found[2])) if found else None


async def compare_runs(update: Update, context: Context, msg: Message,
                       runs: tuple[int, int]) -> None:
    """Store and show the comparison of `runs`, or say politely why not."""
    chat, user, sender = update.effective_chat, update.effective_user, sender_of(update)
    assert chat is not None and user is not None
    settings = await chat_settings(context, chat.id)
    lang = settings.words_lang(sender.lang)
    limited = too_often(context, sender.id, lang)
    if limited:
        await context.parts.outbox.notice(chat.id, msg.message_id, sender.id, limited,
                                    Notice.TOO_OFTEN, "compare")
        return
    made = await compare_stored(
        context.services.store, scope_of(chat, user), telegram_chat(chat.id), user_id=sender.id,
        user_name=sender.name, left=runs[0], right=runs[1], zone=settings.timezone,
        client=context.services.runs.client, tools=context.services.runs.tools)
    if isinstance(made, Refused):
        await context.parts.outbox.notice(chat.id, msg.message_id, sender.id,
                                    text(lang, _WORDS[made.why], n=made.n), Notice.USAGE,
                                    f"compare:{made.why}")
        return
    pages = await _shown(context, made, settings.run_lang(made.question, sender.lang),
                         settings.remarks)
    ids = await context.parts.outbox.say(chat.id, msg.message_id, pages)
    await context.services.store.add_message_ids(made.id, ids)


async def _shown(context: Context, record: RunRecord, lang: Lang, remarks: bool) -> list[str]:
    """The comparison's pages for the chat, after it is put on the chat's board."""
    lanes = await context.services.store.events(record.id)
    hub = context.services.hub
    hub.run_started(record, remarks)
    for lane, events in lanes.items():
        for event in events:
            hub.run_event(record, lane, event)
    hub.run_finished(record, record.status)
    view = await asyncio.to_thread(replay, record, lanes, lang, remarks=remarks)
    return await asyncio.to_thread(render_view, view, live=True)
