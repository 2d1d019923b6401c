"""The questions running right now: one per user, each stoppable by its key; each one's
`Active` is the handle a front end gets for its run."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Callable, Collection, Coroutine
from dataclasses import dataclass, field
from typing import Any

from agent.lang import Lang
from bot.runs.admission import Ticket
from bot.store.records import Conversation

log = logging.getLogger(__name__)


@dataclass
class Active:
    key: int
    """Process-local; what the ⏹ button carries."""
    conversation: Conversation
    user_id: int | None
    """The Telegram user who asked; None: the conversation asked (an API token)."""
    run_lang: Lang
    """The run's language (agent.lang.run_lang), for texts about this run."""
    cancel: asyncio.Event = field(default_factory=asyncio.Event)
    notice: str = ""
    """Why it was stopped, when not by the asker (an admin, a restart)."""
    task: asyncio.Task[None] | None = None
    interrupted: bool = False
    """Stopped by a shutdown, not by a person: the run is stored as `interrupted`."""
    status: str | None = None
    """How the run ended (as stored), once it has; None while running, or if it failed."""
    carries: frozenset[int] = frozenset()
    """The stored runs whose text it sends the model: its thread's, then its own too."""
    run_id: int | None = None
    """Its stored run, once started."""
    ticket: Ticket | None = None
    """Its place among the runs running at once, once it has asked for one."""

    def away(self) -> contextlib.AbstractAsyncContextManager[None]:
        """For a wait on people (a vote, a pause's decision): the run's place among those
        running is another question's meanwhile (Ticket.away)."""
        return contextlib.nullcontext() if self.ticket is None else self.ticket.away()

    def stop(self, notice: str = "") -> None:
        self.notice = self.notice or notice
        self.cancel.set()

    async def ended(self) -> str | None:
        """`status`, once the run's slot is free again. Whoever waits going away does not
        stop the run: it is stored to its end all the same."""
        assert self.task is not None
        await asyncio.shield(self.task)  # never raises: ActiveRuns.run logs what it raised
        return self.status


    @property
    def asker(self) -> int | Conversation:
        """Whose one slot the run holds: the Telegram user's, or the API token's."""
        return self.conversation if self.user_id is None else self.user_id


class ActiveRuns:
    def __init__(self) -> None:
        self._by_user: dict[int | Conversation, Active] = {}
        self._by_key: dict[int, Active] = {}
        self._keys = itertools.count(1)
        self.deletions = 0
        """How many times stored runs were deleted: a run that read its thread while this
        changed reads it again (its `carries` was not yet set to be found)."""

    def forgotten(self, conversation: Conversation,
                  run_ids: Collection[int] | None) -> list[Active]:
        """Stored runs of `conversation` were deleted (None: all of them): the runs going on
        that carry any of them, or are one."""
        self.deletions += 1
        gone = None if run_ids is None else set(run_ids)
        return [active for active in self._by_key.values()
                if active.conversation == conversation and _carries(active, gone)]

    def of_user(self, user_id: int) -> Active | None:
        return self._by_user.get(user_id)

    def get(self, key: int) -> Active | None:
        return self._by_key.get(key)

    def claim(self, conversation: Conversation, user_id: int | None,
              run_lang: Lang) -> Active | None:
        """Reserve the asker's one slot; None if a question of theirs is still running."""
        active = Active(next(self._keys), conversation, user_id, run_lang)
        if active.asker in self._by_user:
            return None
        self._by_user[active.asker] = self._by_key[active.key] = active
        return active

    def run(self, active: Active, work: Coroutine[Any, Any, None]) -> None:
        """Run `work` in the background; the slot is freed when it ends."""
        async def wrapped() -> None:
            try:
                await work
            except Exception:
                log.exception("run of %s failed", active.asker)
            finally:
                self._by_user.pop(active.asker, None)
                self._by_key.pop(active.key, None)

        active.task = asyncio.create_task(wrapped())

    async def stop_all(self, notice: Callable[[Lang], str]) -> None:
        """Stop every run (a shutdown) and wait until each has delivered its final message."""
        running = list(self._by_key.values())
        for active in running:
            active.interrupted = True
            active.stop(notice(active.run_lang))
        for active in running:
            if active.task is not None:
                await active.task  # never raises: `run` logs what its work raised


def _carries(active: Active, gone: set[int] | None) -> bool:
    """Whether `active` sends the model the text of a run in `gone` (None: any run)."""
    if gone is None:
        return active.run_id is not None or bool(active.carries)
    return active.run_id in gone or bool(active.carries & gone)
