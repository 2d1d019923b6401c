"""What a protocol of the loop provides (`Rounds`), and how a round asks for tools.

Native function calling (agent/native.py) and the classic text format
(agent/text_rounds.py) implement `Rounds`; agent/loop.py drives them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from agent.events import Event
from agent.tool_calls import ParsedCall


@dataclass(frozen=True, slots=True)
class CallsToRun:
    """The last item of a round whose model asked for tools instead of answering: the
    calls, in the model's order. Not an event: the loop turns it into Actions."""

    calls: tuple[ParsedCall, ...]


class Rounds(Protocol):
    """How one protocol runs a round, records tool results and asks for a last answer."""

    def round(self, rnd: int) -> AsyncIterator[Event | CallsToRun]:
        """Yield the round's events; end with CallsToRun if the model asked for tools
        (else the round answered, and its last event is the Answer)."""

    def record(self, calls: Sequence[ParsedCall], results: Sequence[str]) -> None:
        """Add the calls and their results (in call order) to the history."""

    def last_round(self, rnd: int) -> AsyncIterator[Event]:
        """Ask, without tools, for the best answer (after the round cap or a loop)."""
