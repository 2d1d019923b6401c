"""What both front ends stand on, in one process: one services object (the store, the model
client, the tools with their notes index, the run service, its listeners), opened by the
composition root and closed in the reverse order."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field

from agent.model.model_clients import ModelClients
from agent.tool import Tool
from agent.tools import Toolbox
from agent.tools.notes_index import CourseNotes
from bot.bot_settings import BotSettings
from bot.course.drawing import Drawing
from bot.course.service import Course
from bot.runs.execute import Runs
from bot.runs.hub import Hub
from bot.runs.listeners import Listeners
from bot.runs.metrics import Metrics
from bot.store.chat_settings_values import ChatSettings
from bot.store.course_notes import open_notes_index
from bot.store.records import Conversation, RunRecord
from bot.store.transcripts import Store
from bot.voice.transcriber import Transcriber, transcriber

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Services:
    """What every front end reads: the store, the run service, the listeners (the class
    boards' hub, the metrics) and the rest, opened once by the composition root
    (`Services.opened`) before any front end takes a question."""

    settings: BotSettings
    store: Store
    runs: Runs
    hub: Hub
    """Runs as they happen, for the class boards."""
    metrics: Metrics
    """What /metrics shows."""
    notes: CourseNotes | None = None
    """The course-notes index (search_notes); None when search_notes is off."""
    toolbox: Toolbox | None = None
    filling: asyncio.Task[None] | None = field(default=None, compare=False)
    """The facts of earlier runs made for the course's figures (bot.course.service)."""
    drawing: Drawing = field(default_factory=Drawing, compare=False)
    """The course's pictures, drawn in a process of their own."""
    voice: Transcriber | None = field(default=None, compare=False)
    """What hears voice messages (VOICE, WHISPER_MODEL, WHISPER_API_URL); None: off."""
    cut_short: tuple[RunRecord, ...] = ()
    """The runs a crash or restart left `running`, marked interrupted when the services
    opened: before any front end could start a run, so none of this process's is among
    them. The chat front end edits their messages to say so."""

    @property
    def course(self) -> Course:
        """The course's figures (/stats, the course page, the API's stats)."""
        return Course(self.store, self.settings.chat_daily_token_budget)

    async def chat_settings(self, conversation: Conversation) -> ChatSettings:
        """A conversation's own settings (/settings), the environment's where it changed
        nothing."""
        return await self.store.chats.get(conversation, ChatSettings.defaults(self.settings))

    @classmethod
    @contextlib.asynccontextmanager
    async def opened(cls, settings: BotSettings, metrics: Metrics,
                     tools: Sequence[Tool] | None = None, *, warm_drawing: bool = True
                     ) -> AsyncIterator[Services]:
        """The services while the block runs: the store, the tools (None: the toolbox
        AGENT_TOOLS chooses, its notes index in the store's database) and the run service,
        counted in `metrics` (which the front ends' own requests count into too, so it is
        made before them); each closed in the reverse order on leaving (the runs stopped
        already), or as soon as a later one fails to open. `warm_drawing`: start the
        drawing process at once (Drawing.warm_up); without it, at the first picture."""
        async with contextlib.AsyncExitStack() as opened:
            store = await Store.open(settings.database(), pool_size=settings.database_pool_size)
            opened.push_async_callback(store.close)
            notes = toolbox = None
            if tools is None:
                notes = await open_notes_index(store, settings.notes_dir)
                opened.push_async_callback(notes.close)
                toolbox = await Toolbox.open(settings, notes=notes)
                opened.push_async_callback(toolbox.aclose)
                tools = toolbox.tools
            hub = Hub()
            runs = Runs(settings, ModelClients(settings), tools, store, Listeners(metrics, hub))
            opened.push_async_callback(runs.models.close)
            await runs.recall()
            cut_short = tuple(await store.interrupt_running())
            voice = transcriber(settings)
            if voice is not None:
                opened.push_async_callback(voice.close)
            filling = asyncio.create_task(
                Course(store, settings.chat_daily_token_budget).fill_in_background())
            opened.push_async_callback(_cancelled, filling)
            services = cls(settings, store, runs, hub, metrics, notes, toolbox, filling,
                           voice=voice, cut_short=cut_short)
            opened.push_async_callback(services.drawing.close)
            if warm_drawing:
                services.drawing.warm_up()
            if settings.transcript_retention_days:
                pruning = asyncio.create_task(_prune_daily(
                    store, hub, runs, settings.transcript_retention_days))
                opened.push_async_callback(_cancelled, pruning)
            yield services


async def _cancelled(task: asyncio.Task[None]) -> None:
    task.cancel()
    # Let a task that is mid-transaction roll back before the store closes under it.
    await asyncio.gather(task, return_exceptions=True)


async def _prune_daily(store: Store, hub: Hub, runs: Runs, days: int) -> None:
    """TRANSCRIPT_RETENTION_DAYS: delete old runs now, then once a day; they leave the
    boards too, and a run going on that carries one stops."""
    while True:
        try:
            removed = await store.prune(days)
            by_chat: dict[Conversation, list[int]] = {}
            for chat, run_id in removed:
                by_chat.setdefault(chat, []).append(run_id)
            for chat, run_ids in by_chat.items():
                hub.forgotten(chat, run_ids)
                runs.forgotten(chat, run_ids)
            log.info("deleted %d transcripts older than %d days", len(removed), days)
        except Exception:
            log.exception("pruning old transcripts failed")
        await asyncio.sleep(24 * 3600)
