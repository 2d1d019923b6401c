"""The context every handler gets: python-telegram-bot's `ContextTypes` with our own context
class, so a handler asks for the narrow part it needs (`context.store`, `context.outbox`,
`context.admins`, `context.runs`) with its type, instead of digging in `bot_data`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from telegram.ext import CallbackContext, ContextTypes, ExtBot

from agent.tools.notes_index import CourseNotes
from bot.bot_settings import BotSettings
from bot.examples import Example
from bot.runs.execute import Runs
from bot.runs.hub import Hub
from bot.runs.metrics import Metrics
from bot.runs.quota import Cooldowns
from bot.runs.services import Services, Shared
from bot.runs.uploads import UploadLimits
from bot.store.chat_settings_values import ChatSettings
from bot.store.records import telegram_chat
from bot.store.transcripts import Store
from bot.telegram.admins import Admins
from bot.telegram.albums import Albums
from bot.telegram.delivery.outbox import Outbox
from bot.telegram.delivery.typing_indicator import Typing


@dataclass(frozen=True, slots=True)
class Parts:
    """What the handlers share: the run service's, and the Telegram front end's own, opened
    in `post_init` and closed in `post_shutdown`."""

    services: Services
    admins: Admins
    outbox: Outbox
    examples: tuple[Example, ...]
    typing: Typing
    searches: Cooldowns | None = None
    """/history lists per sender (HISTORY_RATE_LIMIT); None: no limit."""
    uploads: UploadLimits = field(default_factory=lambda: UploadLimits(None))
    """Who may upload notes now (one at a time per chat, NOTES_UPLOAD_RATE_LIMIT)."""
    hearings: UploadLimits = field(default_factory=lambda: UploadLimits(None))
    """Voice messages being heard: one at a time per chat."""
    albums: Albums = field(default_factory=Albums)
    """Photos sent together, collected until their album is complete."""

    @property
    def settings(self) -> BotSettings:
        return self.services.settings

    @property
    def store(self) -> Store:
        return self.services.store

    @property
    def runs(self) -> Runs:
        return self.services.runs

    @property
    def notes(self) -> CourseNotes | None:
        """The course-notes index (/notes uploads); None when search_notes is off."""
        return self.services.notes

    async def chat_settings(self, chat_id: int) -> ChatSettings:
        """The chat's own settings (/settings), the environment's where it changed nothing."""
        return await self.services.chat_settings(telegram_chat(chat_id))


class BotData:
    """The Application's `bot_data`: no parts until `post_init` opens them."""

    def __init__(self) -> None:
        self.parts: Parts | None = None
        self.shared = Shared()
        """The run service's side (its listeners, its services); build_app puts in the
        composition root's."""

    @property
    def hub(self) -> Hub:
        return self.shared.hub

    @property
    def metrics(self) -> Metrics:
        return self.shared.metrics


class Context(CallbackContext[ExtBot[None], dict[Any, Any], dict[Any, Any], BotData]):
    @property
    def parts(self) -> Parts:
        if self.bot_data.parts is None:
            raise RuntimeError("Glassbox has not started: post_init has not run")
        return self.bot_data.parts

    @property
    def settings(self) -> BotSettings:
        return self.parts.settings

    @property
    def store(self) -> Store:
        return self.parts.store

    @property
    def admins(self) -> Admins:
        return self.parts.admins

    @property
    def outbox(self) -> Outbox:
        return self.parts.outbox

    @property
    def runs(self) -> Runs:
        return self.parts.runs

    @property
    def hub(self) -> Hub:
        return self.bot_data.hub


CONTEXT_TYPES = ContextTypes(context=Context, bot_data=BotData)
