"""Rounds over native function calling: tools go in the request, calls come back in
`tool_calls` (or, from servers without a tool parser, written into the text)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from agent.embedded_calls import extract_calls
from agent.events import Answer, AnswerDelta, Event, Thought
from agent.executor import ParsedCall, parse_call
from agent.model import Completion, ContentDelta, ModelClient
from agent.model_errors import ModelError, ModelErrorKind
from agent.prompts import (
    final_thought,
    language_lines,
    limit_message,
    limit_thought,
    tool_thought,
)
from agent.rounds import CallsToRun
from agent.runner import RunStats
from agent.tool import Tool


class NativeRounds:
    """One protocol of the loop (see `agent.rounds.Rounds`)."""

    def __init__(self, client: ModelClient, messages: list[dict[str, Any]],
                 tools: Mapping[str, Tool], lang: str, stats: RunStats) -> None:
        self.client, self.messages, self.tools = client, messages, tools
        self.lang, self.stats = lang, stats
        self.schemas = [tool.schema() for tool in tools.values()]
        self._content = ""
        self.embedded = False
        """Whether the last round's calls were written into the text (no tool parser)."""

    async def round(self, rnd: int) -> AsyncIterator[Event | CallsToRun]:
        done: Completion  # stream_round's last item
        drafted = False
        async for item in stream_round(self.client, self.messages, rnd, self.stats,
                                       self.schemas, final_thought(self.lang, observed=rnd > 1)):
            if isinstance(item, Completion):
                done = item
            else:
                drafted = drafted or isinstance(item, AnswerDelta)
                yield item
        raw, content, self.embedded = done.tool_calls, done.content, False
        if not raw:
            found = extract_calls(done.content, self.tools)
            # A restatement alone is the model asking again (the runner has the result).
            calls = found.calls or (found.restated if not found.rest else [])
            if calls:
                raw, content, self.embedded = tuple(calls), found.rest, True
            elif found.restated:
                content = found.rest
        if not raw:
            yield final_answer(content, rnd)
            return
        parsed = [parse_call(call, self.lang) for call in raw]
        if drafted or not done.reasoning:  # else the reasoning was this round's Thought
            text = done.reasoning or content.strip()
            yield Thought(round=rnd, text=text or tool_thought(
                self.lang, [(c.call.name, c.arguments) for c in parsed]), synthesized=not text)
        self._content = done.content
        yield CallsToRun(tuple(parsed))

    def record(self, calls: Sequence[ParsedCall], results: Sequence[str]) -> None:
        if self.embedded:  # answer in kind, as Qwen's chat template renders tool results
            self.messages.append({"role": "assistant", "content": self._content})
            self.messages.append({"role": "user", "content": "\n".join(
                [*(f"<tool_response>\n{text}\n</tool_response>" for text in results),
                 *language_lines(self.lang)])})
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
                                        thought=limit_thought(self.lang),
                                        tools=self.schemas, tool_choice="none"):
            yield event


async def stream_round(
    client: ModelClient,
    messages: list[dict[str, Any]],
    rnd: int,
    stats: RunStats,
    schemas: list[dict[str, Any]] | None,
    answering_thought: str | None,
    **extra: Any,
) -> AsyncIterator[Event | Completion]:
    """One model call. Yields this round's Thought once it is known and the answer as it
    streams, then the Completion. A model's reasoning is the best Thought."""
    reasoning: list[str] = []
    thought_sent = False
    async for item in client.stream(messages, tools=schemas, **extra):
        if isinstance(item, Completion):
            stats.usage = stats.usage + item.usage
            if item.tool_calls and item.reasoning and not thought_sent:
                yield Thought(round=rnd, text=item.reasoning)
            yield item
        elif isinstance(item, ContentDelta):
            if not thought_sent:
                thought_sent = True
                if reasoning:
                    yield Thought(round=rnd, text="".join(reasoning))
                elif answering_thought:
                    yield Thought(round=rnd, text=answering_thought, synthesized=True)
            yield AnswerDelta(round=rnd, text=item.text)
        else:
            reasoning.append(item.text)


async def answer_round(
    client: ModelClient,
    messages: list[dict[str, Any]],
    rnd: int,
    stats: RunStats,
    thought: str | None,
    tools: list[dict[str, Any]] | None = None,
    **extra: Any,
) -> AsyncIterator[Event]:
    """A call whose text is the answer, whatever else the model sends."""
    done: Completion  # stream_round's last item
    async for item in stream_round(client, messages, rnd, stats, tools, thought, **extra):
        if isinstance(item, Completion):
            done = item
        else:
            yield item
    yield final_answer(done.content, rnd)


def final_answer(content: str, rnd: int) -> Answer:
    text = content.strip()
    if not text:
        raise ModelError(ModelErrorKind.EMPTY)
    return Answer(round=rnd, text=text)
