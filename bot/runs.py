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
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Literal

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from agent.events import Answer, Event, RunFinished
from agent.lang import Lang, detect_lang
from agent.loop import run_plain, run_react
from agent.prompts import Turn
from bot.active import Active
from bot.i18n import text
from bot.live import LiveMessage
from bot.render import render_compare, render_run, to_plain
from bot.services import Services
from bot.store import RunRecord
from bot.transcript import Transcript

log = logging.getLogger(__name__)

Mode = Literal["ask", "plain", "compare"]


@dataclass(frozen=True, slots=True)
class Question:
    mode: Mode
    text: str
    chat_id: int
    user_id: int
    user_name: str
    lang: Lang
    """The asker's Telegram language, for the bot's own words."""
    reply_to: int
    history: tuple[Turn, ...] = ()
    parent_id: int | None = None
    planner: bool | None = None
    """/plan: make a plan first; None: as AGENT_PLANNER says."""


def stop_button(lang: Lang, key: int) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(text(lang, "stop_button"),
                                                       callback_data=f"stop:{key}")]])


class View:
    """The transcripts of a run's lanes, and how they render."""

    def __init__(self, mode: Mode, lang: Lang) -> None:
        self.mode, self.lang = mode, lang
        lanes = ("plain", "react") if mode == "compare" else ("main",)
        self.lanes: dict[str, Transcript] = {lane: Transcript() for lane in lanes}
        self.finished: dict[str, RunFinished] = {}
        self.answers: dict[str, str] = {}

    def apply(self, lane: str, event: Event) -> None:
        self.lanes[lane].apply(event)
        if isinstance(event, RunFinished):
            self.finished[lane] = event
        elif isinstance(event, Answer):
            self.answers[lane] = event.text

    def add_notice(self, notice: str) -> None:
        for transcript in self.lanes.values():
            transcript.notice = notice

    def pages(self, *, live: bool) -> list[str]:
        if self.mode == "compare":
            return render_compare(self.lanes["plain"], self.lanes["react"], self.lang, live=live)
        return render_run(self.lanes["main"], self.lang, live=live)

    def outcome(self) -> RunFinished:
        """The run's end for the store: the ReAct lane's, with both lanes' tokens."""
        main = self.finished.get("react") or self.finished.get("main")
        if main is None:
            return RunFinished(round=0, status="error")
        usage = main.usage
        if "plain" in self.finished and self.mode == "compare":
            usage = usage + self.finished["plain"].usage
        return RunFinished(round=main.round, status=main.status, usage=usage,
                           duration_ms=max(f.duration_ms for f in self.finished.values()))


async def execute(svc: Services, q: Question, active: Active) -> None:
    """Run `q` to the end, live in the chat; `active.cancel` stops it."""
    view = View(q.mode, q.lang)
    live = LiveMessage(svc.bot, svc.pacer, q.chat_id, q.reply_to,
                       button=stop_button(q.lang, active.key), to_plain=to_plain)
    record = await svc.store.start_run(
        chat_id=q.chat_id, user_id=q.user_id, user_name=q.user_name, mode=q.mode,
        question=q.text, model=svc.settings.llm_model, parent_id=q.parent_id)
    remember = asyncio.create_task(_remember_first(svc, record, live))
    try:
        async with svc.typing.shown(q.chat_id):
            async for lane, event in _events(svc, q, active):
                view.apply(lane, event)
                await svc.store.append(record.id, event, lane=lane)
                live.show(lambda: view.pages(live=True))
                if live.gone:  # kicked or blocked: no one will see the rest
                    active.stop()
        end = view.outcome()
    except Exception:
        log.exception("run %s failed", record.id)
        view.add_notice(text(q.lang, "failed"))
        end = RunFinished(round=0, status="error")
    status = "interrupted" if active.interrupted and end.status == "cancelled" else end.status
    await svc.store.finish(record.id, status=status, usage=end.usage,
                           duration_ms=end.duration_ms, answer="\n\n".join(view.answers.values()))
    if active.notice:
        view.add_notice(active.notice)
    ids = await live.finish(view.pages(live=True))
    remember.cancel()
    await svc.store.add_message_ids(record.id, ids)


async def _remember_first(svc: Services, record: RunRecord, live: LiveMessage) -> None:
    """Record page 1's id as soon as it exists, so a reply to it mid-run is a follow-up."""
    first = await live.first_sent()
    if first is not None:
        await svc.store.add_message_ids(record.id, [first])


def _events(svc: Services, q: Question, active: Active) -> AsyncIterator[tuple[str, Event]]:
    common = {"client": svc.client, "settings": svc.settings, "history": q.history,
              "cancel": active.cancel}
    lanes: dict[str, AsyncIterator[Event]] = {}
    if q.mode in ("plain", "compare"):
        lanes["plain" if q.mode == "compare" else "main"] = run_plain(q.text, **common)
    if q.mode in ("ask", "compare"):
        lanes["react" if q.mode == "compare" else "main"] = run_react(
            q.text, tools=svc.tools, planner=q.planner, **common)
    return _merged(lanes)


async def _merged(streams: dict[str, AsyncIterator[Event]]) -> AsyncIterator[tuple[str, Event]]:
    """The lanes' events as they come, each tagged with its lane (lanes run concurrently)."""
    queue: asyncio.Queue[tuple[str, Event | None]] = asyncio.Queue()

    async def pump(lane: str, stream: AsyncIterator[Event]) -> None:
        try:
            async for event in stream:
                queue.put_nowait((lane, event))
        finally:
            queue.put_nowait((lane, None))

    tasks = [asyncio.create_task(pump(lane, s)) for lane, s in streams.items()]
    left = len(tasks)
    try:
        while left:
            lane, event = await queue.get()
            if event is None:
                left -= 1
            else:
                yield lane, event
    finally:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


def replay(record: RunRecord, lanes: dict[str, list[Event]], lang: Lang) -> View:
    """A stored run's view, its stored steps folded as they were live (for /show too)."""
    view = View(record.mode, lang)  # type: ignore[arg-type]
    for lane, events in lanes.items():
        if lane in view.lanes:
            for event in events:
                view.apply(lane, event)
    return view


async def recover_interrupted(svc: Services) -> None:
    """At start-up: runs a restart cut short are marked interrupted, and their messages say so."""
    for record in await svc.store.interrupt_running():
        if not record.message_ids:
            continue
        lang = detect_lang(record.question)
        view = replay(record, await svc.store.events(record.id), lang)
        view.add_notice(text(lang, "interrupted"))
        live = LiveMessage.editing(svc.bot, svc.pacer, record.chat_id, list(record.message_ids),
                                   to_plain=to_plain)
        await live.finish(view.pages(live=True))
