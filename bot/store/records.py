"""What the store hands out: run records, scopes, history pages, and steps as events."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar

from agent.events import EVENT_TYPES, Event, Usage, event_from_dict
from bot.store.kinds import ConversationKind

if TYPE_CHECKING:  # records are pure data: view/ imports them without a database driver
    import sqlite3

MODES = ("ask", "plain", "compare", "runs", "models")
LANES = ("main", "plain", "react", "left", "right")
"""`main` for an ask or plain run; a compare run has a `plain` and a `react` lane; a
comparison of stored runs a `left` and a `right` one."""
FINAL_STATUSES = ("done", "max_rounds", "error", "cancelled", "interrupted")
"""How `finish` may close a run; before it a run is `running`. `interrupted`: a shutdown
stopped it (or, found `running` at start-up, a crash did)."""


@dataclass(frozen=True, slots=True)
class Conversation:
    """A conversation as the store keys it: what it is, and its id among those of its kind."""

    kind: ConversationKind
    id: int


def telegram_chat(chat_id: int) -> Conversation:
    return Conversation(ConversationKind.TELEGRAM, chat_id)


@dataclass(frozen=True)
class Scope:
    """The runs a caller may reach: a whole chat, or one user's runs in it (see bot.store)."""

    chat_id: int
    user_id: int | None = None
    kind: ConversationKind = ConversationKind.TELEGRAM
    """What `chat_id` numbers: a Telegram chat (the Telegram front end's scopes), or an
    API token's scope."""

    @classmethod
    def of(cls, conversation: Conversation) -> Scope:
        """Everything in `conversation`."""
        return cls(conversation.id, kind=conversation.kind)


@dataclass(frozen=True)
class RunRecord:
    id: int
    n: int
    chat_id: int
    """The conversation's id among those of its `kind`."""
    user_id: int | None
    """The Telegram user who asked; None for an API token's run (the token asked)."""
    user_name: str
    mode: str
    question: str
    model: str
    status: str
    started_at: datetime
    ended_at: datetime | None
    duration_ms: int | None
    usage: Usage
    message_ids: tuple[int, ...]
    parent_id: int | None
    answer: str
    saved: bool = True
    """False: the database was down when the run started; nothing of it is stored."""
    kind: ConversationKind = ConversationKind.TELEGRAM
    """What kind of conversation `chat_id` is."""

    @property
    def conversation(self) -> Conversation:
        return Conversation(self.kind, self.chat_id)

    @classmethod
    def unsaved(cls, *, conversation: Conversation, user_id: int | None, user_name: str,
                mode: str, question: str, model: str, parent_id: int | None) -> RunRecord:
        """A run that goes on while the store cannot record it (id and number 0)."""
        return cls(0, 0, conversation.id, user_id, user_name, mode, question, model,
                   "running", datetime.now(UTC), None, None, Usage(), (), parent_id, "",
                   saved=False, kind=conversation.kind)


@dataclass(frozen=True)
class HistoryPage:
    runs: tuple[RunRecord, ...]
    """Newest first."""
    page: int
    """The page shown: the one asked for, moved into 1..pages."""
    pages: int
    total: int


@dataclass(frozen=True, slots=True)
class UnknownEvent(Event):
    """A stored step of a type this version does not know (a newer Glassbox wrote it).

    It comes back as stored, so nothing is lost; front ends that do not know it skip it.
    """

    type: ClassVar[str] = "unknown"
    payload: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return dict(self.payload)


def event_from_row(payload: str) -> Event:
    """A step's stored `to_dict()` JSON as an event again."""
    data = json.loads(payload)
    if data.get("type") in EVENT_TYPES:
        return event_from_dict(data)
    return UnknownEvent(round=data.get("round", 0), payload=data)


def record_from_row(row: sqlite3.Row) -> RunRecord:
    return RunRecord(
        id=row["id"],
        n=row["n"],
        chat_id=row["chat_id"],
        user_id=row["user_id"],
        user_name=row["user_name"],
        mode=row["mode"],
        question=row["question"],
        model=row["model"],
        status=row["status"],
        started_at=datetime.fromisoformat(row["started_at"]),
        ended_at=datetime.fromisoformat(row["ended_at"]) if row["ended_at"] else None,
        duration_ms=row["duration_ms"],
        usage=Usage(row["prompt_tokens"], row["completion_tokens"], row["total_tokens"]),
        message_ids=tuple(json.loads(row["message_ids"])),
        parent_id=row["parent_id"],
        answer=row["answer"],
        kind=ConversationKind(row["conversation_kind"]),
    )
