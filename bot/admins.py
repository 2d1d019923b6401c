"""Who counts as an admin: a user in ADMIN_USER_IDS anywhere, or a real administrator (or the
owner) of the group, as Telegram's getChatMember says, remembered for a minute."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from telegram.constants import ChatMemberStatus
from telegram.error import TelegramError

if TYPE_CHECKING:
    from bot.services import Services

log = logging.getLogger(__name__)

CACHE_S = 60.0
"""How long Telegram's answer is trusted (a demoted admin keeps the right this long)."""
CACHE_MAX = 4096
_ADMIN = (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)


class AdminCache:
    """(chat, user) -> (is admin, until when), bounded."""

    def __init__(self) -> None:
        self._entries: dict[tuple[int, int], tuple[bool, float]] = {}

    def get(self, chat_id: int, user_id: int) -> bool | None:
        entry = self._entries.get((chat_id, user_id))
        if entry is None or entry[1] < time.monotonic():
            return None
        return entry[0]

    def put(self, chat_id: int, user_id: int, admin: bool) -> None:
        if len(self._entries) >= CACHE_MAX:
            now = time.monotonic()
            self._entries = {k: v for k, v in self._entries.items() if v[1] >= now}
            if len(self._entries) >= CACHE_MAX:
                self._entries.clear()
        self._entries[chat_id, user_id] = (admin, time.monotonic() + CACHE_S)


async def is_admin(svc: Services, chat_id: int, user_id: int) -> bool:
    """May this user act for everyone in this chat (stop anyone's run, forget any run)?
    A private chat has no admins but ADMIN_USER_IDS. If Telegram cannot be asked, no."""
    if svc.settings.is_admin(user_id):
        return True
    if chat_id > 0:
        return False
    cached = svc.admins.get(chat_id, user_id)
    if cached is not None:
        return cached
    try:
        member = await svc.bot.get_chat_member(chat_id, user_id)
    except TelegramError as err:
        log.warning("chat %s: could not ask whether a user is an admin (%s)", chat_id, err)
        return False
    admin = member.status in _ADMIN
    svc.admins.put(chat_id, user_id, admin)
    return admin
