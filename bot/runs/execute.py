"""The run service: a question from any front end (`Runs.ask`) checked, admitted, run and
stored: agent events → the run's view → the store, the listeners and the front end, with
every step stored as it arrives.

An ask or plain run has one lane (`main`); a compare run has `plain` and `react`, run
concurrently and shown together. Whatever happens, the run's record is finished in the
store and its front end told how it ended.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Collection, Sequence
from dataclasses import dataclass, fields, replace
from datetime import UTC, datetime
from typing import Any

from agent.classroom.compare_judge import Side, ToolUses, judge, judge_sides
from agent.classroom.confirm import Gate
from agent.events import Event, InputRead, RunFinished, RunStarted, Usage
from agent.inputs.ocr import OcrLimits
from agent.inputs.question import with_reads
from agent.lang import detect_lang
from agent.loop import run_plain, run_react
from agent.model.endpoint_memory import EndpointMemory
from agent.model.model_client import ModelClient
from agent.model.model_clients import ModelClients
from agent.model.photo_calls import GivenPhotos
from agent.model.photo_route import PhotoReading, model_reads
from agent.prompts import Turn
from agent.tool import Tool
from bot.bot_settings import BotSettings
from bot.course.facts import facts_of
from bot.runs.active import Active, ActiveRuns
from bot.runs.admission import Admission
from bot.runs.ask import Ask, Busy, Front, Refusal
from bot.runs.chat_settings_applied import run_settings, run_tools
from bot.runs.listeners import Listeners
from bot.runs.pauses import Pauses
from bot.runs.photo_handoff import PhotoHandoff
from bot.runs.photo_reading import PhotoReader
from bot.runs.quiz_votes import OpenVotes
from bot.runs.quota import OverBudget, RateLimited, refusal
from bot.runs.thread_history import thread_history
from bot.store.db import StoreUnavailable
from bot.store.kinds import Lane, RefusalReason, RunMode, RunStatus
from bot.store.records import Conversation, RunRecord
from bot.store.round_writer import RoundWriter
from bot.store.transcripts import Store
from bot.view.i18n import text
from bot.view.transcript import View

log = logging.getLogger(__name__)
NO_USAGE = Usage()
THREAD_READS = 2
"""Times a follow-up reads its thread while runs of it keep being deleted; then it goes
without it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Question(Ask):
    """An `Ask` as the service runs it: with its thread's history resolved."""

    history: tuple[Turn, ...] = ()
    history_usage: Usage = NO_USAGE
    """Tokens summarising the thread's older turns took (counted with the run's)."""

    @property
    def parent_id(self) -> int | None:
        return None if self.follows is None else self.follows.id


class Runs:
    """Starts questions in the background and carries each to its stored end."""

    def __init__(self, settings: BotSettings, models: ModelClients, tools: Sequence[Tool],
                 store: Store, listeners: Listeners | None = None) -> None:
        self.settings, self.models, self.tools, self.store = settings, models, tools, store
        self.client = models.default
        """The default model's client (LLM_MODEL): thread summaries, judgements."""
        self.listeners = listeners or Listeners()
        self.active = ActiveRuns()
        self.pauses = Pauses()
        self.votes = OpenVotes()
        self.answer_client = models.answer
        """LLM_ANSWER_MODEL's client (None: the run's model answers)."""
        self.admission = Admission(settings.max_concurrent_runs)
        self.photo_reader = PhotoReader(
            OcrLimits(settings.ocr_timeout_s, settings.ocr_memory_mb, settings.ocr_threads),
            settings.ocr_at_once)
        self._kept: dict[str, dict[str, Any]] = {}
        """What the store holds of each endpoint's memory, as last read or written."""

    async def ask(self, ask: Ask, front: Front) -> Active | Refusal:
        """Start `ask` in the background, shown by `front`: its handle (to stop it, or
        await its end); or why it may not start now."""
        refused = await refusal(self.store, self.settings, ask.conversation, ask.user_id)
        if refused is not None:
            await self._count(ask, refused)
            return refused
        active = self.active.claim(ask.conversation, ask.user_id, ask.run_lang)
        if active is None:
            return Busy()
        q = Question(**{f.name: getattr(ask, f.name) for f in fields(Ask)})
        front.claimed(active)
        self.active.run(active, self._execute(q, active, front))
        return active

    async def _count(self, ask: Ask, refused: RateLimited | OverBudget) -> None:
        """A refused question counts in the course's figures (best effort)."""
        reason = RefusalReason.RATE if isinstance(refused, RateLimited) else RefusalReason.BUDGET
        try:
            await self.store.course.refused(ask.conversation, ask.user_id, reason,
                                            datetime.now(UTC))
        except StoreUnavailable as err:
            log.warning("a refused question is not counted: the database is down (%s)", err)

    async def recall(self) -> None:
        """Give each model client what auto mode learned about its endpoint before a
        restart (the store's endpoint memory)."""
        for client in self.models:
            client.memory = await self.store.endpoints.get(client.memory.endpoint)
            self._kept[client.memory.endpoint] = client.memory.learned()

    def learned(self) -> list[EndpointMemory]:
        """What auto mode learned about each endpoint the bot asks (the default model's
        first)."""
        return [client.memory for client in self.models]

    async def forget_learned(self, by: int) -> None:
        """An admin's reset: every endpoint starts again as unseen, here and in the store.
        Raises StoreUnavailable while the database is down (nothing is forgotten then)."""
        for client in self.models:
            fresh = EndpointMemory(client.memory.endpoint)
            await self.store.endpoints.put(fresh)
            client.memory = fresh
            self._kept[fresh.endpoint] = {}
            log.warning("auto mode: user %s reset what was learned about %s", by,
                        fresh.endpoint)

    async def _keep_memory(self) -> None:
        """Store what a run taught auto mode about an endpoint (nothing when it learned
        nothing new); a database that is down is tried again after the next run."""
        for client in self.models:
            memory = client.memory
            learned = memory.learned()
            if learned == self._kept.get(memory.endpoint):
                continue
            try:
                await self.store.endpoints.put(memory)
            except StoreUnavailable as err:
                log.warning("what auto mode learned is not stored yet: %s", err)
                continue
            self._kept[memory.endpoint] = learned

    async def stop_all(self) -> None:
        """A shutdown: every run stops with a notice and its front end shows its end."""
        await self.active.stop_all(lambda lang: text(lang, "shutdown"))

    def model_of(self, q: Ask) -> ModelClient:
        """The client of the model `q` goes to: the one it names, else its chat's
        (/settings), else the default (also for a name no longer in the environment)."""
        name = q.models[0] if len(q.models) == 1 else q.chat.model if q.chat else ""
        return (self.models.get(name) if name else None) or self.client

    def model_label(self, q: Ask) -> str:
        """The run's model as stored: its name, or a compare's two ("local ↔ cloud")."""
        if q.mode == RunMode.MODELS:
            return " ↔ ".join(q.models)
        return self.model_of(q).name

    async def _execute(self, q: Question, active: Active, front: Front) -> None:
        """Run `q` to the end once admitted (until then `front` hears how many are ahead);
        `active.cancel` stops it, queued or running."""
        ticket = active.ticket = self.admission.ticket(q.conversation)
        try:
            if not ticket.admitted:
                front.queued(ticket.ahead)
                await ticket.wait(active.cancel)
            view = View(q.mode, q.run_lang)
            view.remarks = q.chat is None or q.chat.remarks
            try:
                q = await self._with_history(q, active)
                record = await self._start(q)
            except Exception:  # the database locked past its timeout, full, or gone
                log.exception("%s: a run could not be stored, so it did not start",
                              q.conversation)
                await front.not_saved()
                return
            if record.saved:
                active.run_id = record.id
            view.number = record.n if record.saved else None
            status: str | None = None
            try:
                gate = await front.started(record, view)
                status = await self.fold(q, active, record, view, front.stepped, gate)
            finally:
                active.status = status
                await front.finished(status)
        finally:
            ticket.release()

    async def _with_history(self, q: Question, active: Active) -> Question:
        """`q` with its thread's history, read once it may run: a run of the thread
        forgotten while it waited is not in it, and one forgotten while it is read (a
        summary call takes seconds) has it read again. Every run it reads is in
        `active.carries`, so a later /forget of one stops it (`forgotten`)."""
        if q.follows is None:
            return q
        used = NO_USAGE
        for _ in range(THREAD_READS):
            seen = self.active.deletions
            try:
                history, usage = await thread_history(self.store, self.client, q.follows,
                                                      self.settings.history_max_chars,
                                                      detect_lang(q.text))
            except StoreUnavailable as err:  # answered without the thread's earlier turns
                log.warning("a follow-up without its thread: the database is down (%s)", err)
                return q
            used += usage
            if history is None:
                continue
            active.carries = history.runs
            if self.active.deletions == seen:
                return replace(q, history=history.turns, history_usage=used)
        log.warning("the thread of run %s kept changing while it was read; the follow-up "
                    "goes without it", q.follows.id)
        active.carries = frozenset()
        return replace(q, history_usage=used)

    def forgotten(self, conversation: Conversation, run_ids: Collection[int] | None) -> None:
        """Stored runs of `conversation` were deleted (None: all): a run going on that
        sends the model the text of one of them (its own, or its thread's) stops, saying
        why, so the text is not sent again in its later rounds."""
        for active in self.active.forgotten(conversation, run_ids):
            own = run_ids is None or active.run_id in run_ids
            active.stop(text(active.run_lang,
                             "stopped_forgotten" if own else "stopped_thread_forgotten"))

    async def _start(self, q: Question) -> RunRecord:
        """The run's record; an unsaved one while the database is down (the run goes on)."""
        asked = {"user_id": q.user_id, "user_name": q.user_name, "mode": q.mode,
                 "question": q.text, "model": self.model_label(q),
                 "parent_id": q.parent_id}
        try:
            record = await self.store.start_run(chat_id=q.conversation.id,
                                                kind=q.conversation.kind, **asked)
        except StoreUnavailable as err:
            log.warning("a run in %s is not saved: the database is down (%s)",
                        q.conversation, err)
            return RunRecord.unsaved(conversation=q.conversation, **asked)
        if q.photos:
            try:
                await self.store.photos.put(record.id, [photo.kept for photo in q.photos])
            except StoreUnavailable as err:  # the text read is still kept, in its step
                log.warning("run %s: its photos are not kept (%s)", record.id, err)
        return record

    async def fold(self, q: Question, active: Active, record: RunRecord, view: View,
                   stepped: Callable[[str, Event | None], None] = lambda lane, event: None,
                   gate: Gate | None = None) -> str:
        """Run `q` as `record`: each event folded into `view`, told to the listeners and
        `stepped`, and stored; the record finished whatever happens. The status it ended with.
        `gate`: who confirms actions (walkthrough mode, AGENT_CONFIRM_TOOLS)."""
        self.listeners.run_started(record, view.remarks)
        steps = RoundWriter(self.store, record.id, saving=record.saved)
        try:
            uses = {lane: ToolUses(self.tools) for lane in view.lanes}
            async for lane, event in self._events(q, active, gate):
                uses[lane].add(event)
                view.apply(lane, event)
                self.listeners.run_event(record, lane, event)
                stepped(lane, event)
                await steps.add(lane, event)
            if view.judgeable() and not active.cancel.is_set():
                await steps.flush()  # the lanes' steps before the judgement
                await self._judge(q, view, record, active, stepped, uses, steps)
            end = view.outcome()
        except Exception:
            log.exception("run %s failed", record.id)
            view.add_notice(text(q.run_lang, "failed"))
            end = RunFinished(round=0, status="error")
        status = (RunStatus.INTERRUPTED if active.interrupted and end.status == RunStatus.CANCELLED
                  else RunStatus(end.status))
        await steps.finish(status=status, usage=end.usage + q.history_usage,
                           duration_ms=end.duration_ms,
                           answer="\n\n".join(view.answers.values()))
        if not steps.saving:
            view.add_notice(text(q.run_lang, "transcript_unsaved"))
        elif steps.waiting:  # not in /show until the database is back
            view.number = None
            view.add_notice(text(q.run_lang, "transcript_waiting"))
        else:
            await self._keep_facts(record, view)
        self.listeners.run_finished(record, status)
        await self._keep_memory()
        return status

    async def _keep_facts(self, record: RunRecord, view: View) -> None:
        """The run's facts for the course's figures; while the database cannot take them,
        they are made from the stored steps as the bot next starts (bot.course.service)."""
        try:
            await self.store.course.record(record.id, facts_of(view))
        except StoreUnavailable as err:
            log.warning("run %s: its course facts wait, the database is down (%s)",
                        record.id, err)

    async def _judge(self, q: Question, view: View, record: RunRecord, active: Active,
                     stepped: Callable[[str, Event | None], None],
                     uses: dict[str, ToolUses], steps: RoundWriter) -> None:
        """/compare's difference line: the model judges the two answers (stored with the
        last lane). Stopping the run drops it; a failed call leaves the cost line alone."""
        first, last = view.lanes
        view.judging = True
        stepped(last, None)
        lang = detect_lang(q.text)
        if view.mode == RunMode.MODELS:
            left, right = (Side(view.lanes[lane].model, view.answers[lane], uses[lane].calls)
                           for lane in (first, last))
            judging = judge_sides(q.text, left, right, client=self.client, lang=lang)
        else:
            judging = judge(q.text, view.answers[first], view.answers[last], client=self.client,
                            lang=lang, calls=uses[last].calls)
        asked = asyncio.ensure_future(judging)
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
            view.apply(last, judgement)
            await steps.add(last, judgement)
            self.listeners.run_event(record, last, judgement)
            stepped(last, judgement)
        else:
            stepped(last, None)

    async def _events(self, q: Question, active: Active,
                      gate: Gate | None) -> AsyncIterator[tuple[str, Event]]:
        """What was heard in a voice message and the photos' readings first (the chain's
        lane), then the lanes' events, the model given the question with what was read from
        photos (what was heard is the question itself); RunStarted keeps the question as
        asked. Photos the model reads itself are given to it with the question; the steps
        Glassbox makes when its endpoint refuses them come before the next event."""
        reads: list[InputRead] = []
        chain = list(Lane.of(q.mode))[-1]
        for heard in q.heard:
            yield chain, heard
        handoff = self._handoff(q)
        if handoff is not None:
            for step in handoff.steps():
                yield chain, step
        elif q.photos:
            async for read in self.photo_reader.read(q.conversation, q.photos):
                reads.append(read)
                yield chain, read
                if active.cancel.is_set():
                    break
        asked = with_reads(q.text, reads)
        photos = handoff.photos if handoff is not None else None
        async for lane, event in _merged(self._lanes(q, asked, active, gate, photos)):
            for step in handoff.due() if handoff is not None else ():
                yield chain, step
            if isinstance(event, RunStarted) and reads:
                event = replace(event, question=q.text)
            yield lane, event

    def _handoff(self, q: Question) -> PhotoHandoff | None:
        """The question's photos for the model to read itself, if PHOTO_READING and what its
        endpoint can do say so; None: Glassbox reads them (or there are none)."""
        reading = self.settings.photos_read_by
        clients = ([self.models.get(name) or self.model_of(q) for name in q.models]
                   if q.mode == RunMode.MODELS else [self.model_of(q)])
        if (not q.photos or reading is None
                or not all(model_reads(reading, c.memory, c.model) for c in clients)):
            return None
        return PhotoHandoff(self.photo_reader, q.conversation, q.photos, q.text,
                            self.model_label(q), q.run_lang,
                            fallback=reading is PhotoReading.AUTO)

    def _lanes(self, q: Question, asked: str, active: Active, gate: Gate | None,
               photos: GivenPhotos | None = None) -> dict[str, AsyncIterator[Event]]:
        """Each lane's events for the question `asked` (as the model is given it), with
        `photos` for the model to read itself."""
        settings, tools = self.settings, self.tools
        if q.chat is not None:
            settings, tools = (run_settings(settings, q.chat),
                               run_tools(tools, q.chat, q.conversation))
        client = self.model_of(q)
        common = {"client": client, "settings": settings, "history": q.history,
                  "cancel": active.cancel, "lang": q.run_lang, "photos": photos}
        lanes: dict[str, AsyncIterator[Event]] = {}
        if q.mode == RunMode.MODELS:  # each named model with tools, its own answer
            for lane, name in zip(Lane.of(q.mode), q.models, strict=True):
                lanes[lane] = run_react(
                    asked, tools=tools, planner=q.planner, gate=gate,
                    source=f"{q.conversation.kind}:{q.conversation.id}",
                    **{**common, "client": self.models.get(name) or client})
            return lanes
        compare = q.mode == RunMode.COMPARE
        if q.mode in (RunMode.PLAIN, RunMode.COMPARE):
            lanes[Lane.PLAIN if compare else Lane.MAIN] = run_plain(
                asked, **{**common, "client": self.answer_client or client})
        if q.mode in (RunMode.ASK, RunMode.COMPARE):
            lanes[Lane.REACT if compare else Lane.MAIN] = run_react(
                asked, tools=tools, planner=q.planner, gate=gate,
                answer_client=self.answer_client,
                source=f"{q.conversation.kind}:{q.conversation.id}", **common)
        return lanes


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
