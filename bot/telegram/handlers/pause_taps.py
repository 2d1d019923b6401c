"""Walkthrough's updates: a tap on ▶ Run, ✏️ Edit, ⏭ Skip or ⏹ Stop under a paused run, and
the reply that gives an edited action its new arguments. Only the asker or an admin decides;
anyone else gets a short alert (or, for a reply, a notice)."""

from __future__ import annotations

from typing import Any

from telegram import Message, Update
from telegram.ext import Application, BaseHandler, CallbackQueryHandler, MessageHandler, filters

from agent.classroom.confirm import Decision, EditError, parse_edit
from bot.runs.pauses import Pause
from bot.telegram.context import BotData, Context
from bot.telegram.delivery.outbox import Notice
from bot.telegram.handlers.common import is_admin, lang_of, sender_of
from bot.view.i18n import phrase, text
from bot.view.pause_view import CHOICES, edit_prompt


class _EditReply(filters.MessageFilter):
    """A text reply to a message that asks a paused run for new arguments."""

    def __init__(self, bot_data: BotData) -> None:
        super().__init__(name="EditReply")
        self.bot_data = bot_data

    def filter(self, message: Message) -> bool:
        services, replied = self.bot_data.services, message.reply_to_message
        return services is not None and replied is not None and (
            services.runs.pauses.asking(message.chat_id, replied.message_id) is not None)


def handlers(app: Application[Any, Any, Any, Any, BotData, Any]) -> list[BaseHandler]:  # type: ignore[type-arg]
    """Before the question handlers: a reply to an edit question is not a follow-up."""
    return [
        CallbackQueryHandler(pause_tapped, pattern=rf"^step:\d+:\d+:({'|'.join(CHOICES)})$"),
        MessageHandler(filters.TEXT & ~filters.COMMAND & _EditReply(app.bot_data), edit_reply),
    ]


async def _may_decide(context: Context, pause: Pause, user_id: int) -> bool:
    return user_id == pause.asker_id or await context.parts.admins.check(pause.chat_id, user_id)


async def pause_tapped(update: Update, context: Context) -> None:
    query = update.callback_query
    assert query is not None and query.data is not None
    _, key, number, choice = query.data.split(":")
    user, lang = query.from_user, lang_of(query.from_user)
    pause = context.services.runs.pauses.of_run(int(key))
    if pause is None or pause.number != int(number) or not pause.open:
        await query.answer(phrase(lang, "pause_stale"))
        return
    if not await _may_decide(context, pause, user.id):
        await query.answer(phrase(lang, "pause_not_yours", name=pause.asker_name),
                           show_alert=True)
        return
    await query.answer(phrase(lang, f"pause_answer_{choice}"))
    if choice == "edit":
        reply_to = query.message.message_id if isinstance(query.message, Message) else None
        ids = await context.parts.outbox.say(pause.chat_id, reply_to, edit_prompt(
            lang, pause.proposed.tool, pause.proposed.arguments, pause.fields()))
        context.services.runs.pauses.ask(pause, ids)
        return
    reason = phrase(pause.run_lang, "pause_stopped_reason", name=user.full_name) \
        if choice == "stop" else ""
    pause.resolve(Decision(choice, user.full_name, reason=reason))  # type: ignore[arg-type]


async def edit_reply(update: Update, context: Context) -> None:
    """New arguments, validated by the tool's own schema; an invalid reply gets the exact
    error and the question again."""
    msg, sender = update.effective_message, sender_of(update)
    assert msg is not None and msg.text is not None and msg.reply_to_message is not None
    pause = context.services.runs.pauses.asking(msg.chat_id, msg.reply_to_message.message_id)
    if pause is None:
        return
    if not (sender.id == pause.asker_id or await is_admin(context, msg.chat_id, sender)):
        await context.parts.outbox.notice(msg.chat_id, msg.message_id, sender.id, text(
            sender.lang, "pause_edit_not_yours", name=pause.asker_name), Notice.NOT_YOURS,
            "step")
        return
    try:
        arguments = parse_edit(msg.text, pause.tool, sender.lang)
    except EditError as err:
        ids = await context.parts.outbox.say(msg.chat_id, msg.message_id, edit_prompt(
            sender.lang, pause.proposed.tool, pause.proposed.arguments, pause.fields(),
            error=str(err)))
        context.services.runs.pauses.ask(pause, ids)
        return
    pause.resolve(Decision("edit", sender.name, arguments))
