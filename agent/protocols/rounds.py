"""What a protocol of the loop provides (`Rounds`), and how a round asks for tools.

Native function calling (agent/protocols/native.py) and the classic text format
(agent/protocols/text_rounds.py) implement `Rounds`; agent/loop.py drives them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from agent.events import Event
from agent.grounding.sides import Sides
from agent.prompts import language_line
from agent.protocols.tool_calls import ParsedCall

if TYPE_CHECKING:
    from agent.model.model_client import ModelClient
    from agent.run_task import RunStats
    from agent.tool import Tool


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

    def send_back(self, answer: str, message: str) -> None:
        """Add the model's `answer` and Glassbox's `message` about it to the history: the
        next round asks again (agent/grounding/send_back.py)."""


class ProtocolState:
    """What a protocol keeps for one run: the model, the conversation so far, the tools, the
    run's language and statistics, and the sides of a comparing question (the model is told
    which are still missing: in the text format, and natively when it writes its calls as
    text)."""

    def __init__(self, client: ModelClient, messages: list[dict[str, Any]],
                 tools: Mapping[str, Tool], lang: str, stats: RunStats,
                 sides: Sides | None = None) -> None:
        self.client, self.messages, self.tools = client, messages, tools
        self.lang, self.stats = lang, stats
        self.sides = sides or Sides("")

    def send_back(self, answer: str, message: str) -> None:
        self.messages.append({"role": "assistant", "content": self.answered(answer)})
        self.messages.append({"role": "user",
                              "content": message + "\n" + language_line(self.lang)})

    def answered(self, answer: str) -> str:
        """An answer as this protocol's history writes the model's reply."""
        return answer
