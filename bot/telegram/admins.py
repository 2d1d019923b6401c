"""Who counts as an admin: a user in ADMIN_USER_IDS anywhere, or a real administrator (or the
owner) of the group, as Telegram's getChatMember (one user) or getChatAdministrators (the
class board's co-teachers) says, remembered for a minute."""

from __future__ import annotations

import logging
import time

from telegram import Bot
from telegram.constants import ChatMemberStatus
from telegram.error import TelegramError

log = logging.getLogger(__name__)

CACHE_S = 60.0
"""How long Telegram's answer is trusted (a demoted admin keeps the right this long)."""
CACHE_MAX = 4096
_ADMIN = (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)


class Admins:
    """Answers "may this user act for everyone in this chat?", asking Telegram at most once a
    minute per (chat, user); the cache is bounded."""

    def __init__(self, bot: Bot, admin_user_ids: frozenset[int]) -> None:
        self.bot = bot
        self.admin_user_ids = admin_user_ids
        self._cache: dict[tuple[int, int], tuple[bool, float]] = {}
        """(chat, user) -> (is admin, until when)."""
        self._groups: dict[int, tuple[frozenset[int], float]] = {}
        """chat -> (its administrators' ids, until when)."""

    async def of_chat(self, chat_id: int) -> frozenset[int]:
        """Everyone who is an admin in the chat: ADMIN_USER_IDS, and in a group its
        administrators and owner (without bots). If Telegram cannot be asked, ADMIN_USER_IDS
        alone."""
        if chat_id > 0:
            return self.admin_user_ids
        cached = self._groups.get(chat_id)
        if cached is not None and cached[1] >= time.monotonic():
            return cached[0]
        try:
            members = await self.bot.get_chat_administrators(chat_id)
        except TelegramError as err:
            log.warning("chat %s: could not ask for its admins (%s)", chat_id, err)
            return self.admin_user_ids
        found = self.admin_user_ids | {m.user.id for m in members if m.status in _ADMIN}
        if len(self._groups) >= CACHE_MAX:
            self._groups.clear()
        self._groups[chat_id] = (found, time.monotonic() + CACHE_S)
        return found

    async def check(self, chat_id: int, user_id: int) -> bool:
        """Stop anyone's run, forget any run? ADMIN_USER_IDS anywhere; in a group also its
        administrators and owner. A private chat has no other admins. If Telegram cannot be
        asked, no. A chat posting as itself (a channel; negative id) is no member."""
        if user_id in self.admin_user_ids:
            return True
        if chat_id > 0 or user_id < 0:
            return False
        cached = self._cached(chat_id, user_id)
        if cached is not None:
            return cached
        try:
            member = await self.bot.get_chat_member(chat_id, user_id)
        except TelegramError as err:
            log.warning("chat %s: could not ask whether a user is an admin (%s)", chat_id, err)
            return False
        admin = member.status in _ADMIN
        self._remember(chat_id, user_id, admin)
        return admin

    def _cached(self, chat_id: int, user_id: int) -> bool | None:
        entry = self._cache.get((chat_id, user_id))
        if entry is None or entry[1] < time.monotonic():
            return None
        return entry[0]

    def _remember(self, chat_id: int, user_id: int, admin: bool) -> None:
        if len(self._cache) >= CACHE_MAX:
            now = time.monotonic()
            self._cache = {k: v for k, v in self._cache.items() if v[1] >= now}
            if len(self._cache) >= CACHE_MAX:
                self._cache.clear()
        self._cache[chat_id, user_id] = (admin, time.monotonic() + CACHE_S)
