"""Quiz mode's updates: /quiz (a question whose every round the class predicts first), a tap
on 👁 Reveal under its live message, and the votes (`poll_answer` updates). Only the asker
or an admin reveals; anyone else gets a short alert. In a private chat there is no class to
ask: /quiz says what it is for and where it works."""

from __future__ import annotations

from telegram import Update
from telegram.constants import ChatType
from telegram.ext import BaseHandler, CallbackQueryHandler, CommandHandler, PollAnswerHandler

from bot.store.kinds import RunMode
from bot.telegram.context import Context
from bot.telegram.delivery.outbox import Notice
from bot.telegram.handlers.ask_command import start_question
from bot.telegram.handlers.common import lang_of, sender_of, words_lang
from bot.view.i18n import phrase, text


def handlers() -> list[BaseHandler]:  # type: ignore[type-arg]
    return [
        CommandHandler("quiz", quiz_command),
        CallbackQueryHandler(reveal_tapped, pattern=r"^quiz:\d+:\d+$"),
        PollAnswerHandler(poll_answered),
    ]


async def quiz_command(update: Update, context: Context) -> None:
    msg = update.effective_message
    assert msg is not None and msg.text is not None
    if msg.chat.type == ChatType.PRIVATE:
        sender = sender_of(update)
        lang = await words_lang(context, msg.chat_id, sender.lang)
        await context.parts.outbox.notice(msg.chat_id, msg.message_id, sender.id,
                                    text(lang, "quiz_private"), Notice.USAGE, "quiz")
        return
    rest = msg.text.split(maxsplit=1)[1:]
    await start_question(update, context, RunMode.ASK, rest[0] if rest else "", msg,
                         command="quiz", quiz=True)


async def reveal_tapped(update: Update, context: Context) -> None:
    query = update.callback_query
    assert query is not None and query.data is not None
    _, key, number = query.data.split(":")
    user, lang = query.from_user, lang_of(query.from_user)
    vote = context.services.runs.votes.of_run(int(key))
    if vote is None or vote.number != int(number) or not vote.open:
        await query.answer(phrase(lang, "quiz_stale"))
        return
    if user.id != vote.asker_id and not await context.parts.admins.check(vote.chat_id, user.id):
        await query.answer(phrase(lang, "quiz_not_yours", name=vote.asker_name),
                           show_alert=True)
        return
    await query.answer(phrase(lang, "quiz_answer_reveal"))
    vote.reveal(user.full_name)


async def poll_answered(update: Update, context: Context) -> None:
    """A vote on an open quiz poll (or a vote taken back) is counted (bot/runs/quiz_votes.py
    decides)."""
    answer = update.poll_answer
    assert answer is not None
    voter = answer.user.id if answer.user is not None else (
        answer.voter_chat.id if answer.voter_chat is not None else None)
    if voter is not None:
        context.services.runs.votes.answered(answer.poll_id, voter, answer.option_ids)
