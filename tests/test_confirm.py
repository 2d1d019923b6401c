"""Walkthrough mode in the agent: proposed calls wait for a decision (run, edit, skip, stop), the
decisions are events, and the model sees what really ran; parse_edit's three forms."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from pydantic import BaseModel

from agent import Action, AgentSettings, ModelClient, Observation, RunFinished, run_react
from agent.classroom.confirm import Decision, EditError, Gate, parse_edit
from agent.events import Decided, Event, ObservationFailure, Proposed
from agent.tool import Tool
from agent.tools.calculator import Calculate
from testkit.botkit import Add
from testkit.fakes.model import FakeModel, text_reply, tool_reply


class Scripted:
    """A person who answers each proposal from a list, in order."""

    def __init__(self, *decisions: Decision) -> None:
        self.decisions = list(decisions)
        self.seen: list[tuple[Proposed, Tool | None]] = []

    async def decide(self, proposed: Proposed, tool: Tool | None) -> Decision:
        self.seen.append((proposed, tool))
        return self.decisions.pop(0)


async def run(client: ModelClient, settings: AgentSettings, gate: Gate,
              tools: Sequence[Tool] = (Add(),)) -> list[Event]:
    return [e async for e in run_react("add", client=client, settings=settings,
                                       tools=tools, gate=gate)]


def tool_messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in body["messages"] if m["role"] in ("tool", "assistant")]


async def test_run_and_edit_pause_before_the_call_and_the_model_sees_the_edited_call(
        fake_model: FakeModel, client: ModelClient, settings: AgentSettings) -> None:
    fake_model.push(tool_reply(("add", {"a": 1, "b": 2}), ("add", {"a": 5, "b": 5})),
                    text_reply("Done."))
    person = Scripted(Decision("run", "Alice"), Decision("edit", "Alice", {"a": 10, "b": 1}))
    events = await run(client, settings, Gate(person, every=True))

    kinds = [e.type for e in events if e.type in ("proposed", "decided", "action")]
    assert kinds == ["proposed", "decided", "proposed", "decided", "action", "action"]
    decided = [e for e in events if isinstance(e, Decided)]
    assert [(d.decision, d.by, d.arguments) for d in decided] == [
        ("run", "Alice", None), ("edit", "Alice", {"a": 10, "b": 1})]
    actions = [e for e in events if isinstance(e, Action)]
    assert actions[1].arguments == {"a": 10, "b": 1}
    observations = {e.call_id: e.text for e in events if isinstance(e, Observation)}
    assert sorted(observations.values()) == ["11", "3"]
    sent = tool_messages(fake_model.bodies[1])
    assert '"a": 10' in sent[0]["tool_calls"][1]["function"]["arguments"]
    assert events[-1].status == "done"  # type: ignore[attr-defined]


async def test_skip_gives_the_model_who_skipped_and_stop_ends_the_run(
        fake_model: FakeModel, client: ModelClient, settings: AgentSettings) -> None:
    fake_model.push(tool_reply(("add", {"a": 1, "b": 2})),
                    tool_reply(("add", {"a": 3, "b": 4})))
    person = Scripted(Decision("skip", "Bob"), Decision("stop", "Bob"))
    events = await run(client, settings, Gate(person, every=True))

    skipped = next(e for e in events if isinstance(e, Observation))
    assert skipped.text == "skipped by Bob" and skipped.failure is ObservationFailure.SKIPPED
    assert fake_model.bodies[1]["messages"][-1]["content"] == "skipped by Bob"
    end = events[-1]
    assert isinstance(end, RunFinished) and end.status == "cancelled"
    assert end.reason == "Stopped by Bob." and end.error_kind == "stopped"
    assert len(fake_model.bodies) == 2  # stopped before the second call ran or went back


async def test_confirm_tools_pause_only_for_those_tools(
        fake_model: FakeModel, client: ModelClient, settings: AgentSettings) -> None:
    fake_model.push(tool_reply(("add", {"a": 1, "b": 2}), ("calculate", {"expression": "2*3"})),
                    text_reply("Done."))
    person = Scripted(Decision("run", "T"))
    events = await run(client, settings, Gate(person, tools=frozenset({"calculate"})),
                       tools=(Add(), Calculate()))
    assert [p.tool for p, _ in person.seen] == ["calculate"]
    assert [e.tool for e in events if isinstance(e, Proposed)] == ["calculate"]


def test_confirm_tools_setting_takes_a_comma_list_of_known_tools(fake_model: FakeModel) -> None:
    from testkit.agentkit import agent_settings
    settings = agent_settings(fake_model.base_url, agent_confirm_tools="calculate, get_time")
    assert settings.agent_confirm_tools == frozenset({"calculate", "get_time"})
    with pytest.raises(ValueError, match="unknown tool"):
        agent_settings(fake_model.base_url, agent_confirm_tools="rm_rf")


class CityArgs(BaseModel):
    city: str
    days: int = 1


class Forecast(Tool):
    name = "forecast"
    description = "A forecast."
    Args = CityArgs

    async def run(self, args: Any) -> str:
        return args.city


@pytest.mark.parametrize(("typed", "expected"), [
    ('{"a": 1, "b": 2}', {"a": 1.0, "b": 2.0}),
    ("a=1 b=2", {"a": 1.0, "b": 2.0}),
    ("a=1, b=2.5", {"a": 1.0, "b": 2.5}),
])
def test_parse_edit_takes_json_and_key_value_pairs(typed: str, expected: dict[str, Any]) -> None:
    assert parse_edit(typed, Add(), "en") == expected


def test_parse_edit_takes_a_bare_value_for_a_one_argument_tool() -> None:
    assert parse_edit("(2+3)*4", Calculate(), "en") == {"expression": "(2+3)*4"}
    assert parse_edit('city="New York", days=3', Forecast(), "en") == {
        "city": "New York", "days": 3}
    assert parse_edit("city=New York", Forecast(), "en") == {"city": "New York"}


@pytest.mark.parametrize(("typed", "message"), [
    ("a=one b=2", "Invalid arguments for add: a: Input should be a valid number"),
    ('{"a": 1', "Not valid JSON"),
    ("[1, 2]", "Write the arguments as JSON or as key=value pairs (a, b)"),
    ("3", "Write the arguments as JSON or as key=value pairs (a, b)"),
    ("a=1", "Invalid arguments for add: b: Field required"),
])
def test_parse_edit_says_exactly_what_is_wrong(typed: str, message: str) -> None:
    with pytest.raises(EditError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_edit(typed, Add(), "en")
