"""What the bot does with each update. Handlers are short: they work out the question,
check it, and start the run in the background (so no update waits for an answer)."""

from __future__ import annotations

from dataclasses import dataclass

from telegram import Message, Update
from telegram.ext import BaseHandler, CallbackQueryHandler, CommandHandler, MessageHandler, filters

from agent.events import InputRead
from agent.inputs.images import Picture
from agent.lang import Lang
from bot.runs.active import Active
from bot.runs.ask import MAX_QUESTION_CHARS, Ask, Busy, Refusal, visible
from bot.runs.model_names import SameModel, TwoModels, UnknownModel, two_models
from bot.runs.quota import OverBudget, RateLimited
from bot.store.kinds import ConversationKind, RunMode
from bot.store.records import RunRecord, telegram_chat
from bot.telegram.context import Context
from bot.telegram.delivery.outbox import Notice
from bot.telegram.handlers.common import chat_settings, lang_of, sender_of, tap_lang, words_lang
from bot.telegram.handlers.compare_runs_command import compare_runs, two_runs
from bot.telegram.live_run import ChatRun
from bot.view.buttons import Button
from bot.view.i18n import text
from bot.view.when import wait_text

MODES = (RunMode.ASK, RunMode.PLAIN, RunMode.COMPARE)
"""The modes a command asks in by name (/ask, /plain, /compare)."""


def handlers() -> list[BaseHandler]:  # type: ignore[type-arg]
    """Questions, examples and stopping, in the order they are tried."""
    text_only = filters.TEXT & ~filters.COMMAND
    return [
        CommandHandler(["start", "help"], help_command),
        CommandHandler([*MODES, "plan", "step"], ask_command),
        CommandHandler("examples", examples_command),
        CommandHandler("stop", stop_command),
        CallbackQueryHandler(stop_tapped, pattern=r"^stop:\d+$"),
        CallbackQueryHandler(example_tapped, pattern=r"^ex:"),
        MessageHandler(text_only & filters.ChatType.PRIVATE, private_text),
        MessageHandler(text_only & filters.ChatType.GROUPS & filters.REPLY, group_reply),
    ]


async def help_command(update: Update, context: Context) -> None:
    """/start and /help: a notice, so asking 300 times gets one answer per cooldown."""
    msg, sender = update.effective_message, sender_of(update)
    assert msg is not None
    lang = await words_lang(context, msg.chat_id, sender.lang)
    command = (msg.text or "/help").split(maxsplit=1)[0].lstrip("/").split("@", 1)[0]
    await context.parts.outbox.notice(msg.chat_id, msg.message_id, sender.id, text(lang, "help"),
                                Notice.HELP, command.lower()[:32])


@dataclass(frozen=True, slots=True)
class Command:
    """What an asking command says: /ask, /plain, /compare, /plan (an ask that makes a plan
    first), /step (an ask that pauses before every action) or /quiz (an ask whose every
    round the class predicts first), and the words after it."""

    mode: RunMode
    typed: str
    name: str

    @classmethod
    def of(cls, msg: Message) -> Command:
        assert msg.text is not None
        command, *rest = msg.text.split(maxsplit=1)
        name = command.lstrip("/").split("@", 1)[0].lower()
        mode = RunMode.ASK if name in ("plan", "step", "quiz") else RunMode(name)
        return cls(mode, rest[0] if rest else "", name)

    @property
    def planner(self) -> bool | None:
        return True if self.name == "plan" else None

    @property
    def walkthrough(self) -> bool:
        return self.name == "step"

    @property
    def quiz(self) -> bool:
        return self.name == "quiz"


async def ask_command(update: Update, context: Context) -> None:
    """An asking command, with the question after the command (or @BotName)."""
    msg = update.effective_message
    assert msg is not None
    asked = Command.of(msg)
    if asked.mode == RunMode.COMPARE and (runs := two_runs(asked.typed)):
        await compare_runs(update, context, msg, runs)
        return
    if asked.mode == RunMode.COMPARE:
        named = two_models(asked.typed, context.services.runs.models.names)
        if isinstance(named, TwoModels):
            await start_question(update, context, RunMode.MODELS, named.question, msg,
                                 command=f"compare {' '.join(named.names)}",
                                 models=named.names)
            return
        if named is not None:
            await models_refused(update, context, msg, named)
            return
    await start_question(update, context, asked.mode, asked.typed, msg,
                         planner=asked.planner, command=asked.name, walkthrough=asked.walkthrough)


async def models_refused(update: Update, context: Context, msg: Message,
                         named: UnknownModel | SameModel, command: str = "compare") -> None:
    """A name no model has, or one model twice: said politely, with the models there are."""
    sender = sender_of(update)
    lang = await words_lang(context, msg.chat_id, sender.lang)
    why = "unknown" if isinstance(named, UnknownModel) else "same"
    await context.parts.outbox.notice(msg.chat_id, msg.message_id, sender.id,
                                model_refusal(named, context.services.runs.models.names, lang),
                                Notice.USAGE, f"{command}:model_{why}")


def model_refusal(named: UnknownModel | SameModel, known: list[str], lang: Lang) -> str:
    """Why the models named cannot be asked, as the chat is told (the API says the same)."""
    listed = ", ".join(known)
    if isinstance(named, UnknownModel):
        return text(lang, "model_unknown", name=named.name, known=listed)
    if len(known) < 2:
        return text(lang, "models_only_one", known=listed)
    return text(lang, "models_same", example=" ".join(known[:2]), known=listed)


async def private_text(update: Update, context: Context) -> None:
    """In a private chat, any text is a question."""
    msg = update.effective_message
    assert msg is not None and msg.text is not None
    await start_question(update, context, RunMode.ASK, msg.text, msg)


async def group_reply(update: Update, context: Context) -> None:
    """In a group, a reply to one of the bot's answers is a follow-up; other talk is not ours."""
    msg = update.effective_message
    assert msg is not None and msg.text is not None
    replied = msg.reply_to_message
    if replied and replied.from_user and replied.from_user.id == context.bot.id:
        await start_question(update, context, RunMode.ASK, msg.text, msg)


async def start_question(update: Update, context: Context, mode: RunMode, typed: str,
                         msg: Message, *, replies_count: bool = True,
                         planner: bool | None = None, command: str = "",
                         walkthrough: bool = False, quiz: bool = False,
                         spoken: Lang | None = None, heard: tuple[InputRead, ...] = (),
                         photos: tuple[Picture, ...] = (),
                         models: tuple[str, ...] = ()) -> Active | None:
    """Check the question and start its run (replying to `msg`), or say why not.
    `replies_count`: whether the message `msg` replies to gives context; `planner`: plan
    first (/plan), or None for the AGENT_PLANNER setting; `walkthrough`: pause before every action
    (/step); `quiz`: the class predicts each round first (/quiz); `spoken`: the language
    the question was heard in (a voice message), which the run speaks unless the chat set
    one, and `heard`, what was heard in it, the run's first step; `photos`: read first, as
    the run's first steps; `models`: the models asked by name (two: side by side), else
    the chat's. Why not goes as a notice: once per
    cooldown to a sender who keeps trying. The run started, or None."""
    sender = sender_of(update)
    chat = await chat_settings(context, msg.chat_id)
    lang = chat.words_lang(sender.lang)
    question, parent = await _resolve(context, msg if replies_count else None, typed)
    reply_to = msg.message_id

    async def notice(html: str, kind: Notice) -> None:
        await context.parts.outbox.notice(msg.chat_id, reply_to, sender.id, html, kind,
                                    command or mode)

    if not visible(question):
        await notice(text(lang, "usage", command=command or mode), Notice.USAGE)
        return None
    if len(question) > MAX_QUESTION_CHARS:
        await notice(text(lang, "too_long", length=len(question)), Notice.TOO_LONG)
        return None
    question = question.strip()
    chat_run = ChatRun(context.services.runs, context.parts.outbox, context.parts.typing,
                       msg.chat_id, reply_to, sender.name,
                       walkthrough=walkthrough or chat.walkthrough, quiz=quiz)
    # The run's message speaks one language: the chat's if set, else the question's if clear.
    started = await context.services.runs.ask(Ask(
        mode=mode, text=question, conversation=telegram_chat(msg.chat_id), user_id=sender.id,
        user_name=sender.name, run_lang=chat.run_lang(question, sender.lang, spoken),
        follows=parent, planner=planner, chat=chat, heard=heard, photos=photos,
        models=models), chat_run)
    if not isinstance(started, Active):
        await notice(refusal_text(started, lang),
                     Notice.BUSY if isinstance(started, Busy) else Notice.QUOTA)
        return None
    return started


def refusal_text(refused: Refusal, lang: Lang) -> str:
    """Why a question may not start, as the chat is told."""
    match refused:
        case RateLimited(runs=runs, window=window, wait=wait):
            return text(lang, "rate_limited", count=runs, window=wait_text(window, lang),
                        wait=wait_text(wait, lang))
        case OverBudget(budget=budget, wait=wait):
            return text(lang, "over_budget", budget=f"{budget:,}", wait=wait_text(wait, lang))
        case Busy():
            return text(lang, "busy")


async def _resolve(context: Context, msg: Message | None,
                   typed: str) -> tuple[str, RunRecord | None]:
    """The question and the run it follows up. A reply to one of our answers continues that
    run (its thread is the history); a reply to anyone else's message asks about that
    message's text."""
    replied = msg.reply_to_message if msg else None
    if replied is None:
        return typed, None
    if replied.from_user and replied.from_user.id == context.bot.id:
        return typed, await context.services.store.by_message(replied.chat_id, replied.message_id)
    quoted = (replied.text or replied.caption or "").strip()
    if not quoted:
        return typed, None
    if not typed.strip():
        return quoted, None
    return typed.strip() + "\n\n" + "\n".join(f"> {line}" for line in quoted.splitlines()), None


async def examples_command(update: Update, context: Context) -> None:
    msg = update.effective_message
    assert msg is not None
    lang = await words_lang(context, msg.chat_id, lang_of(update.effective_user))
    rows = tuple((Button(ex.in_lang(lang)[0], f"ex:{ex.id}"),) for ex in context.parts.examples)
    await context.parts.outbox.say(msg.chat_id, msg.message_id, text(lang, "examples"), rows)


async def example_tapped(update: Update, context: Context) -> None:
    """A tap on a preset question runs it, as the person who tapped."""
    query = update.callback_query
    assert query is not None and query.data is not None
    lang = await tap_lang(update, context)  # the question as its button says it
    example = next((ex for ex in context.parts.examples if f"ex:{ex.id}" == query.data), None)
    await query.answer(None if example else text(lang, "stale_button"))
    if example is None or not isinstance(query.message, Message):
        return
    await start_question(update, context, RunMode.ASK, example.in_lang(lang)[1], query.message,
                         replies_count=False)


async def stop_command(update: Update, context: Context) -> None:
    """/stop: the sender's own running question (a channel's, if posted as a channel)."""
    msg, sender = update.effective_message, sender_of(update)
    assert msg is not None
    active = context.services.runs.active.of_user(sender.id)
    if active is None:
        lang = await words_lang(context, msg.chat_id, sender.lang)
        await context.parts.outbox.notice(msg.chat_id, msg.message_id, sender.id,
                                    text(lang, "nothing_to_stop"), Notice.NOTHING_TO_STOP)
        return
    active.stop()


async def stop_tapped(update: Update, context: Context) -> None:
    """⏹ under a running answer: the asker or an admin may stop it."""
    query = update.callback_query
    assert query is not None and query.data is not None
    lang = lang_of(query.from_user)
    active = context.services.runs.active.get(int(query.data.split(":", 1)[1]))
    if active is None:
        await query.answer(text(lang, "not_running"))
        return
    user = query.from_user
    if user.id != active.user_id and (
            active.conversation.kind is not ConversationKind.TELEGRAM  # an API token's run
            or not await context.parts.admins.check(active.conversation.id, user.id)):
        await query.answer(text(lang, "not_yours"), show_alert=True)
        return
    notice = "" if user.id == active.user_id else text(active.run_lang, "stopped_by",
                                                           name=user.full_name)
    active.stop(notice)
    await query.answer(text(lang, "stopping"))
