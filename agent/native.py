"""Rounds over native function calling: tools go in the request, calls come back in
`tool_calls` (or, from servers without a tool parser, written into the text).

What a round's text is becomes known only when its stream ends: it streams as neutral
TextDeltas and becomes the round's Thought if tool calls came, the Answer if not. Text from a
written `<tool_call>` on is held back (it is a call, never shown as prose), and a written
call that cannot be read is a failed call the model hears about, never the answer.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from agent.embedded_calls import extract_calls
from agent.events import Answer, AnswerDelta, Event, TextDelta, Thought, ThoughtDelta
from agent.model import Completion, ContentDelta, ModelClient, ReasoningDelta, ToolCall
from agent.model_errors import ModelError, ModelErrorKind
from agent.prompts import language_line, limit_message
from agent.rounds import CallsToRun, ProtocolState
from agent.run_task import RunStats
from agent.sides import Sides
from agent.tool import Tool
from agent.tool_calls import ParsedCall, parse_call

TOOL_CALL_TAG = "<tool_call>"
_CALL_NAME = re.compile(r'"name"\s*+:\s*+"([^"\\]{1,64})"')


class NativeRounds(ProtocolState):
    """One protocol of the loop (see `agent.rounds.Rounds`)."""

    def __init__(self, client: ModelClient, messages: list[dict[str, Any]],
                 tools: Mapping[str, Tool], lang: str, stats: RunStats,
                 sides: Sides | None = None) -> None:
        super().__init__(client, messages, tools, lang, stats, sides)
        self.schemas = [tool.schema() for tool in tools.values()]
        self._content = ""
        self.embedded = False
        """Whether the last round's calls were written into the text (no tool parser)."""

    async def round(self, rnd: int) -> AsyncIterator[Event | CallsToRun]:
        done: Completion  # stream_round's last item
        async for item in stream_round(self.client, self.messages, rnd, self.stats,
                                       self.schemas, answering=False):
            if isinstance(item, Completion):
                done = item
            else:
                yield item
        raw, content, self.embedded = done.tool_calls, done.content, False
        if not raw:
            found = extract_calls(done.content, self.tools)
            # A restatement alone is the model asking again (the runner has the result).
            calls = found.calls or (found.restated if not found.rest else [])
            if calls:
                raw, content, self.embedded = tuple(calls), found.rest, True
            else:
                if found.restated:
                    content = found.rest
                if TOOL_CALL_TAG in content:  # written, unreadable: still not the answer
                    content, _, body = content.partition(TOOL_CALL_TAG)
                    raw, self.embedded = (unreadable_call(body),), True
        if not raw:
            if done.reasoning.strip():
                yield Thought(round=rnd, text=done.reasoning.strip())
            yield final_answer(content, rnd)
            return
        parsed = [parse_call(call, self.lang) for call in raw]
        words = "\n\n".join(part for part in (done.reasoning.strip(), content.strip()) if part)
        if words:
            yield Thought(round=rnd, text=words)
        self._content = done.content
        yield CallsToRun(tuple(parsed))

    def record(self, calls: Sequence[ParsedCall], results: Sequence[str]) -> None:
        if self.embedded:  # answer in kind, as Qwen's chat template renders tool results
            missing = self.sides.after((p.wire_arguments() for p in calls), results,
                                       self.lang)
            self.messages.append({"role": "assistant", "content": self._content})
            self.messages.append({"role": "user", "content": "\n".join(
                [*(f"<tool_response>\n{text}\n</tool_response>" for text in results),
                 *missing, language_line(self.lang)])})
            return
        self.messages.append({
            "role": "assistant",
            "content": self._content or None,
            "tool_calls": [
                {"id": p.call.id, "type": "function",
                 "function": {"name": p.call.name, "arguments": p.wire_arguments()}}
                for p in calls
            ],
        })
        for parsed, text in zip(calls, results, strict=True):
            self.messages.append({"role": "tool", "tool_call_id": parsed.call.id,
                                  "content": text})

    async def last_round(self, rnd: int) -> AsyncIterator[Event]:
        self.messages.append({"role": "user", "content": limit_message(self.lang)})
        async for event in answer_round(self.client, self.messages, rnd, self.stats,
                                        tools=self.schemas, tool_choice="none"):
            yield event


def unreadable_call(body: str) -> ToolCall:
    """A `<tool_call>` whose JSON could not be read, as the call it tried to be: its name
    if one can be seen, its text as the arguments (which then fail to parse, and the
    model is told so in the observation)."""
    body = body.partition("</tool_call>")[0].strip()
    named = _CALL_NAME.search(body)
    return ToolCall("call_text_0", named[1] if named else "tool_call", body or "{")


async def stream_round(
    client: ModelClient,
    messages: list[dict[str, Any]],
    rnd: int,
    stats: RunStats,
    schemas: list[dict[str, Any]] | None,
    *,
    answering: bool,
    **extra: Any,
) -> AsyncIterator[Event | Completion]:
    """One model call: the reasoning as ThoughtDeltas, the text as AnswerDeltas if it is
    the answer whatever comes (`answering`), else as TextDeltas up to a written
    `<tool_call>`; then the Completion."""
    content = ""
    shown = 0
    held = False
    async for item in client.stream(messages, tools=schemas, **extra):
        if isinstance(item, Completion):
            stats.usage = stats.usage + item.usage
            yield item
        elif isinstance(item, ReasoningDelta):
            yield ThoughtDelta(round=rnd, text=item.text)
        elif isinstance(item, ContentDelta):
            if answering:
                yield AnswerDelta(round=rnd, text=item.text)
                continue
            content += item.text
            if held:
                continue
            end, held = _showable(content, shown)
            if end > shown:
                yield TextDelta(round=rnd, text=content[shown:end])
                shown = end


def _showable(content: str, shown: int) -> tuple[int, bool]:
    """How far `content` may be shown (nothing from a `<tool_call>` on, nor a tail that
    may be its start), and whether a tag was found. Searched from `shown` only: nothing
    before it can start a tag, so a long reply is read once."""
    at = content.find(TOOL_CALL_TAG, shown)
    if at >= 0:
        return at, True
    for keep in range(min(len(TOOL_CALL_TAG) - 1, len(content) - shown), 0, -1):
        if TOOL_CALL_TAG.startswith(content[-keep:]):
            return len(content) - keep, False
    return len(content), False


async def answer_round(
    client: ModelClient,
    messages: list[dict[str, Any]],
    rnd: int,
    stats: RunStats,
    tools: list[dict[str, Any]] | None = None,
    **extra: Any,
) -> AsyncIterator[Event]:
    """A call whose text is the answer, whatever else the model sends."""
    done: Completion  # stream_round's last item
    async for item in stream_round(client, messages, rnd, stats, tools, answering=True,
                                   **extra):
        if isinstance(item, Completion):
            done = item
        else:
            yield item
    if done.reasoning.strip():
        yield Thought(round=rnd, text=done.reasoning.strip())
    yield final_answer(done.content, rnd)


def final_answer(content: str, rnd: int) -> Answer:
    text = content.strip()
    if not text:
        raise ModelError(ModelErrorKind.EMPTY)
    return Answer(round=rnd, text=text)
