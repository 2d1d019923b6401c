"""What the HTTP API keeps in the store: its token scopes, and which session each API run
belongs to (tables `api_scopes` and `api_runs`).

An API token's runs are a conversation of their own (ConversationKind.API, numbered by
`api_scopes.id`), so numbering, history and the budget work as for a Telegram chat and
reach no one else's. A session is the API runs sharing a `session_id`: the last one is the
parent of the next, as in a reply thread. Tokens are kept only as their SHA-256.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime

from bot.store.db import Db
from bot.store.kinds import ConversationKind
from bot.store.records import Conversation, RunRecord
from bot.store.threads import Many


class ApiSessions:
    def __init__(self, db: Db, many: Many) -> None:
        self._db, self._many = db, many

    async def scope(self, token: str) -> Conversation:
        """The conversation of API token `token`, made at its first use. Race-free: the id
        comes from the database's own counter, and the token's first requests at once all
        get the one row (the insert of all but one does nothing)."""
        digest = hashlib.sha256(token.encode()).hexdigest()
        select = "SELECT id FROM api_scopes WHERE token_sha256 = ?"
        rows = await self._db.fetch(select, (digest,))
        if not rows:
            await self._db.execute(
                "INSERT INTO api_scopes (token_sha256, made_at) VALUES (?, ?)"
                " ON CONFLICT (token_sha256) DO NOTHING", (digest, datetime.now(UTC).isoformat()))
            rows = await self._db.fetch(select, (digest,))
        return Conversation(ConversationKind.API, int(next(iter(rows))[0]))

    async def add_to_session(self, run_id: int, session_id: str) -> None:
        await self._db.execute(
            "INSERT INTO api_runs (run_id, session_id) VALUES (?, ?)"
            " ON CONFLICT (run_id) DO UPDATE SET session_id = excluded.session_id",
            (run_id, session_id))

    async def session_of(self, run_id: int) -> str:
        """The session an API run belongs to ("" for none)."""
        rows = await self._db.fetch("SELECT session_id FROM api_runs WHERE run_id = ?",
                                    (run_id,))
        return str(next(iter(rows))[0]) if rows else ""

    async def sessions_of(self, run_ids: Sequence[int]) -> dict[int, str]:
        """The sessions of API runs `run_ids`, in one query (runs of no session are absent)."""
        if not run_ids:
            return {}
        marks = ", ".join("?" * len(run_ids))
        rows = await self._db.fetch(
            f"SELECT run_id, session_id FROM api_runs WHERE run_id IN ({marks})", run_ids)
        return {int(run_id): str(session) for run_id, session in rows}

    async def session_runs(self, scope: Conversation, session_id: str) -> list[RunRecord]:
        """The runs of a session in this scope, oldest first."""
        return await self._many(
            "WHERE runs.conversation_kind = ? AND runs.chat_id = ? AND runs.id IN"
            " (SELECT run_id FROM api_runs WHERE session_id = ?) ORDER BY runs.id",
            (scope.kind, scope.id, session_id))

    async def run_by_id(self, scope: Conversation, run_id: int) -> RunRecord | None:
        """Run `run_id`, if it belongs to this scope (a scope reads only its own)."""
        records = await self._many(
            "WHERE runs.conversation_kind = ? AND runs.chat_id = ? AND runs.id = ?",
            (scope.kind, scope.id, run_id))
        return records[0] if records else None
