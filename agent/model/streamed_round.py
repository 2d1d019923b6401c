"""One model call read as a round's events: the reasoning as ThoughtDeltas, the text as
AnswerDeltas when it is the answer whatever comes, else as neutral TextDeltas up to a
written `<tool_call>` (a call, never shown as prose). The protocols' rounds and the answer
model both stream through it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from agent.events import Answer, AnswerDelta, Event, TextDelta, Thought, ThoughtDelta
from agent.model.model_client import Completion, ContentDelta, ModelClient, ReasoningDelta
from agent.model.model_errors import ModelError, ModelErrorKind
from agent.run_task import RunStats

TOOL_CALL_TAG = "<tool_call>"


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
