"""What both front ends stand on, in one process: the run listeners (the class boards' hub,
the metrics) from the start, and, once opened, the services (the store, the model client,
the tools with their notes index, the run service), closed in the reverse order."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
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
    """The opened services every front end shares."""

    settings: BotSettings
    store: Store
    runs: Runs
    notes: CourseNotes | None = None
    """The course-notes index (search_notes); None when search_notes is off."""
    toolbox: Toolbox | None = None
    pruning: asyncio.Task[None] | None = field(default=None, compare=False)
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


class Shared:
    """The run service's side of the process, which every front end holds: the listeners
    from the start, `services` between `open` and `close` (None before and after: a front
    end says it is starting)."""

    def __init__(self) -> None:
        self.hub = Hub()
        """Runs as they happen, for the class boards."""
        self.metrics = Metrics()
        """What /metrics shows."""
        self.services: Services | None = None
        self.leads: Callable[[int], Awaitable[frozenset[int]]] | None = None
        """Whose runs a chat's class board follows besides the link's asker: the chat's
        admins (co-teachers), as the chat front end knows them; None: nobody else."""

    async def open(self, settings: BotSettings, tools: Sequence[Tool] | None = None
                   ) -> Services:
        """Open the store, the tools (None: the toolbox AGENT_TOOLS chooses, its notes index
        in the store's database) and the run service."""
        store = await Store.open(settings.database(), pool_size=settings.database_pool_size)
        notes = toolbox = None
        try:
            if tools is None:
                notes = await open_notes_index(store, settings.notes_dir)
                toolbox = await Toolbox.open(settings, notes=notes)
                tools = toolbox.tools
        except BaseException:
            if notes is not None:
                await notes.close()
            await store.close()
            raise
        runs = Runs(settings, ModelClients(settings), tools, store,
                    Listeners(self.metrics, self.hub))
        await runs.recall()
        cut_short = tuple(await store.interrupt_running())
        pruning = None
        if settings.transcript_retention_days:
            pruning = asyncio.create_task(_prune_daily(store, self.hub, runs,
                                                       settings.transcript_retention_days))
        filling = asyncio.create_task(
            Course(store, settings.chat_daily_token_budget).fill_in_background())
        self.services = Services(settings, store, runs, notes, toolbox, pruning, filling,
                                 voice=transcriber(settings), cut_short=cut_short)
        self.services.drawing.warm_up()
        return self.services

    async def close(self) -> None:
        """Close what `open` opened (the runs stopped already)."""
        services, self.services = self.services, None
        if services is None:
            return
        if services.pruning is not None:
            services.pruning.cancel()
            # Let a prune that is mid-transaction roll back before the store closes under it.
            await asyncio.gather(services.pruning, return_exceptions=True)
        if services.filling is not None:
            services.filling.cancel()
            await asyncio.gather(services.filling, return_exceptions=True)
        await services.drawing.close()
        if services.voice is not None:
            await services.voice.close()
        await services.runs.models.close()
        await services.store.close()
        if services.toolbox is not None:
            await services.toolbox.aclose()
        if services.notes is not None:
            await services.notes.close()


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
