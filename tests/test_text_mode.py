"""Text-format ReAct end to end against the fake model server: AGENT_MODE=text, auto
falling back after a 400 that rejects tools, and tool calls written into native text."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from agent import (
    Action,
    AgentSettings,
    Answer,
    AnswerDelta,
    ModelClient,
    Observation,
    Remark,
    RunFinished,
    RunStarted,
    Thought,
)
from agent.events import TextDelta
from agent.protocols.text_protocol import STOP
from agent.tools.calculator import Calculate
from testkit.agentkit import agent_settings
from testkit.fakes.model import DashScope, FakeModel, error, sse, text_reply, tool_reply
from testkit.fakes.server import Reply
from tests.test_loop import Weather, events_of, of, react
from tests.test_text_parser import Convert
from wire.model_transport import STREAM_GATHER_S


@pytest.fixture
def text_settings(fake_model: FakeModel) -> AgentSettings:
    return agent_settings(fake_model.base_url, agent_mode="text")


@pytest.fixture
async def text_client(text_settings: AgentSettings) -> AsyncIterator[ModelClient]:
    client = ModelClient(text_settings)
    yield client
    await client.close()


async def test_text_mode_full_chain(fake_model: FakeModel, text_client: ModelClient,
                                    text_settings: AgentSettings) -> None:
    weather = Weather()
    fake_model.push(
        # This server ignores `stop`: the model goes on with a made-up observation.
        text_reply("Thought: I need the weather in Paris.\nAction: get_weather[Paris]\n"
                   "Observation: Paris is 35°C\nThought: hot\nFinal Answer: 35°C"),
        sse(DashScope().text("Thought: I have what I need.\nFinal Answer: Paris is 21°C and "
                             "clear, a fine day for a walk along the Seine.", pieces=8),
            delay=STREAM_GATHER_S * 1.5),  # apart: each piece its own read of the stream
    )
    events = await events_of(react("Weather in Paris?", text_client, text_settings, [weather]))
    kinds = [e.type for e in events]
    assert kinds[:5] == ["run_started", "thought", "action", "observation", "thought"]
    assert kinds[-2:] == ["answer", "run_finished"]
    # the answer streams once its label is seen, as text whose role is known once its
    # figures are read (agent/grounding/send_back.py)
    assert kinds.count("text_delta") >= 3
    first, final = of(events, Thought)
    assert (first.text, first.synthesized) == ("I need the weather in Paris.", False)
    assert (final.text, final.round) == ("I have what I need.", 2)
    (action,) = of(events, Action)
    assert (action.tool, action.arguments) == ("get_weather", {"city": "Paris"})
    (obs,) = of(events, Observation)
    assert (obs.text, obs.ok) == ("Paris: 21°C, clear", True)
    assert weather.calls == ["Paris"]
    answer = of(events, Answer)[0]
    assert answer.text == ("Paris is 21°C and clear, a fine day for a walk along the Seine.")
    assert not answer.unparsed
    assert "".join(d.text for d in of(events, TextDelta)) == answer.text
    done = events[-1]
    assert isinstance(done, RunFinished)
    assert (done.status, done.rounds, done.tool_calls) == ("done", 2, 1)
    assert done.usage.total_tokens == 140
    first_body, second_body = fake_model.bodies
    assert "tools" not in first_body and first_body["stop"] == STOP
    system = first_body["messages"][0]["content"]
    assert "- get_weather: Current weather of a city." in system and '"city"' in system
    # History: the model's text cut at its own Observation, then the real one.
    assistant, observation = second_body["messages"][-2:]
    assert assistant == {"role": "assistant", "content":
                         "Thought: I need the weather in Paris.\nAction: get_weather[Paris]"}
    # an English question gets its language line too, as a Chinese one does
    assert observation == {"role": "user",
                           "content": "Observation: Paris: 21°C, clear\n(Answer in English.)"}


async def test_streamed_answer_never_shows_a_made_up_observation(
    fake_model: FakeModel, text_client: ModelClient, text_settings: AgentSettings
) -> None:
    fake_model.push(text_reply("Thought: easy\nFinal Answer: Four.\nObservation: none\nmore",
                               pieces=12))
    events = await events_of(react("2+2?", text_client, text_settings, [Weather()]))
    deltas = "".join(d.text for d in of(events, AnswerDelta | TextDelta))
    assert deltas == "Four." == of(events, Answer)[0].text


async def test_json_input_for_a_tool_with_several_arguments(
    fake_model: FakeModel, text_client: ModelClient, text_settings: AgentSettings
) -> None:
    fake_model.push(
        text_reply('Thought: convert.\nAction: convert\nAction Input: ```json\n'
                   '{"amount": 5, "base": "USD"}\n```'),
        text_reply("Final Answer: 35 CNY"),
    )
    events = await events_of(react("5 USD in CNY?", text_client, text_settings, [Convert()]))
    (action,) = of(events, Action)
    assert action.arguments == {"amount": 5, "base": "USD"}
    assert of(events, Observation)[0].text == "5.0 USD = 35.0 CNY"
    assert [t.text for t in of(events, Thought)] == ["convert."]
    final = of(events, Remark)[-1]  # no reasoning in the answering round: Glassbox says so
    assert final.round == 2 and "no reasoning before answering" in final.text


async def test_unreadable_reply_gets_one_correction(
    fake_model: FakeModel, text_client: ModelClient, text_settings: AgentSettings
) -> None:
    fake_model.push(text_reply("Thought: let me see\nAction: I will look this up online"),
                    text_reply("Thought: no tool needed\nFinal Answer: 42"))
    events = await events_of(react("Meaning?", text_client, text_settings, [Weather()]))
    assert [e.type for e in events] == [
        "run_started", "thought", "text_delta", "answer", "run_finished"]
    assert of(events, Answer)[0].text == "42" and not of(events, Answer)[0].unparsed
    retry = fake_model.bodies[1]["messages"]
    assert retry[-2]["content"] == "Thought: let me see\nAction: I will look this up online"
    assert "did not follow the format" in retry[-1]["content"]
    assert events[-1].rounds == 1


async def test_second_unreadable_reply_is_the_answer_marked_unparsed(
    fake_model: FakeModel, text_client: ModelClient, text_settings: AgentSettings
) -> None:
    garbled = "Thought: hmm\nAction: ask my friend about Paris"
    fake_model.push(text_reply("Thought: weather first\nAction: get_weather[Paris]"),
                    text_reply(garbled), text_reply(garbled + " again"))
    events = await events_of(react("Paris?", text_client, text_settings, [Weather()]))
    # The chain so far is kept; the run ends with the raw text, marked.
    assert [e.type for e in events] == [
        "run_started", "thought", "action", "observation",
        "text_delta", "note", "answer", "run_finished"]
    answer = of(events, Answer)[0]
    assert (answer.text, answer.unparsed) == (garbled + " again", True)
    assert not any(t.synthesized for t in of(events, Thought))
    assert events[-1].status == "done"


async def test_text_mode_round_cap_asks_for_a_final_answer(fake_model: FakeModel) -> None:
    settings = agent_settings(fake_model.base_url, agent_mode="text", agent_max_rounds=1)
    fake_model.push(text_reply("Thought: a\nAction: get_weather[A]"),
                    text_reply("Final Answer: A is mild."))
    client = ModelClient(settings)
    try:
        events = await events_of(react("A?", client, settings, [Weather()]))
    finally:
        await client.close()
    assert of(events, Answer)[0].text == "A is mild."
    done = events[-1]
    assert (done.status, done.rounds) == ("max_rounds", 2)
    last = fake_model.bodies[1]
    assert "tool rounds" in last["messages"][-1]["content"] and "tools" not in last


@pytest.mark.parametrize("body", ["tools_refused/ollama_400.json", "tools_refused/vllm_400.json"],
                         ids=["ollama", "vllm-no-parser"])
async def test_auto_falls_back_to_text_once_the_refusal_is_repeated(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings, body: str,
) -> None:
    assert settings.agent_mode == "auto"
    fake_model.push(
        error(body, 400), error(body, 400),
        text_reply("Thought: need Oslo.\nAction: get_weather[Oslo]"),
        text_reply("Final Answer: Oslo is 21°C."),
    )
    events = await events_of(react("Oslo?", client, settings, [Weather()]))
    assert [e.type for e in events if not isinstance(e, TextDelta)] == [
        "run_started", "thought", "action", "observation", "note", "answer", "run_finished"]
    assert len(of(events, RunStarted)) == 1
    assert of(events, Answer)[0].text == "Oslo is 21°C."
    assert (events[-1].status, events[-1].rounds) == ("done", 2)
    assert ["tools" in b for b in fake_model.bodies] == [True, True, False, False]
    assert fake_model.bodies[2]["stop"] == STOP
    # One run is one sighting; the endpoint switches only after several runs and chats.
    assert not client.memory.tools_rejected
    assert len(client.memory.seen["tools_rejected"]) == 1


async def test_a_refusal_not_repeated_stays_native(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    fake_model.push(error("tools_refused/ollama_400.json", 400), text_reply("Hello."))
    events = await events_of(react("Hi", client, settings, [Weather()]))
    assert of(events, Answer)[0].text == "Hello."
    assert ["tools" in b for b in fake_model.bodies] == [True, True]
    assert not client.memory.tools_rejected and not client.memory.seen


async def test_what_a_client_learned_is_not_shared(
    fake_model: FakeModel, settings: AgentSettings
) -> None:
    refused = error("tools_refused/ollama_400.json", 400)
    fake_model.push(refused, refused, text_reply("Final Answer: Hi."), text_reply("Hello."))
    rejected, fresh = ModelClient(settings), ModelClient(settings)
    try:
        await events_of(react("Hi", rejected, settings, [Weather()]))
        events = await events_of(react("Hi", fresh, settings, [Weather()]))
    finally:
        await rejected.close()
        await fresh.close()
    assert (bool(rejected.memory.seen), bool(fresh.memory.seen)) == (True, False)
    assert of(events, Answer)[0].text == "Hello."
    assert "tools" in fake_model.bodies[3]  # same model, another client: native again


async def test_auto_does_not_fall_back_on_other_400s(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    fake_model.push(error("openai/error_400_context_length_exceeded.json", 400))
    events = await events_of(react("Hi", client, settings, [Weather()]))
    assert not client.memory.tools_rejected
    assert (events[-1].status, events[-1].error_kind) == ("error", "context_length")
    assert len(fake_model.bodies) == 1


async def test_native_mode_reports_tools_unsupported(fake_model: FakeModel) -> None:
    settings = agent_settings(fake_model.base_url, agent_mode="native")
    fake_model.push(error("tools_refused/ollama_400.json", 400))
    client = ModelClient(settings)
    try:
        events = await events_of(react("Hi", client, settings, [Weather()]))
    finally:
        await client.close()
    assert (events[-1].status, events[-1].error_kind) == ("error", "tools_unsupported")
    assert "tool calling" in events[-1].reason


async def test_native_call_written_into_text_is_run(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    written = ('I will check.\n<tool_call>\n{"name": "get_weather", "arguments": '
               '{"city": "Lima"}}\n</tool_call>')
    fake_model.push(text_reply(written), text_reply("Lima: 21°C."))
    weather = Weather()
    native = settings.model_copy(update={"agent_mode": "native"})  # auto would switch format
    events = await events_of(react("Lima?", client, native, [weather]))
    assert weather.calls == ["Lima"]
    round_one = [e.type for e in events if e.round == 1]
    assert round_one[-3:] == ["thought", "action", "observation"]
    thought = [e for e in events if isinstance(e, Thought) and e.round == 1][-1]
    assert (thought.text, thought.synthesized) == ("I will check.", False)
    assert of(events, Answer)[0].text == "Lima: 21°C."
    assistant, result = fake_model.bodies[1]["messages"][-2:]
    assert assistant == {"role": "assistant", "content": written}
    assert result == {"role": "user",
                      "content": "<tool_response>\nLima: 21°C, clear\n</tool_response>\n"
                                     "(Answer in English.)"}


async def test_native_tool_calls_unchanged_by_text_support(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    fake_model.push(tool_reply(("get_weather", {"city": "Kyiv"})), text_reply("Kyiv: mild."))
    events = await events_of(react("Kyiv?", client, settings, [Weather()]))
    assert of(events, Action)[0].arguments == {"city": "Kyiv"}
    assert fake_model.bodies[1]["messages"][-1]["role"] == "tool"
    assert "stop" not in fake_model.bodies[0]




@pytest.mark.parametrize("mode", ["native", "text"])
async def test_calculations_are_sent_to_calculate_when_it_is_on(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings, mode: str
) -> None:
    """The 1.5B coder model answered 123456789 × 987654321 with a Python snippet: the
    instructions (both formats, the same for both languages) send every calculation to
    `calculate`, and name it only when it is one of the run's tools. A greeting needs no
    tool."""
    on = settings.model_copy(update={"agent_mode": mode})
    fake_model.push(*(text_reply("Final Answer: ok") for _ in range(3)))
    await events_of(react("12 × 34?", client, on, [Calculate()]))
    await events_of(react("12 × 34 等于多少？", client, on, [Calculate()]))
    await events_of(react("Hi!", client, on, [Weather()]))
    english, chinese, without = (body["messages"][0]["content"] for body in fake_model.bodies)
    assert "Any calculation, however simple, goes to the `calculate` tool" in english
    assert "never answer with code" in english and "needs no tool" in english
    assert chinese.startswith(english[:english.index("in the language this conversation")])
    assert chinese.endswith("请用中文作答。问候、感谢、请你给建议或问你是谁、能做什么，"
                            "都不需要工具：直接回答。")
    assert "calculate" not in without and "needs no tool" in without

# A comparison needs an observation of each side: "Is it colder in Berlin or in Paris?" got
# one lookup (Paris) and an answer that gave Berlin a figure of Paris.
COMPARING = "Is it colder in Berlin or in Paris right now? Give both temperatures."


async def test_the_model_is_told_which_side_is_missing_and_looks_it_up(
    fake_model: FakeModel, text_client: ModelClient, text_settings: AgentSettings
) -> None:
    fake_model.push(
        text_reply("Thought: I need both.\nAction: get_weather[Paris]\n"
                   "Action: get_weather[Berlin]"),
        text_reply("Thought: Now Berlin.\nAction: get_weather[Berlin]"),
        text_reply("Thought: I have both.\nFinal Answer: Berlin 21°C, Paris 21°C: the same."))
    weather = Weather()
    events = await events_of(react(COMPARING, text_client, text_settings, [weather]))
    assert weather.calls == ["Paris", "Berlin"]
    told = [body["messages"][-1]["content"] for body in fake_model.bodies[1:]]
    assert told[0] == ("Observation: Paris: 21°C, clear\nNot looked up yet: Berlin. The "
                       "question compares them: look each one up before you answer.\n"
                       "(Answer in English.)")
    assert told[1] == ("Observation: Berlin: 21°C, clear\nLooked up: Berlin, Paris. You have "
                       "each side of the comparison: answer now.\n(Answer in English.)")
    assert not [n for n in of(events, Remark) if n.kind == "side_not_looked_up"]


def like_llama_cpp(text: str) -> Callable[[dict[str, Any]], Reply]:
    """A reply that ends where a real server ends it: at the first of the request's
    `stop` strings in the text."""
    def reply(body: dict[str, Any]) -> Reply:
        cut = min((text.find(stop) for stop in body.get("stop") or () if stop in text),
                  default=len(text))
        return text_reply(text[:cut])
    return reply


async def test_an_answer_quoting_the_observation_label_is_shown_whole(
    fake_model: FakeModel, text_client: ModelClient, text_settings: AgentSettings
) -> None:
    """A server stops at the request's stop strings; the real 1.5B model's answer about the
    notes ('cut the text at the "Observation:" line') ended mid-sentence at its quote. A
    model writing its own Observation line after an action is still stopped there."""
    quoted = ('The program must cut the text at the "Observation:" line the model writes '
              'itself.')
    fake_model.push(
        like_llama_cpp("Thought: Weather.\nAction: get_weather[Paris]\nObservation: 30°C"),
        like_llama_cpp(f"Thought: I have what I need.\nFinal Answer: {quoted}"))
    weather = Weather()
    events = await events_of(react("What does the program cut?", text_client, text_settings,
                                   [weather]))
    assert weather.calls == ["Paris"]
    assert "30°C" not in fake_model.bodies[1]["messages"][-2]["content"]
    assert of(events, Answer)[0].text == quoted


async def test_one_lookup_of_both_sides_gets_no_line_to_copy(
    fake_model: FakeModel, text_client: ModelClient, text_settings: AgentSettings
) -> None:
    """The real 1.5B model wrote "Looked up: Berlin, Paris. You have each side …" into its
    answer after get_weather[Berlin, Paris]: Glassbox's words are said only after a
    side was missing."""
    fake_model.push(
        text_reply("Thought: Both at once.\nAction: get_weather[Berlin, Paris]"),
        text_reply("Final Answer: Berlin and Paris are both 21°C."))
    events = await events_of(react(COMPARING, text_client, text_settings, [Weather()]))
    told = fake_model.bodies[1]["messages"][-1]["content"]
    assert told == "Observation: Berlin, Paris: 21°C, clear\n(Answer in English.)"
    assert of(events, Answer)[0].text == "Berlin and Paris are both 21°C."


async def test_an_answer_naming_a_side_never_looked_up_gets_a_note(
    fake_model: FakeModel, text_client: ModelClient, text_settings: AgentSettings
) -> None:
    guess = "Final Answer: Berlin is 7.2 °C, Paris 21 °C: Berlin is colder."
    fake_model.push(
        text_reply("Thought: Paris first.\nAction: get_weather[Paris]"),
        text_reply(guess), text_reply(guess))  # sent back once for 7.2 °C, the same again
    events = await events_of(react(COMPARING, text_client, text_settings, [Weather()]))
    assert [n.text for n in of(events, Remark) if n.kind == "sent_back"] == [
        "the answer said 7.2 °C, which no tool gave; asked the model to look it up with "
        "get_weather."]
    (note,) = [n for n in of(events, Remark) if n.kind == "side_not_looked_up"]
    assert note.text == ("Berlin was not looked up: what the answer says of it rests on no "
                         "observation.")
    (answer,) = of(events, Answer)
    assert answer.unfounded == ("7.2 °C",)  # and its figure is marked as unfounded
    assert events.index(note) < events.index(answer)
