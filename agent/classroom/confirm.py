"""A human in the loop: the actions a person confirms, edits, skips or stops before they run.

The loop hands each tool call that needs a confirmation (every call in walkthrough mode, and the
AGENT_CONFIRM_TOOLS always) to a `Confirmer`, one by one in the model's order, before any
of the round's calls runs. What was proposed and what was decided are events (Proposed,
Decided), so every front end shows and stores them. A front end asks in its own way: the
terminal (agent/terminal_confirm.py), Telegram's buttons (bot/runs/pauses.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol

from pydantic import ValidationError

from agent.classroom.quiz_vote import Poller
from agent.events import Decided, Event, Proposed
from agent.model.model_client import ToolCall
from agent.protocols.tool_calls import ParsedCall, validation_problems
from agent.tool import Tool
from agent.words import say
from wire.wire_errors import GlassboxError

DecisionKind = Literal["run", "edit", "skip", "stop"]


@dataclass(frozen=True, slots=True)
class Decision:
    kind: DecisionKind
    by: str = ""
    """Who decided (a name to show); empty when nobody did (a timeout)."""
    arguments: dict[str, Any] | None = None
    """The new arguments of an edit, already validated by the tool's schema."""
    reason: str = ""
    """Why the run stops, fit to show (a stop)."""


class Confirmer(Protocol):
    async def decide(self, proposed: Proposed, tool: Tool | None) -> Decision:
        """Ask whether the proposed call runs; `tool` is None when no such tool is on offer."""


class StopRun(GlassboxError):
    """A person stopped the run at a proposed action (or nobody decided in time)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class Reviewed:
    """A round's calls after review: edited arguments in place, and the skipped calls with
    the observation the model gets instead of a result."""

    calls: list[ParsedCall]
    skipped: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Gate:
    """Which calls need a confirmation, and who gives it; and in quiz mode, who votes before
    each round (agent/classroom/quiz_vote.py)."""

    confirmer: Confirmer | None
    every: bool = False
    """Walkthrough mode: every call pauses."""
    tools: frozenset[str] = frozenset()
    """AGENT_CONFIRM_TOOLS: these always pause."""
    poller: Poller | None = None
    """Quiz mode: the class predicts each round before the model is asked."""

    def needs(self, tool: str) -> bool:
        return self.confirmer is not None and (self.every or tool in self.tools)

    async def review(self, reviewed: Reviewed, rnd: int, tools: dict[str, Tool],
                     lang: str) -> AsyncIterator[Event]:
        """Propose each call that needs it and apply the decision; StopRun on a stop."""
        for index, parsed in enumerate(reviewed.calls):
            name, call_id = parsed.call.name, parsed.call.id
            if not self.needs(name):
                continue
            proposed = Proposed(round=rnd, call_id=call_id, tool=name,
                                arguments=parsed.arguments)
            yield proposed
            assert self.confirmer is not None  # needs() says so
            decision = await self.confirmer.decide(proposed, tools.get(name))
            yield Decided(round=rnd, call_id=call_id, tool=name, decision=decision.kind,
                          by=decision.by, arguments=decision.arguments, reason=decision.reason)
            if decision.kind == "stop":
                raise StopRun(decision.reason or say(lang, "stopped_by", by=decision.by))
            if decision.kind == "skip":
                reviewed.skipped[call_id] = skipped_text(lang, decision.by)
            elif decision.kind == "edit" and decision.arguments is not None:
                reviewed.calls[index] = edited(parsed, decision.arguments)


def skipped_text(lang: str, by: str) -> str:
    """The observation of a skipped call: who skipped it."""
    return say(lang, "skipped_by", by=by)


def edited(parsed: ParsedCall, arguments: dict[str, Any]) -> ParsedCall:
    """The call with a person's arguments instead of the model's."""
    call = ToolCall(parsed.call.id, parsed.call.name,
                    json.dumps(arguments, ensure_ascii=False))
    return replace(parsed, call=call, arguments=arguments, error="")


class EditError(GlassboxError, ValueError):
    """New arguments that do not fit: the message says exactly why, to show the person."""


_KEY = re.compile(r"\b([A-Za-z_]\w*)[ \t]*=")
_SEPARATORS = " \t\r\n,;"


def parse_edit(typed: str, tool: Tool | None, lang: str) -> dict[str, Any]:
    """New arguments as a person types them: a JSON object, `key=value` pairs (`a=1, b=2`,
    as the chain shows them), or, for a tool of one argument, the bare value. Validated by
    the tool's own schema; EditError says what is wrong."""
    if tool is None:
        raise EditError(say(lang, "edit_no_tool"))
    text = typed.strip()
    fields = list(tool.fields())
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise EditError(say(lang, "edit_bad_json", error=exc)) from None
        except RecursionError:
            raise EditError(say(lang, "edit_too_deep")) from None
        if not isinstance(value, dict):
            raise EditError(say(lang, "edit_not_object"))
        arguments = value
    else:
        pairs = _pairs(text, set(tool.fields()))
        if pairs is not None:
            arguments = pairs
        elif len(fields) == 1 and text:
            arguments = {fields[0]: _value(text)}
        else:
            names = ", ".join(fields) or "-"
            raise EditError(say(lang, "edit_how", names=names))
    try:
        valid = tool.Args.model_validate(arguments)
    except ValidationError as exc:
        problems = validation_problems(exc)
        raise EditError(say(lang, "invalid_arguments", tool=tool.name, problems=problems)
                        ) from None
    return {key: _tidy(value)
            for key, value in valid.model_dump(mode="json", exclude_unset=True).items()}


def _tidy(value: Any) -> Any:
    """13.0 as 13: the schema made a typed "13" a float; the chain shows what was typed."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _pairs(text: str, names: set[str]) -> dict[str, Any] | None:
    """`key=value` pairs whose keys are all the tool's; None if the text is not that."""
    starts = [m for m in _KEY.finditer(text) if m.group(1) in names
              and (m.start() == 0 or text[m.start() - 1] in _SEPARATORS)]
    if not starts or starts[0].start() != 0:
        return None
    pairs: dict[str, Any] = {}
    for match, following in zip(starts, [*starts[1:], None], strict=True):
        end = following.start() if following is not None else len(text)
        pairs[match.group(1)] = _value(text[match.end():end].strip().rstrip(",;").strip())
    return pairs


def _value(raw: str) -> Any:
    """A quoted string, list or object as JSON; anything else as the text (the schema
    turns "2" into a number where a number is wanted)."""
    if raw[:1] in ('"', "[", "{"):
        try:
            return json.loads(raw)
        except (json.JSONDecodeError, RecursionError):
            return raw
    return raw
