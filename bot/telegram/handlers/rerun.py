"""`/rerun N`: run N's question asked again, as it was asked (/ask, /plain or /compare, or two
named models), with the chat's settings of today (`/rerun N NAME`: on the model NAME); the
new run grows live as any question does, and once it ends the two stand side by side as
`/compare N M` shows them: whether it answered the same, and where the two chains part."""

from __future__ import annotations

from telegram import Update
from telegram.ext import BaseHandler, CommandHandler

from bot.runs.model_names import UnknownModel, known_name
from bot.store.kinds import RunMode, RunStatus
from bot.telegram.context import Context
from bot.telegram.delivery.outbox import Notice
from bot.telegram.handlers.ask_command import models_refused, start_question
from bot.telegram.handlers.common import chat_settings, sender_of
from bot.telegram.handlers.compare_runs_command import compare_runs
from bot.telegram.handlers.history import number_of, scope_of
from bot.view.i18n import text


def handlers() -> list[BaseHandler]:  # type: ignore[type-arg]
    return [CommandHandler("rerun", rerun_command)]


async def rerun_command(update: Update, context: Context) -> None:
    msg, chat, user, sender = (update.effective_message, update.effective_chat,
                               update.effective_user, sender_of(update))
    assert msg is not None and msg.text is not None and chat is not None and user is not None
    words = msg.text.split()[1:3]
    n = number_of(words[0] if words else "")
    record = None if n is None else await context.services.store.get(scope_of(chat, user), n)
    lang = (await chat_settings(context, chat.id)).words_lang(sender.lang)
    known = context.services.runs.models.names
    named = known_name(words[1], known) if len(words) > 1 else None
    refusal = ("run_usage" if n is None else "no_run" if record is None
               else "rerun_comparison" if record.mode == RunMode.RUNS
               else "rerun_models_named" if record.mode == RunMode.MODELS and len(words) > 1
               else "runs_running" if record.status == RunStatus.RUNNING else "")
    if not refusal and len(words) > 1 and named is None:
        await models_refused(update, context, msg, UnknownModel(words[1][:40]), "rerun")
        return
    if refusal or record is None:
        await context.parts.outbox.notice(chat.id, msg.message_id, sender.id,
                                    text(lang, refusal, command="rerun", n=n), Notice.USAGE,
                                    f"rerun:{refusal}")
        return
    models = (tuple(record.model.split(" ↔ ")) if record.mode == RunMode.MODELS
              else (named,) if named else ())
    unknown = next((name for name in models if known_name(name, known) is None), None)
    if unknown is not None:  # a model of that compare is no longer in the environment
        await models_refused(update, context, msg, UnknownModel(unknown), "rerun")
        return
    active = await start_question(update, context, RunMode(record.mode), record.question, msg,
                                  replies_count=False, command="rerun", models=models)
    if active is None:
        return
    await active.ended()
    if record.mode == RunMode.MODELS:  # asked of both models again: itself side by side
        return
    rerun = None if active.run_id is None else await context.services.store.by_id(active.run_id)
    if rerun is not None:  # None: the store was down, so there is nothing to set beside it
        await compare_runs(update, context, msg, (record.n, rerun.n))
