"""AGENT_MODE=auto: native function calling, until the model shows it does not use it.

Many local servers accept `tools` but have no tool-call parser, and small models behind
them write their calls into the text and, given a result, write the call again. Such a
model is better served by the classic text format (agent/protocols/text_rounds.py). So auto
switches a run to it when the model writes its calls as text (a `<tool_call>` or JSON call,
run first; an Action line, asked again), re-sends a call whose result it already has, or
answers by describing a call ("I would use the `calculate` function") instead of making it,
or with a snippet of code working the question's numbers where `calculate` was at hand
(those rounds are asked again in text). The rounds so far stay in the chain and go to the
model as text-format history. Glassbox says so once per run, in a Remark.

Only calls written as text tell something of the endpoint: they are a sighting of
`Lesson.CALLS_AS_TEXT` (agent/model/endpoint_memory.py), and a proper native call is
evidence to the contrary. Prose that names a tool, code, a repeated call are this run's
business alone: a cloud model asked which tools it has answers "I can use the `calculate`
tool".
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, Literal

from agent.events import Answer, Event, Remark, Thought
from agent.model.endpoint_memory import Lesson
from agent.model.model_client import ModelClient
from agent.protocols.embedded_calls import asks_about_tools, computes_in_code, named_as_code
from agent.protocols.native import NativeRounds
from agent.protocols.rounds import CallsToRun, Rounds
from agent.protocols.text_protocol import Act, parse_reply
from agent.protocols.text_rounds import TextRounds
from agent.protocols.tool_calls import ParsedCall
from agent.words import say

log = logging.getLogger(__name__)

REMARK_KIND = "text_format"


Why = Literal["as_text", "described", "code", "repeated", "remembered"]


def text_format_remark(lang: str, why: Why = "as_text") -> str:
    """Why the run goes on in the text format: the model writes its calls as text,
    describes a call in its answer instead of making it, asked again for a call whose
    result it had, answered in code, or (`remembered`) wrote its calls as text in enough
    earlier runs that the endpoint learned it."""
    return say(lang, f"text_format_{why}")


class AutoRounds:
    """One protocol of the loop (see `agent.protocols.rounds.Rounds`) that starts native and may
    go on in text."""

    def __init__(self, client: ModelClient, native: NativeRounds,
                 make_text: Callable[[], TextRounds], lang: str, question: str,
                 source: str = "") -> None:
        """`source`: the chat asking, as the endpoint's memory counts chats."""
        self.client, self.native, self.make_text, self.lang = client, native, make_text, lang
        self.question, self.source = question, source
        self.text: TextRounds | None = None
        self._switch_after_record = False
        self._done: set[tuple[str, str]] = set()
        self._native_rounds: list[tuple[str, Sequence[ParsedCall], Sequence[str]]] = []
        self._thought = ""
        self._why: Why = "repeated"
        """Why this run left native calling: "repeated" unless an answer or a call says
        otherwise."""
        if client.memory.starts_in_text(Lesson.CALLS_AS_TEXT):
            self.text = make_text()

    @property
    def _current(self) -> Rounds:
        return self.text or self.native

    async def round(self, rnd: int) -> AsyncIterator[Event | CallsToRun]:
        if self.text is not None:
            if rnd == 1:
                yield Remark(round=rnd, kind=REMARK_KIND,
                           text=text_format_remark(self.lang, "remembered"))
            async for item in self.text.round(rnd):
                yield item
            return
        self._thought = ""
        async for item in self.native.round(rnd):
            if isinstance(item, Thought):
                self._thought = item.text
            why = self._answered_instead(item)
            if why:
                log.info("model %s answered without the call it needed (%s): text format",
                         self.client.model, why)
                self._why = why
                async for event in self._again_in_text(rnd):
                    yield event
            elif not isinstance(item, CallsToRun):
                yield item
            elif self._done and all(p.key in self._done for p in item.calls):
                log.info("model %s re-sent a call it has the result of: text format",
                         self.client.model)
                async for event in self._again_in_text(rnd):
                    yield event
            else:
                if self.native.embedded:
                    self._why = "as_text"
                    log.info("model %s writes its calls as text: text format",
                             self.client.model)
                    self._switch_after_record = True
                    yield self._remark(rnd)
                else:
                    self.client.memory.contradicted(Lesson.CALLS_AS_TEXT)
                yield item

    def _answered_instead(self, item: object) -> Why | None:
        """Why an answer given before any call is no answer: it is a call written as the
        text protocol's Action line, describes a call instead of making it (unless the
        question is about the tools), or (with `calculate` at hand) works the question's
        numbers in code."""
        if not isinstance(item, Answer) or self._done:
            return None
        reading = parse_reply(item.text)
        if isinstance(reading, Act) and reading.tool in self.native.tools:
            return "as_text"
        if named_as_code(item.text, self.native.tools) and not asks_about_tools(
                self.question, self.native.tools):
            return "described"
        if "calculate" in self.native.tools and computes_in_code(item.text, self.question):
            return "code"
        return None

    def record(self, calls: Sequence[ParsedCall], results: Sequence[str]) -> None:
        self._current.record(calls, results)
        if self.text is None:
            self._done.update(p.key for p in calls)
            self._native_rounds.append((self._thought, calls, results))
            if self._switch_after_record:
                self.text = self._text_with_history()

    def last_round(self, rnd: int) -> AsyncIterator[Event]:
        return self._current.last_round(rnd)

    def send_back(self, answer: str, message: str) -> None:
        self._current.send_back(answer, message)

    async def _again_in_text(self, rnd: int) -> AsyncIterator[Event | CallsToRun]:
        """The remark, then round `rnd` asked again in the text format."""
        self.text = self._text_with_history()
        yield self._remark(rnd)
        async for item in self.text.round(rnd):
            yield item

    def _remark(self, rnd: int) -> Remark:
        if self._why == "as_text":
            self.client.memory.saw(Lesson.CALLS_AS_TEXT, self.source)
        return Remark(round=rnd, kind=REMARK_KIND, text=text_format_remark(self.lang, self._why))

    def _text_with_history(self) -> TextRounds:
        """Text rounds that carry the native rounds so far, written in the text format."""
        text = self.make_text()
        for thought, calls, results in self._native_rounds:
            for i, (parsed, result) in enumerate(zip(calls, results, strict=True)):
                said = f"Thought: {thought}\n" if thought and not i else ""
                text.messages.append({"role": "assistant", "content":
                                      f"{said}Action: {parsed.call.name}"
                                      f"[{_input(parsed.arguments)}]"})
                text.record((parsed,), (result,))
        return text


def _input(arguments: dict[str, Any] | str) -> str:
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False)
