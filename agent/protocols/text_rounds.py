"""Rounds over the classic ReAct text protocol, for models without function calling.

The model writes `Thought:` and `Action: tool[input]` and stops; the loop runs the tool
and answers with `Observation: ...` as a user message. The answer streams once its
label is seen. A reply that cannot be read gets one corrective message; a second one
ends the run with the raw text as the answer, marked unparsed.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from agent.events import Answer, AnswerDelta, Event, Thought
from agent.model.model_client import (
    Completion,
    ContentDelta,
    ModelError,
    ModelErrorKind,
    ToolCall,
)
from agent.prompts import language_line, limit_message
from agent.protocols.embedded_calls import extract_calls
from agent.protocols.rounds import CallsToRun, ProtocolState
from agent.protocols.text_protocol import (
    STOP,
    Act,
    Final,
    ParsedReply,
    Unparsed,
    answer_start,
    arguments_for,
    correction,
    cut_observation,
    mend,
    parse_reply,
)
from agent.protocols.tool_calls import ParsedCall, parse_call, validation_problems
from agent.tool import Tool
from agent.words import say

log = logging.getLogger(__name__)

_HELD = ("observation", "观察")


@dataclass(frozen=True, slots=True)
class _Reply:
    text: str
    """The model's text, cut at a model-written Observation."""
    reasoning: str
    reading: ParsedReply
    streamed: str
    """The part of the answer already sent as AnswerDeltas."""
    thought_sent: bool
    """The answer's label was seen while streaming (and the Thought, if any, sent)."""


class TextRounds(ProtocolState):
    """One protocol of the loop (see `agent.protocols.rounds.Rounds`)."""

    async def round(self, rnd: int) -> AsyncIterator[Event | CallsToRun]:
        reply: _Reply  # each _call's last item
        for attempt in (1, 2):
            async for item in self._call(rnd):
                if isinstance(item, _Reply):
                    reply = item
                else:
                    yield item
            if not isinstance(reply.reading, Unparsed) or attempt == 2:
                break
            log.info("text-mode reply not parsed (%s); asking once more", reply.reading.problem)
            self.messages.append({"role": "assistant", "content": reply.text or "…"})
            self.messages.append({"role": "user", "content": correction(self.lang)})
        reading = reply.reading
        if isinstance(reading, Act):
            tool = self.tools.get(reading.tool)
            args = arguments_for(reading.input, tool)
            wire = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
            parsed = parse_call(ToolCall(f"call_text_{rnd}", reading.tool, wire), self.lang)
            problem = _problem(args, tool, self.lang) if tool is not None else ""
            if problem:
                assert tool is not None
                parsed = ParsedCall(parsed.call, args, mend(tool, reading.input, problem,
                                                             self.lang))
            text = reading.thought or reply.reasoning
            if text:
                yield Thought(round=rnd, text=text)
            self.messages.append({"role": "assistant", "content": reply.text})
            yield CallsToRun((parsed,))
            return
        async for event in self._finish(rnd, reply):
            yield event

    def record(self, calls: Sequence[ParsedCall], results: Sequence[str]) -> None:
        missing = self.sides.after((p.wire_arguments() for p in calls), results, self.lang)
        self.messages.append({"role": "user", "content": "\n".join(
            [*(f"Observation: {text}" for text in results), *missing,
             language_line(self.lang)])})

    def answered(self, answer: str) -> str:
        return f"Final Answer: {answer}"

    async def last_round(self, rnd: int) -> AsyncIterator[Event]:
        self.messages.append({"role": "user", "content": limit_message(self.lang)
                              + say(self.lang, "final_answer_start")})
        reply: _Reply  # _call's last item
        async for item in self._call(rnd):
            if isinstance(item, _Reply):
                reply = item
            else:
                yield item
        async for event in self._finish(rnd, reply):
            yield event

    async def _finish(self, rnd: int, reply: _Reply) -> AsyncIterator[Event]:
        """The answer events for a reply that ends the run (read or not)."""
        reading = reply.reading
        if isinstance(reading, Final):
            answer, unparsed, thought = reading.answer, False, reading.thought
        else:
            answer, unparsed, thought = reply.text, True, ""
        if not answer:
            raise ModelError(ModelErrorKind.EMPTY)
        if not reply.thought_sent and (thought or reply.reasoning):
            yield Thought(round=rnd, text=thought or reply.reasoning)
        rest = answer[len(reply.streamed):] if answer.startswith(reply.streamed) else answer
        if rest:
            yield AnswerDelta(round=rnd, text=rest)
        yield Answer(round=rnd, text=answer, unparsed=unparsed)

    async def _call(self, rnd: int) -> AsyncIterator[Event | _Reply]:
        """One model call; streams the Thought and the answer once an answer label is seen,
        then yields the whole reply."""
        parts: list[str] = []
        reasoning: list[str] = []
        start: int | None = None
        sent = ""
        done: Completion | None = None
        async for item in self.client.stream(self.messages, stop=STOP):
            if isinstance(item, Completion):
                self.stats.usage = self.stats.usage + item.usage
                done = item
            elif isinstance(item, ContentDelta):
                parts.append(item.text)
                text = cut_observation("".join(parts))
                if start is None:
                    found = answer_start(text)
                    if found is None:
                        continue
                    thought, start = found
                    thought = thought or "".join(reasoning).strip()
                    if thought:
                        yield Thought(round=rnd, text=thought)
                body = _settled(text[start:])
                if len(body) > len(sent) and body.startswith(sent):
                    yield AnswerDelta(round=rnd, text=body[len(sent):])
                    sent = body
            else:
                reasoning.append(item.text)
        assert done is not None  # the client always ends with a Completion
        text = cut_observation(done.content).strip()
        yield _Reply(text, done.reasoning.strip(), self._read(text), sent, start is not None)

    def _read(self, text: str) -> ParsedReply:
        """The reply's reading; an answer that is a tool call's JSON (as models used to
        native calling write) is that call, or, restated with its result, unreadable."""
        reading = parse_reply(text)
        if not isinstance(reading, Final):
            return reading
        found = extract_calls(reading.answer, self.tools)
        if found.calls:
            call = found.calls[0]
            return Act(reading.thought or found.rest, call.name, call.arguments)
        if found.restated:
            return Final(reading.thought, found.rest) if found.rest else Unparsed(
                "a tool call restated with its result")
        return reading


def _problem(args: dict[str, Any] | str, tool: Tool, lang: str) -> str:
    """Why `tool` cannot use `args` (empty when it can)."""
    if isinstance(args, str):
        return say(lang, "text_input_unreadable")
    try:
        tool.Args.model_validate(args)
    except ValidationError as exc:
        return validation_problems(exc)
    return ""


def _settled(body: str) -> str:
    """The part of a growing answer safe to show: without a last line that may be the
    start of a model-written `Observation:` still being generated."""
    body = body.strip()
    head, sep, last = body.rpartition("\n")
    word = last.strip(" \t>*#_`-").lower()
    if sep and any(w.startswith(word) or word.startswith(w) for w in _HELD):
        return head.rstrip()
    return body
