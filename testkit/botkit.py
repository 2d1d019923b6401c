"""The real Application against the fake Bot API and the fake model: a harness for bot tests."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.tool import Tool
from bot.bot_settings import BotSettings
from bot.runs.metrics import Metrics
from bot.runs.services import Services
from bot.store.records import telegram_chat
from bot.telegram.app import App, build_app, serving
from bot.telegram.delivery.pacer import Limits
from testkit.agentkit import TEST_KEY
from testkit.agentkit import Add as Add  # re-exported: the bot tests take it from here
from testkit.fakes.model import FakeModel
from testkit.fakes.telegram import TOKEN, FakeTelegram, Message

SCALE = 0.02
"""Telegram's time limits, 50 times faster (the fake and the bot's pacer alike)."""
GROUP, ALICE, BOB, ADMIN = -1001234567890, 111, 222, 999


@dataclass
class Glassbox:
    tg: FakeTelegram
    model: FakeModel
    app: App

    @property
    def services(self) -> Services:
        assert self.app.bot_data.services is not None, "the bot is not serving"
        return self.app.bot_data.services

    def replies_to(self, chat_id: int, message_id: int) -> list[Message]:
        return [m for m in self.tg.bot_messages(chat_id) if m.reply_to == message_id]

    async def answer_to(self, chat_id: int, message_id: int, timeout: float = 10) -> Message:
        """The bot's message replying to `message_id`, once it is final (no ⏹ left)."""
        def done() -> bool:
            found = self.replies_to(chat_id, message_id)
            return bool(found) and not found[0].buttons and not self.running(chat_id)
        await self.tg.wait(done, timeout)
        return self.replies_to(chat_id, message_id)[0]

    async def settled(self, timeout: float = 10) -> None:
        """Every update sent so far handled to its end: taken by the bot's getUpdates and
        its handler returned (the application's queue joined). The bot handles updates
        concurrently, so a reply to a later message says nothing of an earlier one; a test
        that checks nothing more came waits for this instead of a while."""
        await self.tg.wait(self.tg.all_taken, timeout)
        async with asyncio.timeout(timeout):
            await self.app.update_queue.join()

    async def stop_button_on(self, chat_id: int, message_id: int) -> Message:
        """The bot's running message replying to `message_id`, once its ⏹ is there (it comes
        with the edit after the send, when the message's id is known)."""
        def shown() -> bool:
            found = self.replies_to(chat_id, message_id)
            return bool(found) and bool(found[0].buttons)
        await self.tg.wait(shown)
        return self.replies_to(chat_id, message_id)[0]

    def running(self, chat_id: int) -> bool:
        return any(a.conversation == telegram_chat(chat_id)
                   for a in self.services.runs.active._by_key.values())


def bot_settings(tg: FakeTelegram, model: FakeModel, db: Path | str,
                 **extra: Any) -> BotSettings:
    """`db`: a SQLite file, or a PostgreSQL database's URL (DATABASE_URL). A photo is read on
    one core: the suite's workers share the machine's."""
    where = {"database_url": db} if isinstance(db, str) else {"database_path": db}
    values: dict[str, Any] = {
        "telegram_bot_token": TOKEN, "telegram_api_base_url": tg.base_url,
        "openai_base_url": model.base_url, "openai_api_key": TEST_KEY, "llm_max_retries": 0,
        "llm_timeout_s": 5, **where, "admin_user_ids": {ADMIN}, "ocr_threads": 1, **extra}
    return BotSettings(_env_file=None, **values)


@contextlib.asynccontextmanager
async def running(tg: FakeTelegram, model: FakeModel, db: Path | str, *,
                  tools: Sequence[Tool] | None = (), request_timeout_s: float = 5.0,
                  **extra: Any) -> AsyncIterator[Glassbox]:
    """Start the bot as `python -m bot` does (bot/serve.py, without its HTTP server), and stop
    it the same way, whatever the test did: a failed assertion in the block still closes the
    store, whose aiosqlite thread would otherwise keep the test process from ever exiting.
    `tools=None`: the real toolbox, as AGENT_TOOLS and the upstream URLs in `extra` say.
    The drawing process is not warmed up at start (most tests draw nothing, and each would
    pay for a process loading matplotlib): a test that draws starts it at its first picture,
    as the bot does after that process failed."""
    settings = bot_settings(tg, model, db, **extra)
    metrics = Metrics()
    app = build_app(settings, metrics, limits=Limits().scaled(SCALE), poll_timeout_s=1,
                    request_timeout_s=request_timeout_s)
    async with (app, Services.opened(settings, metrics, tools, warm_drawing=False) as services,
                serving(app, services)):
        assert app.updater
        await app.updater.start_polling(poll_interval=0.0, timeout=1)
        await app.start()
        try:
            yield Glassbox(tg, model, app)
        finally:
            await app.updater.stop()
            await app.stop()


def people(tg: FakeTelegram) -> None:
    tg.user(ALICE, "Alice", "en")
    tg.user(BOB, "Bob", "zh-hans")
    tg.user(ADMIN, "Teacher", "en")
    tg.group(GROUP, "Class 3A")
