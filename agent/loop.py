"""The ReAct loop (and the plain, no-tools run) as async generators of events.

A round is one model call. If the model asks for tools: Thought, then an Action and an
Observation for each call (run concurrently), and the results go back to the model. If
it does not: Thought and the Answer, streamed. The loop stops at the round cap or at a
call repeated a third time, and then asks once more, without tools, for the best answer.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any

from agent.events import Action, Answer, AnswerDelta, Event, Observation, RunStarted, Thought
from agent.executor import ParsedCall, ToolRunner, names_of, parse_call
from agent.lang import detect_lang
from agent.model import Completion, ContentDelta, ModelClient, ModelError
from agent.prompts import (
    SYSTEM_PLAIN,
    SYSTEM_REACT,
    Turn,
    final_thought,
    history_messages,
    limit_message,
    limit_thought,
    tool_thought,
)
from agent.runner import RunStats, drive
from agent.settings import AgentSettings
from agent.tool import Tool


def run_react(
    question: str,
    *,
    client: ModelClient,
    settings: AgentSettings,
    tools: Sequence[Tool] = (),
    history: Sequence[Turn] = (),
    cancel: asyncio.Event | None = None,
) -> AsyncIterator[Event]:
    """Answer `question` with tools, yielding every step as it happens."""
    lang = detect_lang(question)
    stats = RunStats()
    steps = _react(question, client, settings, tools, history, lang, stats)
    return drive(steps, stats, lang, cancel)


def run_plain(
    question: str,
    *,
    client: ModelClient,
    settings: AgentSettings,
    history: Sequence[Turn] = (),
    cancel: asyncio.Event | None = None,
) -> AsyncIterator[Event]:
    """Answer `question` with the model alone, yielding the same events."""
    lang = detect_lang(question)
    stats = RunStats()
    steps = _plain(question, client, settings, history, lang, stats)
    return drive(steps, stats, lang, cancel)


async def _plain(
    question: str,
    client: ModelClient,
    settings: AgentSettings,
    history: Sequence[Turn],
    lang: str,
    stats: RunStats,
) -> AsyncIterator[Event]:
    yield RunStarted(round=0, mode="plain", question=question, model=client.model)
    messages = _opening(SYSTEM_PLAIN, question, history, settings)
    try:
        stats.rounds = 1
        async for event in _answer_round(client, messages, 1, stats, thought=None):
            yield event
    except ModelError as err:
        yield stats.finished("error", err.reason(lang), err.kind)
        return
    yield stats.finished("done")


async def _react(
    question: str,
    client: ModelClient,
    settings: AgentSettings,
    tools: Sequence[Tool],
    history: Sequence[Turn],
    lang: str,
    stats: RunStats,
) -> AsyncIterator[Event]:
    toolmap = names_of(tools)
    schemas = [tool.schema() for tool in tools]
    yield RunStarted(round=0, mode="react", question=question, model=client.model,
                     tools=tuple(toolmap))
    messages = _opening(SYSTEM_REACT, question, history, settings)
    runner = ToolRunner(toolmap, lang, settings.tool_timeout_s, settings.max_observation_chars)
    status = "done"
    try:
        for rnd in range(1, settings.agent_max_rounds + 1):
            stats.rounds = rnd
            box: list[Completion] = []
            drafted = False
            async for event in _stream(client, messages, rnd, stats, schemas, box,
                                       final_thought(lang, observed=rnd > 1)):
                drafted = drafted or isinstance(event, AnswerDelta)
                yield event
            done = box[0]
            if not done.tool_calls:
                yield _answer(done, rnd)
                break
            calls = [parse_call(call, lang) for call in done.tool_calls]
            if drafted or not done.reasoning:  # else the reasoning was this round's Thought
                text = done.reasoning or done.content.strip()
                yield Thought(round=rnd, text=text or tool_thought(
                    lang, [(c.call.name, c.arguments) for c in calls]), synthesized=not text)
            looping = False
            async for event in _act(calls, runner, rnd, stats, messages, done.content):
                looping = looping or event is _LOOPING
                if isinstance(event, Event):
                    yield event
            if looping:
                status = "max_rounds"
                break
        else:
            status = "max_rounds"
        if status == "max_rounds":
            stats.rounds += 1
            messages.append({"role": "user", "content": limit_message(lang)})
            async for event in _answer_round(client, messages, stats.rounds, stats,
                                             thought=limit_thought(lang),
                                             tools=schemas, tool_choice="none"):
                yield event
    except ModelError as err:
        yield stats.finished("error", err.reason(lang), err.kind)
        return
    finally:
        await runner.aclose()
    yield stats.finished(status)


_LOOPING = object()


async def _act(
    calls: list[ParsedCall],
    runner: ToolRunner,
    rnd: int,
    stats: RunStats,
    messages: list[dict[str, Any]],
    content: str,
) -> AsyncIterator[object]:
    """Actions, then Observations as each call finishes; history gets both, in call order."""
    earlier = [runner.count(parsed) for parsed in calls]
    for parsed in calls:
        stats.tool_calls += 1
        yield Action(round=rnd, call_id=parsed.call.id, tool=parsed.call.name,
                     arguments=parsed.arguments)
    messages.append({
        "role": "assistant",
        "content": content or None,
        "tool_calls": [
            {"id": p.call.id, "type": "function",
             "function": {"name": p.call.name, "arguments": p.wire_arguments()}}
            for p in calls
        ],
    })
    results: dict[str, str] = {}

    async def one(parsed: ParsedCall, n: int) -> Observation:
        text, ok, ms = await runner.run(parsed, n)
        results[parsed.call.id] = text
        return Observation(round=rnd, call_id=parsed.call.id, tool=parsed.call.name,
                           text=text, ok=ok, duration_ms=ms)

    tasks = [asyncio.create_task(one(p, n)) for p, n in zip(calls, earlier, strict=True)]
    try:
        for next_done in asyncio.as_completed(tasks):
            yield await next_done
    finally:
        for task in tasks:
            task.cancel()
    for parsed in calls:
        messages.append({"role": "tool", "tool_call_id": parsed.call.id,
                         "content": results[parsed.call.id]})
    if any(n >= 2 for n in earlier):
        yield _LOOPING


async def _stream(
    client: ModelClient,
    messages: list[dict[str, Any]],
    rnd: int,
    stats: RunStats,
    schemas: list[dict[str, Any]] | None,
    box: list[Completion],
    answering_thought: str | None,
    **extra: Any,
) -> AsyncIterator[Event]:
    """One model call. Yields this round's Thought once it is known and the answer as it
    streams; puts the Completion in `box`. A model's reasoning is the best Thought."""
    reasoning: list[str] = []
    thought_sent = False
    async for item in client.stream(messages, tools=schemas, **extra):
        if isinstance(item, Completion):
            stats.usage = stats.usage + item.usage
            if item.tool_calls and item.reasoning and not thought_sent:
                yield Thought(round=rnd, text=item.reasoning)
            box.append(item)
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


async def _answer_round(
    client: ModelClient,
    messages: list[dict[str, Any]],
    rnd: int,
    stats: RunStats,
    thought: str | None,
    tools: list[dict[str, Any]] | None = None,
    **extra: Any,
) -> AsyncIterator[Event]:
    """A call whose text is the answer, whatever else the model sends."""
    box: list[Completion] = []
    async for event in _stream(client, messages, rnd, stats, tools, box, thought, **extra):
        yield event
    yield _answer(box[0], rnd)


def _answer(done: Completion, rnd: int) -> Answer:
    text = done.content.strip()
    if not text:
        raise ModelError("empty")
    return Answer(round=rnd, text=text)


def _opening(system: str, question: str, history: Sequence[Turn],
             settings: AgentSettings) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": system},
        *history_messages(history, settings.history_max_chars),
        {"role": "user", "content": question},
    ]
