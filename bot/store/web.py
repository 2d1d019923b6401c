"""What the HTTP front ends keep in the store: each chat's class-board link, the API's token
scopes and which session each API run belongs to (tables of migration m005).

It works in the Store's database (`store.db`), so its writes order with the transcripts' own.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from datetime import UTC, datetime

from bot.store.records import RunRecord
from bot.store.transcripts import Store

API_CHAT_BASE = 9_000_000_000_000_000
"""API scopes are stored as chats numbered from here: above any Telegram chat or user id
(those fit in 52 bits), so they never meet a Telegram chat's runs."""


class WebStore:
    def __init__(self, store: Store) -> None:
        self.store = store

    # --- the class board ---

    async def board_token(self, chat_id: int, *, renew: bool = False) -> str:
        """The chat's board token, made now if it has none; `renew`: a new one, and the old
        link stops working."""
        if not renew:
            rows = await self.store.db.fetch(
                "SELECT token FROM boards WHERE chat_id = ?", (chat_id,))
            if rows:
                return str(next(iter(rows))[0])
        token = secrets.token_urlsafe(24)
        await self.store.db.execute(
            "INSERT INTO boards (chat_id, token, made_at) VALUES (?, ?, ?) ON CONFLICT"
            " (chat_id) DO UPDATE SET token = excluded.token, made_at = excluded.made_at",
            (chat_id, token, _now()))
        return token

    async def board_chat(self, token: str) -> int | None:
        """The chat whose board `token` opens; None for an unknown or replaced token."""
        rows = await self.store.db.fetch(
            "SELECT chat_id FROM boards WHERE token = ?", (token,))
        return int(next(iter(rows))[0]) if rows else None

    # --- the HTTP API ---

    async def api_chat(self, token: str) -> int:
        """The chat id of the scope of API token `token`, made at its first use (the
        token's first requests at once all get the one scope)."""
        digest = hashlib.sha256(token.encode()).hexdigest()
        select = "SELECT chat_id FROM api_scopes WHERE token_sha256 = ?"
        rows = await self.store.db.fetch(select, (digest,))
        if rows:
            return int(next(iter(rows))[0])
        async with self.store.db.transaction() as db:
            await db.execute(
                "INSERT INTO api_scopes (chat_id, token_sha256, made_at) SELECT"
                " coalesce(max(chat_id) + 1, ?), ?, ? FROM api_scopes WHERE true"
                " ON CONFLICT (token_sha256) DO NOTHING",
                (API_CHAT_BASE + 1, digest, _now()))
            rows = await db.fetch(select, (digest,))
        return int(next(iter(rows))[0])

    async def add_to_session(self, run_id: int, session_id: str) -> None:
        await self.store.db.execute(
            "INSERT INTO api_runs (run_id, session_id) VALUES (?, ?)"
            " ON CONFLICT (run_id) DO UPDATE SET session_id = excluded.session_id",
            (run_id, session_id))

    async def session_of(self, run_id: int) -> str:
        """The session an API run belongs to ("" for none)."""
        rows = await self.store.db.fetch(
            "SELECT session_id FROM api_runs WHERE run_id = ?", (run_id,))
        return str(next(iter(rows))[0]) if rows else ""

    async def sessions_of(self, run_ids: Sequence[int]) -> dict[int, str]:
        """The sessions of API runs `run_ids`, in one query (runs of no session are absent)."""
        if not run_ids:
            return {}
        marks = ", ".join("?" * len(run_ids))
        rows = await self.store.db.fetch(
            f"SELECT run_id, session_id FROM api_runs WHERE run_id IN ({marks})", run_ids)
        return {int(run_id): str(session) for run_id, session in rows}

    async def session_runs(self, chat_id: int, session_id: str) -> list[RunRecord]:
        """The runs of a session in this scope, oldest first."""
        return await self.store._many(
            "WHERE runs.chat_id = ? AND runs.id IN"
            " (SELECT run_id FROM api_runs WHERE session_id = ?) ORDER BY runs.id",
            (chat_id, session_id))

    async def run_by_id(self, chat_id: int, run_id: int) -> RunRecord | None:
        """Run `run_id`, if it belongs to this chat (an API scope reads only its own)."""
        return await self.store._one("WHERE runs.chat_id = ? AND runs.id = ?",
                                     (chat_id, run_id))


def _now() -> str:
    return datetime.now(UTC).isoformat()
