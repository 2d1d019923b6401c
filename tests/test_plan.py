"""Planning end to end against the fake model server: the plan call, its fallbacks, and
the Plan event opening the run."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent import AgentSettings, Answer, ModelClient, RunStarted
from agent.events import Plan, PlannedAction, event_from_dict
from testkit.agentkit import agent_settings
from testkit.fakes.model import FakeModel, error, text_reply, tool_reply
from tests.test_loop import Weather, events_of, of, react

PLAN = {"steps": [{"tool": "get_weather", "why": "Need the current weather in Paris."},
                  {"tool": "finish", "why": "Answer with the temperature."}]}


def plan_reply(value: Any) -> Any:
    return text_reply(value if isinstance(value, str) else json.dumps(value), usage=(30, 10))


async def test_plan_opens_the_run_and_guides_the_loop(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    fake_model.push(plan_reply(PLAN), tool_reply(("get_weather", {"city": "Paris"})),
                    text_reply("Paris: 21°C."))
    events = await events_of(react("Paris weather?", client, settings, [Weather()],
                                   planner=True))
    assert [e.type for e in events[:3]] == ["run_started", "plan", "note"]
    plan = events[1]
    assert isinstance(plan, Plan) and plan.round == 0
    assert plan.actions == (PlannedAction("get_weather", "Need the current weather in Paris."),
                          PlannedAction("finish", "Answer with the temperature."))
    asked = fake_model.bodies[0]
    assert asked["temperature"] == 0
    assert asked["response_format"] == {"type": "json_object"}
    assert "tools" not in asked
    assert "get_weather: Current weather of a city." in asked["messages"][0]["content"]
    assert asked["messages"][-1] == {"role": "user", "content": "Paris weather?"}
    system = fake_model.bodies[1]["messages"][0]["content"]
    assert "1. get_weather: Need the current weather in Paris." in system
    assert "response_format" not in fake_model.bodies[1]
    assert of(events, Answer)[0].text == "Paris: 21°C."
    assert events[-1].usage.total_tokens == 40 + 95 + 70  # the plan call counts


async def test_planner_setting_and_override(fake_model: FakeModel) -> None:
    settings = agent_settings(fake_model.base_url, agent_planner=True)
    fake_model.push(plan_reply(PLAN), text_reply("Hi."), text_reply("Hi again."))
    client = ModelClient(settings)
    try:
        planned = await events_of(react("Hi", client, settings, [Weather()]))
        unplanned = await events_of(react("Hi", client, settings, [Weather()], planner=False))
    finally:
        await client.close()
    assert len(of(planned, Plan)) == 1 and of(unplanned, Plan) == []
    assert len(fake_model.bodies) == 3


async def test_endpoint_refusing_response_format_is_asked_again_without(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    refused = {"error": {"message": "'response_format.type' json_object is not supported by "
                         "this model", "type": "invalid_request_error", "param": None,
                         "code": "invalid_parameter_error"}}
    fake_model.push(error(refused, 400), plan_reply("```json\n" + json.dumps(PLAN) + "\n```"),
                    text_reply("Done."))
    events = await events_of(react("Paris?", client, settings, [Weather()], planner=True))
    assert len(of(events, Plan)[0].actions) == 2
    assert "response_format" in fake_model.bodies[0]
    assert "response_format" not in fake_model.bodies[1]
    assert fake_model.bodies[1]["temperature"] == 0


@pytest.mark.parametrize("reply", [
    "I would first check the weather, then answer.",
    {"steps": [{"tool": "search_web", "why": "no such tool"}]},
    {"steps": [{"tool": "get_weather", "why": str(i)} for i in range(9)]},
    {"steps": []},
    {"plan": "check weather"},
])
async def test_a_bad_plan_is_dropped_and_the_run_goes_on(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings, reply: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake_model.push(plan_reply(reply), text_reply("Answered anyway."))
    events = await events_of(react("Paris?", client, settings, [Weather()], planner=True))
    assert of(events, Plan) == []
    assert of(events, Answer)[0].text == "Answered anyway."
    assert events[-1].status == "done"
    assert "plan dropped" in caplog.text
    assert "Your plan" not in fake_model.bodies[1]["messages"][0]["content"]


async def test_failed_plan_call_is_logged_and_the_run_goes_on(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    fake_model.push(error("openai/error_500_server_error.json", 500), text_reply("Fine."))
    events = await events_of(react("Hi", client, settings, [Weather()], planner=True))
    assert of(events, Plan) == [] and of(events, Answer)[0].text == "Fine."


async def test_plan_in_text_mode(fake_model: FakeModel) -> None:
    settings = agent_settings(fake_model.base_url, agent_mode="text")
    fake_model.push(plan_reply(PLAN), text_reply("Thought: plan says weather\n"
                                                 "Action: get_weather[Paris]"),
                    text_reply("Final Answer: 21°C."))
    client = ModelClient(settings)
    try:
        events = await events_of(react("Paris?", client, settings, [Weather()], planner=True))
    finally:
        await client.close()
    assert [e.type for e in events[:5]] == [
        "run_started", "plan", "thought", "action", "observation"]
    system = fake_model.bodies[1]["messages"][0]["content"]
    assert "Action: tool_name[input]" in system and "2. finish:" in system


def test_plan_event_round_trips_through_json() -> None:
    plan = Plan(round=0, actions=(PlannedAction("get_weather", "why"), PlannedAction("finish")))
    data = json.loads(json.dumps(plan.to_dict(), ensure_ascii=False))
    assert data["type"] == "plan" and data["steps"][1] == {"tool": "finish", "why": ""}
    assert event_from_dict(data) == plan
    started = RunStarted(round=0, mode="react", question="q", model="m", tools=("a",))
    assert event_from_dict(json.loads(json.dumps(started.to_dict()))) == started
