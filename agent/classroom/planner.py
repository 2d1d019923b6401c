"""Planning: one separate call, before acting, for a JSON plan of at most 8 actions.

The plan is advice, not a contract: a plan that cannot be had, parsed or validated is
dropped (logged) and the run goes on without one.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field, ValidationError, ValidationInfo, field_validator

from agent.events import Plan, PlannedAction
from agent.model.model_client import ModelClient, complete
from agent.model.model_errors import ModelError
from agent.protocols.text_protocol import clean_input
from agent.run_task import RunStats
from agent.tool import Tool

log = logging.getLogger(__name__)

MAX_ACTIONS = 8

PLAN_SYSTEM = """You plan how to answer a question before anyone acts on it.
Available tools:
{tools}

Reply with one JSON object and nothing else:
{{"steps": [{{"tool": "<a tool name or finish>", "why": "<one short sentence>"}}]}}
At most {most} steps, in order; the last step is "finish" (answer the question).
Use only the tools above, and none at all if the question needs none."""


class _Action(BaseModel):
    tool: str
    why: str = ""


class _Plan(BaseModel):
    """The plan as the model writes it: its actions under "steps", the word of the prompt."""

    steps: list[_Action] = Field(min_length=1, max_length=MAX_ACTIONS)

    @field_validator("steps")
    @classmethod
    def _known(cls, steps: list[_Action], info: ValidationInfo) -> list[_Action]:
        names = (info.context or {}).get("tools", ())
        unknown = [s.tool for s in steps if s.tool != "finish" and s.tool not in names]
        if unknown:
            raise ValueError(f"unknown tools {unknown}")
        return steps


async def make_plan(
    messages: list[dict[str, Any]],
    client: ModelClient,
    tools: Mapping[str, Tool],
    stats: RunStats,
) -> Plan | None:
    """Ask for a plan. `messages` are the run's opening (history and question); the
    system prompt is replaced by the planner's. The call's usage counts in `stats`."""
    listing = "\n".join(f"- {t.name}: {t.description}" for t in tools.values()) or "(none)"
    system = PLAN_SYSTEM.format(tools=listing, most=MAX_ACTIONS)
    asked = [{"role": "system", "content": system}, *messages[1:]]
    try:
        try:
            text = await _complete(client, asked, stats, response_format={"type": "json_object"})
        except ModelError as err:
            if err.status != 400:
                raise
            log.info("endpoint refused response_format (%s); asking for the plan without it",
                     err.kind)
            text = await _complete(client, asked, stats)
    except ModelError as err:
        log.warning("no plan: the plan call failed: %s", err)
        return None
    actions = parse_plan(text, tools)
    return None if actions is None else Plan(round=0, actions=actions)


def parse_plan(text: str, tools: Mapping[str, Tool]) -> tuple[PlannedAction, ...] | None:
    """The validated actions of a plan reply, or None (logged) if it is not a valid plan."""
    try:
        value = json.loads(clean_input(text))
        if isinstance(value, list):
            value = {"steps": value}
        plan = _Plan.model_validate(value, context={"tools": tools})
    except (json.JSONDecodeError, ValidationError) as exc:
        log.warning("plan dropped: %s", str(exc).splitlines()[0])
        return None
    return tuple(PlannedAction(tool=s.tool, why=s.why.strip()) for s in plan.steps)


def plan_remark(plan: Plan) -> str:
    """The plan as a short remark for the loop's system prompt, so the model follows it."""
    lines = [f"{i}. {s.tool}: {s.why}" if s.why else f"{i}. {s.tool}"
             for i, s in enumerate(plan.actions, 1)]
    return "Your plan for this question (adapt it if an observation calls for it):\n" + (
        "\n".join(lines))


async def _complete(client: ModelClient, messages: Sequence[dict[str, Any]], stats: RunStats,
                    **extra: Any) -> str:
    done = await complete(client, list(messages), temperature=0, **extra)
    if done is None:
        return ""
    stats.usage = stats.usage + done.usage
    return done.content
