"""A run asked in a Telegram chat, as the chat sees it: its live message (queued, then each
step, then the final state), "typing…" until that message is on screen, the ⏹ button, the
walkthrough's buttons; and, at start-up, the messages of runs a restart cut short."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from agent.classroom.confirm import Gate
from agent.events import Event
from agent.lang import Lang, detect_lang
from bot.runs.active import Active
from bot.runs.execute import Runs
from bot.store.chat_settings_values import ChatSettings
from bot.store.records import RunRecord
from bot.store.retry import retried
from bot.telegram.chat_gate import chat_gate
from bot.telegram.delivery.live_message import LiveMessage
from bot.telegram.delivery.outbox import Outbox
from bot.telegram.delivery.typing_indicator import Typing
from bot.telegram.quiz_poller import ChatPoller
from bot.view.buttons import Button, Keyboard
from bot.view.i18n import text
from bot.view.render import render_view
from bot.view.transcript import View, replay


def stop_button(lang: Lang, key: int) -> Keyboard:
    return ((Button(text(lang, "stop_button"), f"stop:{key}"),),)


class ChatRun:
    """The run service's `Front` for one question asked in a chat, replying to `reply_to`."""

    def __init__(self, runs: Runs, outbox: Outbox, typing: Typing, chat_id: int,
                 reply_to: int, asker_name: str, *, walkthrough: bool, quiz: bool = False) -> None:
        self.runs, self.outbox, self.typing = runs, outbox, typing
        self.chat_id, self.reply_to, self.asker_name = chat_id, reply_to, asker_name
        self.walkthrough = walkthrough
        """/step: every action pauses for the asker's decision."""
        self.quiz = quiz
        """Quiz mode: the class votes before each round."""
        self._tasks: list[asyncio.Task[None]] = []

    def claimed(self, run: Active) -> None:
        self.run = run
        self.live: LiveMessage = self.outbox.live(
            self.chat_id, self.reply_to, button=stop_button(run.run_lang, run.key),
            on_gone=run.stop)  # kicked or blocked: no one sees the rest

    def queued(self, ahead: Callable[[], int]) -> None:
        self.live.show(lambda: [text(self.run.run_lang, "queued", ahead=ahead())])

    async def not_saved(self) -> None:
        await self.live.finish([text(self.run.run_lang, "not_saved")])

    async def started(self, record: RunRecord, view: View) -> Gate | None:
        self.record, self.view = record, view
        self._tasks = [asyncio.create_task(self._remember_first()),
                       asyncio.create_task(self._typing_until_shown())]
        settings = self.runs.settings
        poller = ChatPoller(self.runs.votes, self.run, self.asker_name, record.question,
                            self.live, self.outbox, self.reply_to,
                            settings.quiz_timeout_s) if self.quiz else None
        return chat_gate(self.runs.pauses, self.run, self.asker_name, self.live,
                         every=self.walkthrough, tools=settings.agent_confirm_tools,
                         timeout_s=settings.pause_timeout_s, poller=poller)

    def stepped(self, lane: str, event: Event | None) -> None:
        self.live.show(lambda: render_view(self.view, live=True))

    async def finished(self, status: str | None) -> None:
        remember, typing = self._tasks
        typing.cancel()
        if status is None:
            remember.cancel()
            return
        if self.run.notice:
            self.view.add_notice(self.run.notice)
        ids = await self.live.finish(render_view(self.view, live=True))
        remember.cancel()
        await retried(lambda: self.runs.store.add_message_ids(self.record.id, ids),
                      f"run {self.record.id}'s message ids", self.runs.store.backlog)

    async def _typing_until_shown(self) -> None:
        """"typing…" until the run's first message is on screen (its edits show the rest)."""
        async with self.typing.shown(self.chat_id):
            await self.live.first_sent()

    async def _remember_first(self) -> None:
        """Record page 1's id as soon as it exists, so a reply to it mid-run is a follow-up."""
        first = await self.live.first_sent()
        if first is not None:
            await retried(lambda: self.runs.store.add_message_ids(self.record.id, [first]),
                          f"run {self.record.id}'s first message id", self.runs.store.backlog)


async def recover_interrupted(runs: Runs, outbox: Outbox,
                              cut_short: Sequence[RunRecord]) -> None:
    """At start-up: the messages of the runs a restart cut short (marked interrupted as the
    services opened, Services.cut_short) say so."""
    store = runs.store
    for record in cut_short:
        if not record.message_ids:
            continue
        chat = await store.chats.get(record.conversation, ChatSettings.defaults(runs.settings))
        run_lang = chat.run_lang(record.question, detect_lang(record.question))
        view = replay(record, await store.events(record.id), run_lang, remarks=chat.remarks)
        view.add_notice(text(run_lang, "interrupted"))
        live = outbox.editing(record.chat_id, list(record.message_ids))
        await live.finish(render_view(view, live=True))
