"""Each Telegram chat's class-board link (/board): a secret token that opens the chat's
board, made at its first use, replaced on demand (table `boards` of migration m005)."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime

from bot.store.db import Db


class Boards:
    def __init__(self, db: Db) -> None:
        self._db = db

    async def token(self, chat_id: int, *, renew: bool = False) -> str:
        """The chat's board token, made now if it has none; `renew`: a new one, and the old
        link stops working."""
        if not renew:
            rows = await self._db.fetch("SELECT token FROM boards WHERE chat_id = ?", (chat_id,))
            if rows:
                return str(next(iter(rows))[0])
        token = secrets.token_urlsafe(24)
        await self._db.execute(
            "INSERT INTO boards (chat_id, token, made_at) VALUES (?, ?, ?) ON CONFLICT"
            " (chat_id) DO UPDATE SET token = excluded.token, made_at = excluded.made_at",
            (chat_id, token, datetime.now(UTC).isoformat()))
        return token

    async def chat(self, token: str) -> int | None:
        """The Telegram chat whose board `token` opens; None for an unknown or replaced
        token."""
        rows = await self._db.fetch("SELECT chat_id FROM boards WHERE token = ?", (token,))
        return int(next(iter(rows))[0]) if rows else None
