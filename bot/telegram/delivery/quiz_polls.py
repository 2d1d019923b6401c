"""A native poll in a chat: sent, stopped and removed in the chat's turn (the pacer's), with
the same 429 waits as the run's pages. A poll that cannot be sent or stopped is logged and
reported as None: the run goes on without it (the class then sees no poll, never a stack
trace)."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from telegram import Bot
from telegram.error import RetryAfter, TelegramError

from bot.telegram.delivery.call_errors import retry_after_s
from bot.telegram.delivery.pacer import Pacer
from bot.telegram.delivery.priority import Priority
from wire.bot_api import Result, call

log = logging.getLogger(__name__)
TRIES = 3
"""A 429 waits and tries again, this many times in all."""


@dataclass(frozen=True, slots=True)
class SentPoll:
    message_id: int
    poll_id: str


async def send_poll(bot: Bot, pacer: Pacer, chat_id: int, reply_to: int | None,
                    question: str, options: list[str]) -> SentPoll | None:
    """A regular poll, not anonymous (so each vote arrives as a `poll_answer` update) and
    without revoting; None if Telegram would not take it."""
    reply = ({"message_id": reply_to, "allow_sending_without_reply": True}
             if reply_to else None)
    result = await _in_turn(bot, pacer, chat_id, "sendPoll", chat_id=chat_id,
                            question=question, options=[{"text": o} for o in options],
                            is_anonymous=False, type="regular", reply_parameters=reply)
    if not isinstance(result, dict) or not isinstance(result.get("poll"), dict):
        return None
    return SentPoll(int(result["message_id"]), str(result["poll"]["id"]))


async def stop_poll(bot: Bot, pacer: Pacer, chat_id: int,
                    message_id: int) -> tuple[int, ...] | None:
    """Close the poll; its final counts, option by option (None if it could not be closed)."""
    result = await _in_turn(bot, pacer, chat_id, "stopPoll", chat_id=chat_id,
                            message_id=message_id)
    if not isinstance(result, dict):
        return None
    return tuple(int(o.get("voter_count", 0)) for o in result.get("options", ()))


async def delete_poll(bot: Bot, pacer: Pacer, chat_id: int, message_id: int) -> bool:
    """Remove the (stopped) poll's message from the chat; False if Telegram would not."""
    return await _in_turn(bot, pacer, chat_id, "deleteMessage", chat_id=chat_id,
                          message_id=message_id) is True


async def _in_turn(bot: Bot, pacer: Pacer, chat: int, method: str,
                   **params: object) -> Result | None:
    for _ in range(TRIES):
        async with pacer.turn(chat, lambda: Priority.FINAL) as turn:
            await turn.use()
            try:
                return await call(bot, method, **params)
            except RetryAfter as err:
                pacer.penalise(chat, retry_after_s(err))
            except TelegramError as err:
                log.warning("chat %s: %s failed (%s)", chat, method, err)
                return None
    return None
