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

from agent.events import Event, Thought
from agent.grounding.sides import Sides
from agent.model.model_client import Completion, ModelClient, ToolCall
from agent.model.streamed_round import TOOL_CALL_TAG, answer_round, final_answer, stream_round
from agent.prompts import language_line, limit_message
from agent.protocols.embedded_calls import extract_calls
from agent.protocols.rounds import CallsToRun, ProtocolState
from agent.protocols.text_protocol import protocol_free
from agent.protocols.tool_calls import ParsedCall, parse_call
from agent.run_task import RunStats
from agent.tool import Tool

_CALL_NAME = re.compile(r'"name"\s*+:\s*+"([^"\\]{1,64})"')


class NativeRounds(ProtocolState):
    """One protocol of the loop (see `agent.protocols.rounds.Rounds`)."""

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
        # The text beside a written call may be the template's own tags: no thought, and
        # not to be written back to the model as its own ("Thought: <tools></tools>").
        words = "\n\n".join(part for part in (done.reasoning.strip(), protocol_free(content))
                            if part)
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
