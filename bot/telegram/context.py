"""The context every handler gets: python-telegram-bot's `ContextTypes` with our own context
class, whose two properties hand a handler, with their types, the services every front end
reads (`context.services`) and the Telegram front end's own parts (`context.parts`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from telegram.ext import CallbackContext, ContextTypes, ExtBot

from bot.examples import Example
from bot.runs.quota import Cooldowns
from bot.runs.services import Services
from bot.runs.uploads import UploadLimits
from bot.telegram.admins import Admins
from bot.telegram.albums import Albums
from bot.telegram.delivery.outbox import Outbox
from bot.telegram.delivery.typing_indicator import Typing


@dataclass(frozen=True, slots=True)
class Parts:
    """The Telegram front end's own parts (the services are beside them, not in them),
    made with the Application."""

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


class BotData:
    """The Application's `bot_data`, which python-telegram-bot makes empty: the front end's
    parts from `build_app` on, the services while it serves (`app.serving`)."""

    def __init__(self) -> None:
        self.parts: Parts | None = None
        self.services: Services | None = None


class Context(CallbackContext[ExtBot[None], dict[Any, Any], dict[Any, Any], BotData]):
    @property
    def services(self) -> Services:
        if self.bot_data.services is None:
            raise RuntimeError("Glassbox is not serving: its services are not open")
        return self.bot_data.services

    @property
    def parts(self) -> Parts:
        if self.bot_data.parts is None:
            raise RuntimeError("the Application was not made by build_app")
        return self.bot_data.parts


CONTEXT_TYPES = ContextTypes(context=Context, bot_data=BotData)
