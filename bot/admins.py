"""Who counts as an admin in a chat: anyone in ADMIN_USER_IDS, and in a group its real
administrators (getChatMember says `administrator` or `creator`). Answers are cached
briefly, so a burst of taps costs one API call and a demoted admin loses the right
within a minute.
"""

from __future__ import annotations

import logging
import time

from telegram import Bot
from telegram.constants import ChatMemberStatus
from telegram.error import TelegramError

from bot.settings import BotSettings

log = logging.getLogger(__name__)

CACHE_S = 60.0
_ADMIN = (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)


class Admins:
    def __init__(self, bot: Bot, settings: BotSettings, cache_s: float = CACHE_S) -> None:
        self.bot, self.settings, self.cache_s = bot, settings, cache_s
        self._cache: dict[tuple[int, int], tuple[bool, float]] = {}

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        """ADMIN_USER_IDS anywhere; a group's administrators in that group."""
        if self.settings.is_admin(user_id):
            return True
        if chat_id > 0:  # a private chat has no administrators
            return False
        key = (chat_id, user_id)
        cached = self._cache.get(key)
        if cached is not None and cached[1] > time.monotonic():
            return cached[0]
        try:
            member = await self.bot.get_chat_member(chat_id, user_id)
        except TelegramError as err:  # not cached: the next tap asks again
            log.warning("chat %s: could not check an administrator (%s)", chat_id, err)
            return False
        answer = member.status in _ADMIN
        self._cache[key] = (answer, time.monotonic() + self.cache_s)
        return answer
