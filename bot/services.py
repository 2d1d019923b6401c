"""What the handlers share, opened in `post_init` and closed in `post_shutdown`."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from telegram import Bot
from telegram.ext import CallbackContext

from agent.lang import Lang
from agent.model import ModelClient
from agent.tool import Tool
from bot.active import ActiveRuns
from bot.admins import AdminCache
from bot.pacer import Pacer
from bot.settings import BotSettings
from bot.store import Store
from bot.typing_indicator import Typing

EXAMPLES_PATH = Path(__file__).resolve().parent.parent / "data" / "examples.json"


@dataclass(frozen=True, slots=True)
class Example:
    id: str
    label: dict[str, str]
    question: dict[str, str]

    def in_lang(self, lang: Lang) -> tuple[str, str]:
        """(button label, question) in `lang`."""
        return self.label[lang], self.question[lang]


def load_examples(path: Path = EXAMPLES_PATH) -> list[Example]:
    return [Example(**item) for item in json.loads(path.read_text(encoding="utf-8"))]


@dataclass
class Services:
    settings: BotSettings
    bot: Bot
    client: ModelClient
    store: Store
    tools: Sequence[Tool]
    pacer: Pacer
    typing: Typing
    active: ActiveRuns = field(default_factory=ActiveRuns)
    examples: list[Example] = field(default_factory=load_examples)
    recovering: asyncio.Task[None] | None = None
    """Editing the messages of runs a restart interrupted (started in post_init)."""
    admins: AdminCache = field(default_factory=AdminCache)
    """Telegram's recent answers to "is this user an admin of this group?" (bot.admins)."""


def services(context: CallbackContext) -> Services:  # type: ignore[type-arg]
    return context.application.bot_data["services"]  # type: ignore[no-any-return]
