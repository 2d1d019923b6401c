"""The "typing…" indicator: one per chat while any run in it works, renewed every 4 s
(Telegram shows it for about 5 s)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from telegram import Bot
from telegram.constants import ChatAction
from telegram.error import TelegramError

log = logging.getLogger(__name__)

RENEW_S = 4.0


class Typing:
    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self._users: dict[int, int] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}

    @contextlib.asynccontextmanager
    async def shown(self, chat_id: int) -> AsyncIterator[None]:
        """Show "typing…" in `chat_id` for as long as the block (or another one there) runs."""
        self._users[chat_id] = self._users.get(chat_id, 0) + 1
        if chat_id not in self._tasks:
            self._tasks[chat_id] = asyncio.create_task(self._keep(chat_id))
        try:
            yield
        finally:
            self._users[chat_id] -= 1
            if not self._users[chat_id]:
                del self._users[chat_id]
                task = self._tasks.pop(chat_id)
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    async def _keep(self, chat_id: int) -> None:
        while True:
            try:
                await self.bot.send_chat_action(chat_id, ChatAction.TYPING)
            except TelegramError as err:  # only a courtesy: never fail a run over it
                log.info("chat %s: no typing indicator (%s)", chat_id, err)
            await asyncio.sleep(RENEW_S)
