"""Walkthrough mode in a chat: a run pauses at each proposed action until the asker or an admin
taps ▶ Run, ✏️ Edit (and replies with new arguments), ⏭ Skip or ⏹ Stop under its message.

A pause that nobody answers within PAUSE_TIMEOUT_S ends the run as stopped, saying why.
The buttons carry the run's key and the pause's number, so a tap on an earlier pause's
buttons is stale rather than a decision about this one.
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field

from agent.classroom.confirm import Decision
from agent.events import Proposed
from agent.lang import Lang
from agent.tool import Tool


@dataclass
class Pause:
    """One proposed action waiting for a decision."""

    number: int
    run_key: int
    chat_id: int
    asker_id: int
    asker_name: str
    run_lang: Lang
    """The run's language, for the words about the run."""
    proposed: Proposed
    tool: Tool | None
    decision: asyncio.Future[Decision] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future())

    @property
    def open(self) -> bool:
        return not self.decision.done()

    def fields(self) -> list[str]:
        """The argument names a person may set (the question's language is the tool's)."""
        return [] if self.tool is None else list(self.tool.fields())

    def resolve(self, decision: Decision) -> bool:
        """Decide, once; False if it was decided (or given up) already."""
        if not self.open:
            return False
        self.decision.set_result(decision)
        return True


class Pauses:
    """The pauses waiting now: by run, and by the message that asks for new arguments."""

    def __init__(self) -> None:
        self._by_run: dict[int, Pause] = {}
        self._prompts: dict[tuple[int, int], Pause] = {}
        self._numbers = itertools.count(1)

    def next_number(self) -> int:
        return next(self._numbers)

    def of_run(self, run_key: int) -> Pause | None:
        return self._by_run.get(run_key)

    def asking(self, chat_id: int, message_id: int) -> Pause | None:
        """The open pause whose edit question is message `message_id`, if any."""
        pause = self._prompts.get((chat_id, message_id))
        return pause if pause is not None and pause.open else None

    def add(self, pause: Pause) -> None:
        self._by_run[pause.run_key] = pause

    def ask(self, pause: Pause, message_ids: list[int]) -> None:
        """The messages asking for `pause`'s new arguments: a reply to one is an edit."""
        for message_id in message_ids:
            self._prompts[pause.chat_id, message_id] = pause

    def remove(self, pause: Pause) -> None:
        if self._by_run.get(pause.run_key) is pause:
            del self._by_run[pause.run_key]
        for key in [k for k, p in self._prompts.items() if p is pause]:
            del self._prompts[key]
