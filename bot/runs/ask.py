"""The run service's one entry point, as every front end sees it: what is asked (`Ask`),
what each front end does with its own run (`Front`), and why a question may not start
(`Refusal`, typed: each front end words it itself).

A front end checks what only it can read (a Telegram message, an HTTP body), then calls
`Runs.ask(ask, front)`; the service does the rest the same way for all of them: the quota,
the asker's one slot, the follow-up's thread as history, admission, the stored run.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from agent.classroom.confirm import Gate
from agent.events import Event, InputRead
from agent.inputs.images import Picture
from agent.lang import Lang
from bot.runs.active import Active
from bot.runs.quota import OverBudget, RateLimited
from bot.store.chat_settings_values import ChatSettings
from bot.store.kinds import RunMode
from bot.store.records import Conversation, RunRecord
from bot.view.transcript import View

MAX_QUESTION_CHARS = 2000
"""A longer question is refused before anything runs, by every front end."""


def visible(question: str) -> bool:
    """Whether anything shows: zero-width and bidi control characters alone do not."""
    return any(not ch.isspace() and unicodedata.category(ch) != "Cf" for ch in question)


@dataclass(frozen=True, slots=True, kw_only=True)
class Ask:
    """One question, as a front end hands it to the run service."""

    mode: RunMode
    text: str
    conversation: Conversation
    """The conversation it belongs to (its runs, its budget, its /settings)."""
    user_id: int | None
    """The Telegram user who asks (their one running question, their rate limit); None for
    an API token, whose scope (the conversation) is the asker."""
    user_name: str
    run_lang: Lang
    """The run's one language, for everything Glassbox writes in the run."""
    follows: RunRecord | None = None
    """The run it follows up: that run's thread is the history."""
    planner: bool | None = None
    """Make a plan first; None: as AGENT_PLANNER says."""
    chat: ChatSettings | None = None
    """The conversation's own settings at the time of asking; None: the environment's."""
    photos: tuple[Picture, ...] = ()
    """Photos sent with the question (checked): read first, as the run's first steps."""
    heard: tuple[InputRead, ...] = ()
    """What Glassbox heard in a voice message (`text` is what was heard): the run's first
    step, before any photo's."""
    models: tuple[str, ...] = ()
    """Names of the models asked (agent/named_models.py): the two sides of a MODELS run;
    one for another mode, the model it goes to instead of the chat's; none: the chat's."""


@dataclass(frozen=True, slots=True)
class Busy:
    """The asker's previous question is still running: one at a time."""


Refusal = RateLimited | OverBudget | Busy
"""Why a question may not start now."""


class Front(Protocol):
    """What a front end does with one of its runs. The service calls these in the run's
    task, in this order; none may block (`started` and `finished` may await I/O)."""

    def claimed(self, run: Active) -> None:
        """The asker's slot is this run's; it may still wait for admission."""

    def queued(self, ahead: Callable[[], int]) -> None:
        """Too many runs at once: this one waits; `ahead()` counts those before it."""

    async def not_saved(self) -> None:
        """The run could not be stored, so it does not start (the asker is to be told)."""

    async def started(self, record: RunRecord, view: View) -> Gate | None:
        """Stored as `record`, about to fold into `view`. Who confirms actions (None: no one)."""

    def stepped(self, lane: str, event: Event | None) -> None:
        """`event` is folded into the view and stored (None: the view changed without one)."""

    async def finished(self, status: str | None) -> None:
        """The record is finished with `status` (None: the run failed before it could be)."""
