"""Each chat's own settings (/settings), kept in the store: what a class changed from the
environment's defaults. A chat that never changed anything runs as the environment says."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

from bot.store.chat_settings_values import ChatSettings, load
from bot.store.db import Db, StoreUnavailable
from bot.store.records import Conversation

log = logging.getLogger(__name__)


class ChatSettingsTable:
    """The `chat_settings` rows (one per conversation), in the Store's database."""

    def __init__(self, db: Db) -> None:
        self._db = db

    async def get(self, conversation: Conversation, defaults: ChatSettings) -> ChatSettings:
        """Its settings; the defaults while the database is down (a run goes on)."""
        try:
            rows = list(await self._db.fetch(
                "SELECT settings FROM chat_settings WHERE conversation_kind = ? AND chat_id = ?",
                (conversation.kind, conversation.id)))
        except StoreUnavailable as err:
            log.warning("%s %s runs with the defaults: the database is down (%s)",
                        conversation.kind, conversation.id, err)
            return defaults
        return load(defaults, json.loads(rows[0][0])) if rows else defaults

    async def put(self, conversation: Conversation, chat: ChatSettings,
                  defaults: ChatSettings, by: int | None) -> None:
        """Keep what differs from the defaults (no row when nothing does); `by`: the
        Telegram user who changed them."""
        values = chat.overrides(defaults)
        key = (conversation.kind, conversation.id)
        if not values:
            await self._db.execute("DELETE FROM chat_settings WHERE conversation_kind = ?"
                                   " AND chat_id = ?", key)
            return
        await self._db.execute(
            "INSERT INTO chat_settings (conversation_kind, chat_id, settings, updated_at,"
            " updated_by) VALUES (?, ?, ?, ?, ?) ON CONFLICT (conversation_kind, chat_id)"
            " DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at,"
            " updated_by = excluded.updated_by",
            (*key, json.dumps(values, ensure_ascii=False), datetime.now(UTC).isoformat(), by))
