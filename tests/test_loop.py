"""The ReAct loop end to end against the fake model server: every rule of the agent core."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterable
from typing import Any

import pytest
from pydantic import BaseModel, Field

from agent import (
    Action,
    AgentSettings,
    Answer,
    AnswerDelta,
    Event,
    ModelClient,
    Observation,
    RunFinished,
    RunStarted,
    Thought,
    Tool,
    ToolError,
    Turn,
    run_plain,
    run_react,
)
from agent.events import ObservationFailure, Remark, TextDelta
from testkit.agentkit import agent_settings
from testkit.fakes.model import DashScope, FakeModel, error, sse, text_reply, tool_reply


class CityArgs(BaseModel):
    city: str = Field(description="City name")


class Weather(Tool):
    name = "get_weather"
    description = "Current weather of a city."
    Args = CityArgs

    def __init__(self) -> None:
        self.calls: list[str] = []

    async def run(self, args: CityArgs) -> str:
        self.calls.append(args.city)
        if args.city == "Atlantis":
            raise ToolError("No place named Atlantis found.")
        return f"{args.city}: 21°C, clear"


class SlowArgs(BaseModel):
    seconds: float


class Slow(Tool):
    """Waits; records whether it was cancelled."""

    name = "slow"
    description = "Waits a while."
    Args = SlowArgs

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.cancelled = False

    async def run(self, args: SlowArgs) -> str:
        self.started.set()
        try:
            await asyncio.sleep(args.seconds)
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        return "waited"


class Broken(Tool):
    name = "broken"
    description = "Always raises."
    Args = CityArgs

    async def run(self, args: CityArgs) -> str:
        raise RuntimeError("boom")


class Meeting(Tool):
    """Two calls must be inside at the same time, or the first waits in vain."""

    name = "meet"
    description = "Meets another call."
    Args = CityArgs

    def __init__(self) -> None:
        self.inside = 0
        self.both = asyncio.Event()

    async def run(self, args: CityArgs) -> str:
        self.inside += 1
        if self.inside == 2:
            self.both.set()
        await asyncio.wait_for(self.both.wait(), 2)
        return f"met in {args.city}"


async def events_of(stream: AsyncIterator[Event]) -> list[Event]:
    return [event async for event in stream]


def react(question: str, client: ModelClient, settings: AgentSettings, tools: list[Tool],
          **kw: Any) -> AsyncIterator[Event]:
    return run_react(question, client=client, settings=settings, tools=tools, **kw)


def of(events: list[Event], kind: type[Event]) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def squeezed(items: Iterable[Any]) -> list[Any]:
    """`items` with each run of equal neighbours as one: a streamed text comes as one delta
    for each network read, however many chunks that read held (agent/model/model_client.py)."""
    out: list[Any] = []
    for item in items:
        if not out or out[-1] != item:
            out.append(item)
    return out


async def test_several_rounds(fake_model: FakeModel, client: ModelClient,
                              settings: AgentSettings) -> None:
    weather = Weather()
    fake_model.push(
        tool_reply(("get_weather", {"city": "Paris"})),
        tool_reply(("get_weather", {"city": "Berlin"})),
        text_reply("Paris is 21°C and **clear**; Berlin too."),
    )
    events = await events_of(react("Weather in Paris and Berlin?", client, settings, [weather]))
    assert squeezed(e.type for e in events) == [  # the deltas: as many as reads of the stream
        "run_started",
        "note", "action", "observation",
        "note", "action", "observation",
        "text_delta", "note", "answer",
        "run_finished",
    ]
    assert squeezed(e.round for e in events if not isinstance(e, RunStarted | RunFinished)) \
        == [1, 2, 3]
    assert weather.calls == ["Paris", "Berlin"]
    answer = of(events, Answer)[0]
    assert answer.text == "Paris is 21°C and **clear**; Berlin too."
    assert "".join(d.text for d in of(events, TextDelta)) == answer.text
    done = events[-1]
    assert isinstance(done, RunFinished)
    assert (done.status, done.rounds, done.tool_calls) == ("done", 3, 2)
    assert done.usage.total_tokens == 95 + 95 + 70
    # The model saw its own call, re-serialised, and the observation.
    second = fake_model.bodies[1]
    assert second["tools"][0]["function"]["name"] == "get_weather"
    assert second["tools"][0]["function"]["parameters"]["properties"]["city"]["type"] == "string"
    assistant, tool_msg = second["messages"][-2:]
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"city": "Paris"}
    assert tool_msg == {"role": "tool", "tool_call_id": assistant["tool_calls"][0]["id"],
                        "content": "Paris: 21°C, clear"}


async def test_a_round_without_reasoning_gets_glassbox_s_note_not_a_thought(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    fake_model.push(tool_reply(("get_weather", {"city": "杭州"})), text_reply("杭州 21°C。"))
    events = await events_of(react("杭州天气怎么样？", client, settings, [Weather()]))
    assert of(events, Thought) == []
    first, final = of(events, Remark)
    assert (first.round, first.kind) == (1, "no_reasoning")
    assert first.text == "模型没有写出思考过程，直接调用了 get_weather。"
    assert (final.round, final.text) == (2, "模型作答前没有写出思考过程。")


async def test_reasoning_content_is_the_thought(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    fake_model.push(
        tool_reply(("get_weather", {"city": "Oslo"}), reasoning="I need Oslo's weather."),
        text_reply("Oslo: clear.", reasoning="The observation says clear."),
    )
    events = await events_of(react("Oslo weather?", client, settings, [Weather()]))
    thoughts = of(events, Thought)
    assert [(t.text, t.synthesized) for t in thoughts] == [
        ("I need Oslo's weather.", False), ("The observation says clear.", False)]
    # The thought comes before the action and before the answer.
    kinds = [e.type for e in events]
    assert kinds.index("thought") < kinds.index("action")


async def test_text_with_tool_calls_supersedes_draft(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    fake_model.push(
        tool_reply(("get_weather", {"city": "Rome"}), content="Let me check Rome."),
        text_reply("Rome: sunny."),
    )
    events = await events_of(react("Rome weather?", client, settings, [Weather()]))
    round_one = [e for e in events if e.round == 1]
    assert [e.type for e in round_one] == ["text_delta", "thought", "action", "observation"]
    assert round_one[1].text == "Let me check Rome." and not round_one[1].synthesized
    assert of(events, AnswerDelta) == []  # text before tool calls is never the answer
    assert of(events, Answer)[0].text == "Rome: sunny."


async def test_parallel_calls_run_concurrently(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    meet = Meeting()
    fake_model.push(tool_reply(("meet", {"city": "Lyon"}), ("meet", {"city": "Nice"})),
                    text_reply("Both met."))
    events = await events_of(react("Meet twice", client, settings, [meet]))
    kinds = [e.type for e in events if e.round == 1]
    assert kinds == ["note", "action", "action", "observation", "observation"]
    observations = of(events, Observation)
    assert sorted(o.text for o in observations) == ["met in Lyon", "met in Nice"]
    assert all(o.ok and o.failure is None for o in observations)
    tool_messages = [m for m in fake_model.bodies[1]["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in tool_messages] == ["met in Lyon", "met in Nice"]


async def test_round_cap_asks_once_without_tools(fake_model: FakeModel) -> None:
    settings = agent_settings(fake_model.base_url, agent_max_rounds=2)
    fake_model.push(tool_reply(("get_weather", {"city": "A"})),
                    tool_reply(("get_weather", {"city": "B"})),
                    text_reply("Best I can say: A and B are mild."))
    client = ModelClient(settings)
    try:
        events = await events_of(react("Keep going", client, settings, [Weather()]))
    finally:
        await client.close()
    done = events[-1]
    assert isinstance(done, RunFinished)
    assert (done.status, done.rounds) == ("max_rounds", 3)
    assert of(events, Answer)[0].text == "Best I can say: A and B are mild."
    last = fake_model.bodies[2]
    assert last["tool_choice"] == "none"
    assert "tool rounds" in last["messages"][-1]["content"]
    forced = of(events, Remark)[-1]
    assert (forced.round, forced.kind) == (3, "forced_answer")
    assert "all 2 tool rounds" in forced.text
    assert {d.round for d in of(events, AnswerDelta)} == {3}  # without tools: the answer
    assert "".join(d.text for d in of(events, AnswerDelta)) == of(events, Answer)[0].text


async def test_repeated_call_is_not_run_again_and_third_ends_loop(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    weather = Weather()
    same = ("get_weather", {"city": "Lima"})
    fake_model.push(tool_reply(same), tool_reply(same), tool_reply(same),
                    text_reply("Lima is 21°C."))
    native = settings.model_copy(update={"agent_mode": "native"})  # auto would switch format
    events = await events_of(react("Lima?", client, native, [weather]))
    assert weather.calls == ["Lima"]
    first, second, third = of(events, Observation)
    assert first.text == "Lima: 21°C, clear"
    assert "identical to an earlier one" in second.text and second.text.endswith(first.text)
    assert "third time" in third.text
    done = events[-1]
    assert isinstance(done, RunFinished)
    assert done.status == "max_rounds" and len(fake_model.bodies) == 4
    assert fake_model.bodies[3]["tool_choice"] == "none"


async def test_bad_json_arguments_become_observation(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    fake_model.push(tool_reply(("get_weather", '{"city": "Par')), text_reply("Sorry."))
    events = await events_of(react("Paris?", client, settings, [Weather()]))
    (action,) = of(events, Action)
    assert action.arguments == '{"city": "Par'
    (obs,) = of(events, Observation)
    assert not obs.ok and "not valid JSON" in obs.text
    assert obs.failure is ObservationFailure.BAD_ARGUMENTS
    # Replayed history carries valid JSON, not the malformed text.
    replayed = fake_model.bodies[1]["messages"][-2]["tool_calls"][0]["function"]["arguments"]
    assert replayed == "{}"


async def test_schema_error_is_exact(fake_model: FakeModel, client: ModelClient,
                                     settings: AgentSettings) -> None:
    fake_model.push(tool_reply(("get_weather", {"town": "Paris"})), text_reply("Hmm."))
    events = await events_of(react("Paris?", client, settings, [Weather()]))
    (obs,) = of(events, Observation)
    assert (obs.ok, obs.failure) == (False, ObservationFailure.BAD_ARGUMENTS)
    assert obs.text == "Invalid arguments for get_weather: city: Field required"


async def test_unknown_tool_lists_real_ones(fake_model: FakeModel, client: ModelClient,
                                            settings: AgentSettings) -> None:
    fake_model.push(tool_reply(("get_wether", {"city": "Paris"})), text_reply("Ok."))
    events = await events_of(react("Paris?", client, settings, [Weather(), Broken()]))
    (obs,) = of(events, Observation)
    assert (obs.ok, obs.failure) == (False, ObservationFailure.UNKNOWN_TOOL)
    assert obs.text == ("There is no tool named 'get_wether'. Available tools: get_weather, "
                        "broken. If the question needs no tool, answer it now.")


async def test_tool_error_raise_and_timeout(fake_model: FakeModel) -> None:
    settings = agent_settings(fake_model.base_url, tool_timeout_s=0.2)
    fake_model.push(
        tool_reply(("get_weather", {"city": "Atlantis"}), ("broken", {"city": "x"}),
                   ("slow", {"seconds": 30})),
        text_reply("Nothing worked."),
    )
    client = ModelClient(settings)
    try:
        events = await events_of(react("Try all", client, settings,
                                       [Weather(), Broken(), Slow()]))
    finally:
        await client.close()
    by_tool = {o.tool: o for o in of(events, Observation)}
    assert by_tool["get_weather"].text == "No place named Atlantis found."
    assert by_tool["broken"].text == "broken failed: RuntimeError"
    assert by_tool["slow"].text == "slow timed out after 0.2 s."
    assert not any(o.ok for o in by_tool.values())
    assert {name: o.failure for name, o in by_tool.items()} == {
        "get_weather": ObservationFailure.TOOL_ERROR, "broken": ObservationFailure.TOOL_ERROR,
        "slow": ObservationFailure.TIMEOUT}
    assert isinstance(events[-1], RunFinished) and events[-1].status == "done"


async def test_huge_observation_is_bounded(fake_model: FakeModel) -> None:
    class Huge(Tool):
        name = "huge"
        description = "Returns a lot."
        Args = CityArgs

        async def run(self, args: CityArgs) -> str:
            return "x" * 50_000

    settings = agent_settings(fake_model.base_url, max_observation_chars=1000)
    fake_model.push(tool_reply(("huge", {"city": "a"})), text_reply("Done."))
    client = ModelClient(settings)
    try:
        events = await events_of(react("Huge", client, settings, [Huge()]))
    finally:
        await client.close()
    (obs,) = of(events, Observation)
    assert obs.text.startswith("x" * 1000) and obs.text.endswith("(49000 more characters cut)")


@pytest.mark.parametrize(
    ("reply", "kind", "words"),
    [
        (error("dashscope/error_401_invalid_api_key.json", 401), "auth", "API key"),
        (error("dashscope/error_429_limit_requests.json", 429), "rate_limit", "busy"),
        (error("openai/error_500_server_error.json", 500), "server", "error"),
        (error("openai/error_400_context_length_exceeded.json", 400), "context_length", "long"),
    ],
)
async def test_model_failure_ends_run_with_reason(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings, reply: Any, kind: str,
    words: str,
) -> None:
    fake_model.push(reply)
    events = await events_of(react("Hello?", client, settings, [Weather()]))
    done = events[-1]
    assert isinstance(done, RunFinished)
    assert (done.status, done.error_kind) == ("error", kind)
    assert type(done.error_kind) is str  # the plain string stored runs hold, not the enum
    assert words in done.reason
    assert "sk-" not in done.reason and "Incorrect API key" not in done.reason


async def test_failure_after_a_round_keeps_the_chain(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    fake_model.push(tool_reply(("get_weather", {"city": "Oslo"})),
                    error("openai/error_500_server_error.json", 500))
    events = await events_of(react("Oslo?", client, settings, [Weather()]))
    assert [e.type for e in events] == [
        "run_started", "note", "action", "observation", "run_finished"]
    assert events[-1].status == "error" and events[-1].tool_calls == 1


async def test_empty_reply_is_an_error(fake_model: FakeModel, client: ModelClient,
                                       settings: AgentSettings) -> None:
    ds = DashScope()
    fake_model.push(sse([ds.chunk({"content": "", "role": "assistant"}),
                         ds.chunk({}, finish="stop"), ds.usage(5, 0)]))
    events = await events_of(react("Hello?", client, settings, [Weather()]))
    assert events[-1].status == "error" and events[-1].error_kind == "empty"


async def nothing_left_running() -> None:
    """Assert that no task but this test's is left, once asyncio has closed abandoned async
    generators. The openai SDK leaves a finished stream's generators open (about ten nested,
    down through httpx and httpcore); asyncio's finalizer closes them one per loop pass."""
    await asyncio.sleep(0)
    others = asyncio.all_tasks() - {asyncio.current_task()}
    closing = {t for t in others if type(t.get_coro()).__name__ == "async_generator_athrow"}
    assert others == closing, others - closing
    for _ in range(100):
        if asyncio.all_tasks() == {asyncio.current_task()}:
            return
        await asyncio.sleep(0)
    raise AssertionError(f"still running: {asyncio.all_tasks()}")


async def test_cancel_event_stops_tools_and_leaves_nothing_running(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    slow = Slow()
    cancel = asyncio.Event()
    fake_model.push(tool_reply(("slow", {"seconds": 30})))
    events: list[Event] = []
    async for event in react("Wait", client, settings, [slow], cancel=cancel):
        events.append(event)
        if isinstance(event, Action):
            await slow.started.wait()
            cancel.set()
    done = events[-1]
    assert isinstance(done, RunFinished) and done.status == "cancelled"
    assert done.tool_calls == 1
    assert slow.cancelled
    await nothing_left_running()


async def test_cancelling_the_consumer_leaves_nothing_running(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    slow = Slow()
    fake_model.push(tool_reply(("slow", {"seconds": 30})))

    async def consume() -> None:
        async for _ in react("Wait", client, settings, [slow]):
            pass

    task = asyncio.create_task(consume())
    await asyncio.wait_for(slow.started.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert slow.cancelled
    await nothing_left_running()


async def test_cancel_during_model_stream(fake_model: FakeModel, client: ModelClient,
                                          settings: AgentSettings) -> None:
    cancel = asyncio.Event()
    fake_model.push(sse(DashScope().text("a slow answer", pieces=4), delay=1.0))
    events: list[Event] = []
    async for event in react("Slow", client, settings, [Weather()], cancel=cancel):
        events.append(event)
        if isinstance(event, TextDelta):
            cancel.set()
    assert events[-1].status == "cancelled"
    assert "".join(d.text for d in of(events, TextDelta)) != "a slow answer"


async def test_plain_run_sends_no_tools(fake_model: FakeModel, client: ModelClient,
                                        settings: AgentSettings) -> None:
    fake_model.push(text_reply("I cannot know today's weather."))
    events = await events_of(run_plain("Weather?", client=client, settings=settings))
    assert squeezed(e.type for e in events) == [
        "run_started", "answer_delta", "answer", "run_finished"]
    assert events[0].mode == "plain"
    assert "tools" not in fake_model.bodies[0]
    assert events[-1].status == "done" and events[-1].rounds == 1


async def test_history_is_sent_and_trimmed(fake_model: FakeModel) -> None:
    settings = agent_settings(fake_model.base_url, history_max_chars=40)
    history = [Turn("old question " * 5, "old answer"), Turn("What is 2+2?", "4")]
    fake_model.push(text_reply("8"))
    client = ModelClient(settings)
    try:
        await events_of(run_plain("And doubled?", client=client, settings=settings,
                                  history=history))
    finally:
        await client.close()
    messages = fake_model.bodies[0]["messages"]
    assert [(m["role"], m["content"]) for m in messages[1:]] == [
        ("user", "What is 2+2?"), ("assistant", "4"), ("user", "And doubled?")]
