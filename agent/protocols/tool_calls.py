"""Runs the tool calls of a round: parse, validate, cap, run under a timeout, bound,
de-duplicate.

Only the first AGENT_MAX_CALLS_PER_ROUND calls of a round run (a `Batch`); each call past
the cap is answered "not run" for the model, and the chain shows one Observation for them all.

Every failure becomes the text of an observation the model can react to, marked with
its ObservationFailure; only cancellation propagates. A repeated call is not run again:
it gets the first call's text and failure, with a remark.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from pydantic import ValidationError

from agent.events import Action, Event, Observation, ObservationFailure
from agent.model.model_client import ToolCall
from agent.prompts import loop_stop_remark, not_run_remark, not_run_result, repeated_remark
from agent.run_task import RunStats
from agent.tool import RUN_LANG, Tool, ToolError, UpstreamError
from agent.words import say

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ParsedCall:
    call: ToolCall
    arguments: dict[str, Any] | str
    """The JSON object the model sent, or its raw text if that was not a JSON object."""
    error: str = ""

    @property
    def key(self) -> tuple[str, str]:
        """What makes two calls identical: the tool and its canonical arguments."""
        args = self.arguments
        canon = args if isinstance(args, str) else json.dumps(args, sort_keys=True)
        return (self.call.name, canon)

    def wire_arguments(self) -> str:
        """Arguments re-serialised for history: a malformed string replayed makes some
        servers answer 400, so an unparsable one goes back as an empty object."""
        args = self.arguments if isinstance(self.arguments, dict) else {}
        return json.dumps(args, ensure_ascii=False)


def parse_call(call: ToolCall, lang: str) -> ParsedCall:
    text = call.arguments.strip() or "{}"
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return ParsedCall(call, call.arguments, say(lang, "call_bad_json", error=exc))
    if not isinstance(value, dict):
        return ParsedCall(call, call.arguments, say(lang, "call_not_object"))
    return ParsedCall(call, value)


def validation_problems(exc: ValidationError) -> str:
    """What is wrong with arguments, field by field, as the model and a person read it."""
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}"
                     for e in exc.errors(include_url=False))


@dataclass(frozen=True, slots=True)
class Batch:
    """A round's calls split at the cap: the first `cap` run, the rest are not run."""

    run: tuple[ParsedCall, ...]
    not_run: tuple[ParsedCall, ...]
    cap: int

    @classmethod
    def of(cls, calls: Sequence[ParsedCall], cap: int) -> Batch:
        return cls(tuple(calls[:cap]), tuple(calls[cap:]), cap)

    @property
    def calls(self) -> tuple[ParsedCall, ...]:
        """All of the round's calls, in the model's order."""
        return self.run + self.not_run

    def results(self, ran: dict[str, str], lang: str) -> list[str]:
        """What the model is sent for every call, in call order (each tool_call id must get
        one, or the next request is invalid): the observations of those that ran, by call
        id, then "not run" for each of the rest."""
        return ([ran[p.call.id] for p in self.run]
                + [not_run_result(lang, self.cap)] * len(self.not_run))


class _Result(NamedTuple):
    """What running a call once gave: the observation text, and why it failed (None: ok)."""

    text: str
    failure: ObservationFailure | None


@dataclass
class ToolRunner:
    """Runs calls for one run, remembering results so an identical call is not run twice."""

    tools: dict[str, Tool]
    lang: str
    timeout_s: float
    max_chars: int
    _done: dict[tuple[str, str], asyncio.Task[_Result]] = field(default_factory=dict)
    _seen: dict[tuple[str, str], int] = field(default_factory=dict)

    def count(self, calls: Sequence[ParsedCall]) -> list[int]:
        """Register calls; return, for each, how many identical calls came before it."""
        counts = []
        for parsed in calls:
            n = self._seen.get(parsed.key, 0)
            self._seen[parsed.key] = n + 1
            counts.append(n)
        return counts

    async def run(self, parsed: ParsedCall, earlier: int
                  ) -> tuple[str, ObservationFailure | None, int]:
        """Text, failure (None: ok) and duration in ms of the observation for one call."""
        started = time.monotonic()
        task = self._done.get(parsed.key)
        if task is None:
            task = asyncio.create_task(self._run_once(parsed))
            self._done[parsed.key] = task
        text, failure = await asyncio.shield(task)
        if earlier:
            remark = repeated_remark(self.lang) if earlier == 1 else loop_stop_remark(self.lang)
            text = f"{remark}\n{text}"
        return text, failure, int((time.monotonic() - started) * 1000)

    async def _run_once(self, parsed: ParsedCall) -> _Result:
        name = parsed.call.name
        tool = self.tools.get(name)
        if tool is None:
            names = ", ".join(self.tools) or "-"
            return _Result(say(self.lang, "call_unknown_tool", name=name, names=names),
                           ObservationFailure.UNKNOWN_TOOL)
        if parsed.error:
            return _Result(parsed.error, ObservationFailure.BAD_ARGUMENTS)
        arguments = parsed.arguments
        if isinstance(arguments, dict) and RUN_LANG in tool.Args.model_fields:
            arguments = {**arguments, RUN_LANG: self.lang}
        try:
            args = tool.Args.model_validate(arguments)
        except ValidationError as exc:
            problems = validation_problems(exc)
            return _Result(say(self.lang, "invalid_arguments", tool=name, problems=problems),
                           ObservationFailure.BAD_ARGUMENTS)
        try:
            text = await asyncio.wait_for(tool.run(args), self.timeout_s)
        except UpstreamError as exc:
            return _Result(str(exc), ObservationFailure.UPSTREAM_ERROR)
        except ToolError as exc:
            return _Result(str(exc), ObservationFailure.TOOL_ERROR)
        except TimeoutError:
            return _Result(say(self.lang, "call_timed_out", name=name, seconds=self.timeout_s),
                           ObservationFailure.TIMEOUT)
        except Exception as exc:
            log.exception("tool %s raised", name)
            return _Result(say(self.lang, "call_failed", name=name, error=type(exc).__name__),
                           ObservationFailure.TOOL_ERROR)
        return _Result(self._bound(text), None)

    def _bound(self, text: str) -> str:
        if len(text) <= self.max_chars:
            return text
        cut = len(text) - self.max_chars
        return text[: self.max_chars] + say(self.lang, "call_cut", cut=cut)

    async def aclose(self) -> None:
        """Cancel anything still running (the run was cancelled)."""
        pending = [t for t in self._done.values() if not t.done()]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)


def names_of(tools: Sequence[Tool]) -> dict[str, Tool]:
    return {tool.name: tool for tool in tools}


async def act(
    batch: Batch,
    earlier: Sequence[int],
    runner: ToolRunner,
    rnd: int,
    stats: RunStats,
    skipped: Mapping[str, str] | None = None,
) -> AsyncIterator[Event]:
    """Actions of the calls that run, one NOT_RUN Observation for the calls past the cap,
    then Observations as each call finishes (the calls run concurrently). `skipped`: calls
    a person skipped (call id: the observation instead), never run."""
    calls = batch.run
    for parsed in calls:
        stats.tool_calls += 1
        yield Action(round=rnd, call_id=parsed.call.id, tool=parsed.call.name,
                     arguments=parsed.arguments)
    if batch.not_run:
        first = batch.not_run[0].call
        yield Observation(round=rnd, call_id=first.id, tool=first.name,
                          text=not_run_remark(runner.lang, len(batch.not_run), batch.cap),
                          ok=False, duration_ms=0, failure=ObservationFailure.NOT_RUN)

    async def one(parsed: ParsedCall, n: int) -> Observation:
        if skipped and parsed.call.id in skipped:
            return Observation(round=rnd, call_id=parsed.call.id, tool=parsed.call.name,
                               text=skipped[parsed.call.id], ok=False, duration_ms=0,
                               failure=ObservationFailure.SKIPPED)
        text, failure, ms = await runner.run(parsed, n)
        return Observation(round=rnd, call_id=parsed.call.id, tool=parsed.call.name,
                           text=text, ok=failure is None, duration_ms=ms, failure=failure)

    tasks = [asyncio.create_task(one(p, n)) for p, n in zip(calls, earlier, strict=True)]
    try:
        for next_done in asyncio.as_completed(tasks):
            yield await next_done
    finally:
        for task in tasks:
            task.cancel()
