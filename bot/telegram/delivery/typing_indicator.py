"""The "typing…" indicator: one per chat while any run there has nothing on screen yet,
renewed every 4 s (Telegram shows it for about 5 s). Once a run's message is there, its
edits show the progress, and "typing…" would only spend the send rate. It starts only if
nothing is on screen AFTER_S after the question: a first message that goes at once (most
do: a private chat's within a call's latency, a group's a second after the question) says
more than "typing…" would, and a call shown for a few milliseconds is a wasted one (under
load, it takes a place an answer's message needs). It shows while a first message waits:
a queue, a busy class (no first message at all), a chat penalised by a 429.

It is a courtesy: it takes a place in the global send rate only when one is free and no
message waits for one; otherwise that renewal is skipped and tried again shortly."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from telegram import Bot
from telegram.constants import ChatAction
from telegram.error import TelegramError

from bot.telegram.delivery.send_rate import SendRate

log = logging.getLogger(__name__)

AFTER_S = 1.5
"""The first "typing…" goes this long after the question (a group's first message waits
1 s: see pacer's `group_first_delay_s`)."""
RENEW_S = 4.0
RETRY_S = 1.0
"""After a renewal skipped for want of a place in the send rate."""


class Typing:
    def __init__(self, bot: Bot, send_rate: SendRate) -> None:
        self.bot, self.send_rate = bot, send_rate
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
        await asyncio.sleep(AFTER_S)
        while True:
            if not self.send_rate.try_take():
                await asyncio.sleep(RETRY_S)
                continue
            try:
                await self.bot.send_chat_action(chat_id, ChatAction.TYPING)
            except TelegramError as err:  # only a courtesy: never fail a run over it
                log.info("chat %s: no typing indicator (%s)", chat_id, err)
            finally:
                self.send_rate.release()
            await asyncio.sleep(RENEW_S)
