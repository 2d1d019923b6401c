"""Running one question: agent events → transcripts → rendered pages → the live message,
with every step stored as it arrives.

An ask or plain run has one lane (`main`); a compare run has `plain` and `react`, run
concurrently and shown together. Whatever happens, the run ends with its final state on
screen and its record finished in the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass

from agent.answer_model import answer_client
from agent.compare_judge import ToolUses, judge
from agent.confirm import Gate
from agent.events import Event, RunFinished, Usage
from agent.lang import Lang, detect_lang
from agent.loop import run_plain, run_react
from agent.model import ModelClient
from agent.prompts import Turn
from agent.tool import Tool
from bot.runs.active import Active, ActiveRuns
from bot.runs.admission import Admission
from bot.runs.class_settings import run_settings, run_tools
from bot.runs.listeners import Listeners
from bot.runs.step import Pauses, chat_gate
from bot.settings import BotSettings
from bot.store.prefs import ChatSettings
from bot.store.records import RunRecord
from bot.store.retry import retried
from bot.store.rounds import RoundWriter
from bot.store.transcripts import Store
from bot.telegram.delivery.live import LiveMessage
from bot.telegram.delivery.outbox import Outbox
from bot.telegram.delivery.typing_indicator import Typing
from bot.view.buttons import Button, Keyboard
from bot.view.i18n import text
from bot.view.render import render_view
from bot.view.transcript import Mode, View, replay

log = logging.getLogger(__name__)
NO_USAGE = Usage()


@dataclass(frozen=True, slots=True)
class Question:
    mode: Mode
    text: str
    chat_id: int
    user_id: int
    user_name: str
    lang: Lang
    """The run's one language (agent.lang.run_lang: the question's when it is clear, else
    the asker's), for everything Glassbox writes in the run's message."""
    reply_to: int
    history: tuple[Turn, ...] = ()
    parent_id: int | None = None
    planner: bool | None = None
    """/plan: make a plan first; None: as AGENT_PLANNER says."""
    step: bool = False
    """/step: pause before every action for a person's decision (bot/runs/step.py)."""
    chat: ChatSettings | None = None
    """The chat's own settings (/settings) at the time of asking; None: the environment's."""
    history_usage: Usage = NO_USAGE
    """Tokens summarising the thread's older turns took (counted with the run's)."""


def stop_button(lang: Lang, key: int) -> Keyboard:
    return ((Button(text(lang, "stop_button"), f"stop:{key}"),),)


class Runs:
    """Starts questions in the background and carries each to its stored end."""

    def __init__(self, settings: BotSettings, client: ModelClient, tools: Sequence[Tool],
                 store: Store, outbox: Outbox, typing: Typing,
                 listeners: Listeners | None = None) -> None:
        self.settings, self.client, self.tools = settings, client, tools
        self.store, self.outbox, self.typing = store, outbox, typing
        self.listeners = listeners or Listeners()
        self.active = ActiveRuns()
        self.pauses = Pauses()
        self.answer_client = answer_client(settings)
        """LLM_ANSWER_MODEL's client (None: the run's model answers); closed with `client`."""
        self.admission = Admission(settings.max_concurrent_runs)
        self._recovering: asyncio.Task[None] | None = None

    def start(self, q: Question, active: Active) -> None:
        """Run `q` in the background in the slot `active` (claimed from `self.active`)."""
        self.active.run(active, self._execute(q, active))

    def recover(self) -> None:
        """At start-up, in the background: runs a restart cut short are marked interrupted,
        and their messages say so."""
        self._recovering = asyncio.create_task(self._recover_interrupted())

    async def stop_all(self) -> None:
        """A shutdown: every run stops with a notice and delivers its final state."""
        await self.active.stop_all(lambda lang: text(lang, "shutdown"))
        if self._recovering is not None:
            await self._recovering

    async def _execute(self, q: Question, active: Active) -> None:
        """Run `q` to the end, live in the chat, once admitted (until then its message says
        how many are ahead); `active.cancel` stops it, queued or running."""
        live = self.outbox.live(q.chat_id, q.reply_to, button=stop_button(q.lang, active.key),
                                on_gone=active.stop)  # kicked or blocked: no one sees the rest
        ticket = self.admission.ticket(q.chat_id)
        try:
            if not ticket.admitted:
                live.show(lambda: [text(q.lang, "queued", ahead=ticket.ahead())])
                await ticket.wait(active.cancel)
            await self._run(q, active, live)
        finally:
            ticket.release()

    async def _run(self, q: Question, active: Active, live: LiveMessage) -> None:
        view = View(q.mode, q.lang)
        view.notes = q.chat is None or q.chat.notes
        try:
            record = await self.store.start_run(
                chat_id=q.chat_id, user_id=q.user_id, user_name=q.user_name, mode=q.mode,
                question=q.text, model=self.settings.llm_model, parent_id=q.parent_id)
        except Exception:  # the database is locked past its timeout, full, or gone
            log.exception("chat %s: a run could not be stored, so it did not start",
                          q.chat_id)
            await live.finish([text(q.lang, "not_saved")])
            return
        view.number = record.n
        remember = asyncio.create_task(self._remember_first(record, live))
        gate = chat_gate(self.pauses, active, q.user_name, live, every=q.step,
                         tools=self.settings.agent_confirm_tools,
                         timeout_s=self.settings.step_timeout_s)
        typing = asyncio.create_task(self._typing_until_shown(q.chat_id, live))
        try:
            await self.fold(q, active, record, view,
                            lambda: live.show(lambda: render_view(view, live=True)), gate)
        finally:
            typing.cancel()
        if active.notice:
            view.add_notice(active.notice)
        ids = await live.finish(render_view(view, live=True))
        remember.cancel()
        await retried(lambda: self.store.add_message_ids(record.id, ids),
                      f"run {record.id}'s message ids")

    async def fold(self, q: Question, active: Active, record: RunRecord, view: View,
                   on_step: Callable[[], None] = lambda: None,
                   gate: Gate | None = None) -> str:
        """Run `q` as `record`: each event folded into `view`, stored, told to the listeners,
        then `on_step()`; the record finished whatever happens. The status it ended with.
        `gate`: who confirms actions (step mode, AGENT_CONFIRM_TOOLS)."""
        self.listeners.run_started(record, view.notes)
        steps = RoundWriter(self.store, record.id)
        try:
            uses = ToolUses(self.tools)
            async for lane, event in self._events(q, active, gate):
                if lane == "react":
                    uses.add(event)
                view.apply(lane, event)
                self.listeners.run_event(record, lane, event)
                on_step()
                await steps.add(lane, event)
            if view.judgeable() and not active.cancel.is_set():
                await steps.flush()  # the lanes' steps before the judgement
                await self._judge(q, view, record, active, on_step, uses)
            end = view.outcome()
        except Exception:
            log.exception("run %s failed", record.id)
            view.add_notice(text(q.lang, "failed"))
            end = RunFinished(round=0, status="error")
        await steps.flush()
        status = "interrupted" if active.interrupted and end.status == "cancelled" else end.status
        await retried(lambda: self.store.finish(
            record.id, status=status, usage=end.usage + q.history_usage,
            duration_ms=end.duration_ms, answer="\n\n".join(view.answers.values())),
            f"run {record.id}'s end")
        self.listeners.run_finished(record, status)
        return status

    async def _typing_until_shown(self, chat_id: int, live: LiveMessage) -> None:
        """"typing…" until the run's first message is on screen (its edits show the rest)."""
        async with self.typing.shown(chat_id):
            await live.first_sent()

    async def _judge(self, q: Question, view: View, record: RunRecord, active: Active,
                     on_step: Callable[[], None], uses: ToolUses) -> None:
        """/compare's difference line: the model judges the two answers (stored with the
        ReAct lane). Stopping the run drops it; a failed call leaves the cost line alone."""
        view.judging = True
        on_step()
        asked = asyncio.ensure_future(judge(
            q.text, view.answers["plain"], view.answers["react"], client=self.client,
            lang=detect_lang(q.text), calls=uses.calls))
        stopped = asyncio.ensure_future(active.cancel.wait())
        try:
            await asyncio.wait((asked, stopped), return_when=asyncio.FIRST_COMPLETED)
        finally:
            view.judging = False
            for task in (asked, stopped):
                task.cancel()
        if not asked.done() or asked.cancelled():
            return
        if asked.exception() is not None:  # a bug: the two answers still stand without it
            log.error("compare judgement failed", exc_info=asked.exception())
            return
        judgement = asked.result()
        if judgement is not None:
            view.apply("react", judgement)
            await self.store.append(record.id, judgement, lane="react")
            self.listeners.run_event(record, "react", judgement)
        on_step()

    async def _remember_first(self, record: RunRecord, live: LiveMessage) -> None:
        """Record page 1's id as soon as it exists, so a reply to it mid-run is a follow-up."""
        first = await live.first_sent()
        if first is not None:
            await retried(lambda: self.store.add_message_ids(record.id, [first]),
                          f"run {record.id}'s first message id")

    def _events(self, q: Question, active: Active,
                gate: Gate | None) -> AsyncIterator[tuple[str, Event]]:
        settings, tools = self.settings, self.tools
        if q.chat is not None:
            settings, tools = run_settings(settings, q.chat), run_tools(tools, q.chat, q.chat_id)
        common = {"client": self.client, "settings": settings, "history": q.history,
                  "cancel": active.cancel, "lang": q.lang}
        lanes: dict[str, AsyncIterator[Event]] = {}
        if q.mode in ("plain", "compare"):
            lanes["plain" if q.mode == "compare" else "main"] = run_plain(
                q.text, **{**common, "client": self.answer_client or self.client})
        if q.mode in ("ask", "compare"):
            lanes["react" if q.mode == "compare" else "main"] = run_react(
                q.text, tools=tools, planner=q.planner, gate=gate,
                answer_client=self.answer_client, **common)
        return _merged(lanes)

    async def _recover_interrupted(self) -> None:
        for record in await self.store.interrupt_running():
            if not record.message_ids:
                continue
            chat = await self.store.chats.get(record.chat_id, ChatSettings.defaults(self.settings))
            lang = chat.run_lang(record.question, detect_lang(record.question))
            view = replay(record, await self.store.events(record.id), lang, notes=chat.notes)
            view.add_notice(text(lang, "interrupted"))
            live = self.outbox.editing(record.chat_id, list(record.message_ids))
            await live.finish(render_view(view, live=True))


async def _merged(streams: dict[str, AsyncIterator[Event]]) -> AsyncIterator[tuple[str, Event]]:
    """The lanes' events as they come, each tagged with its lane (lanes run concurrently).
    A lane that fails is logged; the others go on. One lane (an ask, a plain run) is read
    in the run's own task: no pump task and queue hand-off for each of its events."""
    if len(streams) == 1:
        [(lane, stream)] = streams.items()
        try:
            async with contextlib.aclosing(stream):
                async for event in stream:
                    yield lane, event
        except Exception:
            log.exception("lane %s failed", lane)
        return
    queue: asyncio.Queue[tuple[str, Event | None]] = asyncio.Queue()

    async def pump(lane: str, stream: AsyncIterator[Event]) -> None:
        try:
            async for event in stream:
                queue.put_nowait((lane, event))
        finally:
            queue.put_nowait((lane, None))

    tasks = {lane: asyncio.create_task(pump(lane, s)) for lane, s in streams.items()}
    left = len(tasks)
    try:
        while left:
            lane, event = await queue.get()
            if event is None:
                left -= 1
            else:
                yield lane, event
    finally:
        for task in tasks.values():
            task.cancel()
        for lane, task in tasks.items():
            try:
                await task
            except asyncio.CancelledError:
                continue
            except Exception:
                log.exception("lane %s failed", lane)
