"""AGENT_MODE=auto decides by what the model does (issue 18): a model that writes its calls
as text, asks again for a call it has the result of, or describes a call instead of making
it, goes on in the text format, and
Glassbox says so in a Remark. Against the fake model server, real HTTP."""

from __future__ import annotations

import json
from pathlib import Path

from agent import Action, Answer, ModelClient, Observation, RunFinished
from agent.events import Event, Remark
from agent.model.endpoint_memory import Lesson
from agent.prompts import language_tail
from agent.settings import AgentSettings
from agent.tools.calculator import Calculate
from bot.view.render import render_run
from bot.view.transcript import Transcript
from testkit.fakes.model import SSE_HEADERS, FakeModel, text_reply, tool_reply
from testkit.fakes.server import Reply
from tests.test_loop import Weather, events_of, of, react
from tests.test_text_parser import Convert

FENCED = '```json\n{"name": "get_weather", "arguments": {"city": "Lima"}}\n```'


def kinds(events: list[Event]) -> list[str]:
    """The kinds of the steps that matter here (how text streams is the chain's business)."""
    return [e.type for e in events if e.type in (
        "run_started", "note", "action", "observation", "answer", "run_finished")
        and getattr(e, "kind", "") != "no_reasoning"]  # the chain's notes are tested there


async def test_calls_written_as_text_move_the_run_to_the_text_format(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    fake_model.push(text_reply(FENCED + "\nLima is 30°C."),
                    text_reply("Thought: I have it.\nFinal Answer: Lima is 21°C and clear."))
    weather = Weather()
    events = await events_of(react("Weather in Lima?", client, settings, [weather]))
    assert weather.calls == ["Lima"]
    assert kinds(events) == ["run_started", "note", "action", "observation", "answer",
                             "run_finished"]
    (note,) = [n for n in of(events, Remark) if n.kind != "no_reasoning"]
    assert note.kind == "text_format" and note.round == 1
    assert note.text.startswith("This model writes its tool calls as text")
    assert of(events, Answer)[0].text == "Lima is 21°C and clear."
    assert events[-1].status == "done"  # type: ignore[attr-defined]
    native, text = fake_model.bodies
    assert "tools" in native and "tools" not in text and "stop" in text
    assert "Action: tool_name[input]" in text["messages"][0]["content"]
    assert text["messages"][-2:] == [
        {"role": "assistant", "content": 'Action: get_weather[{"city": "Lima"}]'},
        {"role": "user", "content": "Observation: Lima: 21°C, clear\n(Answer in English.)"},
    ]
    # One run is one sighting, not a lesson: the next run starts native again.
    assert not client.memory.calls_as_text
    assert len(client.memory.seen["calls_as_text"]) == 1

    # Once the endpoint learned it (runs from several chats, tests/faults/
    # test_auto_mode_learning.py), a run starts in text, and says so once.
    client.memory.calls_as_text = True
    fake_model.push(text_reply("Thought: easy.\nFinal Answer: 4"))
    again = await events_of(react("2+2?", client, settings, [weather]))
    assert kinds(again) == ["run_started", "note", "answer", "run_finished"]
    (remembered,) = [n for n in of(again, Remark) if n.kind == "text_format"]
    assert remembered.round == 1  # true whether it wrote or described its calls before
    assert remembered.text.startswith("This model did not use function calling properly")
    assert "tools" not in fake_model.bodies[-1]


async def test_a_call_asked_for_again_is_answered_in_text(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    same = ("get_weather", {"city": "Lima"})
    fake_model.push(tool_reply(same), tool_reply(same),
                    text_reply("Thought: I have it.\nFinal Answer: Lima is 21°C."))
    weather = Weather()
    events = await events_of(react("Lima?", client, settings, [weather]))
    assert weather.calls == ["Lima"] and len(of(events, Action)) == 1
    (note,) = [n for n in of(events, Remark) if n.kind == "text_format"]
    assert note.round == 2 and "asked again for a call" in note.text
    assert of(events, Answer)[0].text == "Lima is 21°C."
    text = fake_model.bodies[2]
    assert "tools" not in text
    assert [m["role"] for m in text["messages"]] == ["system", "user", "assistant", "user"]
    assert not client.memory.calls_as_text  # a model that uses native calls keeps them


async def test_a_restated_call_is_never_the_answer(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    restated = json.dumps({"name": "get_weather", "arguments": {"city": "Lima"},
                           "result": "Lima: 21°C, clear"})
    fake_model.push(text_reply(FENCED), text_reply(f"```json\n{restated}\n```"),
                    text_reply("Final Answer: It is 21°C in Lima."))
    events = await events_of(react("Lima?", client, settings, [Weather()]))
    assert [a.text for a in of(events, Answer)] == ["It is 21°C in Lima."]
    assert "format" in fake_model.bodies[2]["messages"][-1]["content"]  # the correction


async def test_chinese_question_is_told_its_language_after_the_shared_prefix(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    fake_model.push(text_reply(FENCED), text_reply("Final Answer: 利马现在 21°C。"))
    events = await events_of(react("利马天气怎么样？", client, settings, [Weather()]))
    assert of(events, Remark)[0].text.startswith("这个模型把工具调用写在文字里")
    native, text = fake_model.bodies
    tail = language_tail("zh")
    assert tail.startswith("本次对话使用中文：请用中文作答。")
    assert native["messages"][0]["content"].endswith(tail)
    assert text["messages"][0]["content"].endswith(tail)
    assert text["messages"][-1]["content"].endswith("（请用中文回答。）")


async def test_unusable_text_input_gets_an_observation_that_mends_it(
    fake_model: FakeModel, settings: AgentSettings
) -> None:
    client = ModelClient(settings.model_copy(update={"agent_mode": "text"}))
    fake_model.push(text_reply("Thought: convert.\nAction: convert\nAction Input: 5 dollars"),
                    text_reply('Action: convert\nAction Input: {"amount": 5, "base": "USD"}'),
                    text_reply("Final Answer: 5 USD is 35 CNY."))
    text_settings = settings.model_copy(update={"agent_mode": "text"})
    try:
        events = await events_of(react("5 USD in CNY?", client, text_settings, [Convert()]))
    finally:
        await client.close()
    first, second = of(events, Observation)
    assert not first.ok and first.failure == "bad_arguments"
    assert "Its arguments: amount (number); base (string); quote (string, optional)" in (
        first.text)
    assert first.text.endswith('Action: convert[{"amount": "...", "base": "...", '
                               '"quote": "..."}]')
    assert second.ok and second.text == "5.0 USD = 35.0 CNY"
    done = events[-1]
    assert isinstance(done, RunFinished) and done.status == "done"


DESCRIBED = Path(__file__).parent / "wire" / "local" / "described_call.sse"
"""What Qwen2.5-Coder-1.5B behind llama-cpp-python streamed, natively, for "What is
123456789 × 987654321 exactly?": a plan naming `calculate`, no call (recorded 2026-12-01)."""


async def asked_again_in_text(fake_model: FakeModel, client: ModelClient,
                              settings: AgentSettings, first: Reply) -> tuple[list[Event], Remark]:
    """The arithmetic question, natively answered with `first` (no call), then asked again
    in the text format, where the model calls `calculate` and answers: the events, and
    Glassbox's note of the switch (in round 1)."""
    fake_model.push(first,
                    text_reply("Thought: I need the product.\n"
                               "Action: calculate[123456789 * 987654321]"),
                    text_reply("Final Answer: 123456789 × 987654321 = 121932631112635269"))
    events = await events_of(react("What is 123456789 × 987654321 exactly?", client, settings,
                                   [Calculate()]))
    assert kinds(events) == ["run_started", "note", "action", "observation", "answer",
                             "run_finished"]
    (note,) = [n for n in of(events, Remark) if n.kind == "text_format"]
    assert note.round == 1
    assert of(events, Observation)[0].text == "123456789 * 987654321 = 121932631112635269"
    return events, note


async def test_a_call_described_instead_of_made_is_asked_again_in_text(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    events, note = await asked_again_in_text(
        fake_model, client, settings, Reply(200, [(0.0, DESCRIBED.read_bytes())],
                                            dict(SSE_HEADERS)))
    assert note.text.startswith("This model described a tool call")
    (answer,) = of(events, Answer)
    assert "`calculate`" not in answer.text and answer.text.endswith("121932631112635269")
    shown = "\n".join(render_run(Transcript.from_events(events), "en", live=False))
    assert "I would use the `calculate` function" not in shown  # the plan is no answer
    assert "121932631112635269" in shown and "📝" in shown
    native, first_text, _ = fake_model.bodies
    assert "tools" in native and "tools" not in first_text
    assert first_text["messages"][-1] == {"role": "user", "content": native["messages"][-1][
        "content"]}  # the same question, asked again in the text format
    assert not client.memory.calls_as_text and not client.memory.seen  # prose, not a call


async def test_an_answer_that_names_the_tool_it_used_stays_native(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    """A model that calls properly and then says which tool it used has described nothing:
    only an answer given before any call counts as a call described instead of made."""
    fake_model.push(tool_reply(("calculate", {"expression": "6 * 7"})),
                    text_reply("I used `calculate` to work it out: 6 × 7 = 42."))
    events = await events_of(react("What is 6 × 7?", client, settings, [Calculate()]))
    assert kinds(events) == ["run_started", "action", "observation", "answer", "run_finished"]
    assert of(events, Answer)[0].text == "I used `calculate` to work it out: 6 × 7 = 42."
    assert all("tools" in body for body in fake_model.bodies)
    assert not client.memory.calls_as_text


CODE_ANSWER = ("To calculate the product of 123456789 and 987654321, I will use Python's "
               "built-in `int` type to handle large numbers:\n\n```python\n"
               "product = 123456789 * 987654321\nprint(product)\n```\n\n"
               "The product is 121932631112635269.")
"""Modelled on what Qwen2.5-Coder-1.5B answered, natively, to the arithmetic question on
2026-12-01 (23:35 UTC), of which the bench kept only the start ("To calculate the product
of 123456789 and 987654321, I will use Python's built-in `int` type to handle large
numbers. Here's how you can do it:\n\n```python\ncalcu"): a snippet, no call, although
`calculate` was offered."""


async def test_an_answer_in_code_with_the_questions_numbers_is_asked_again_in_text(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    events, note = await asked_again_in_text(fake_model, client, settings,
                                             text_reply(CODE_ANSWER))
    assert note.text.startswith("This model answered with code instead of calling a tool")
    shown = "\n".join(render_run(Transcript.from_events(events), "en", live=False))
    assert "```" not in shown and "print(product)" not in shown  # the snippet is no answer
    assert "121932631112635269" in shown
    native, first_text, _ = fake_model.bodies
    assert "tools" in native and "tools" not in first_text
    assert not client.memory.calls_as_text  # a cloud model asked for a program answers in code too


async def test_code_that_does_not_work_the_questions_numbers_is_an_answer(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    """A question asking for a program, or code for 2 numbers it does not name, is answered
    in code: that is no call left unmade."""
    code = "```python\ndef add(a, b):\n    return a + b\n\nprint(add(2, 3))\n```"
    fake_model.push(text_reply(code))
    events = await events_of(react("Write a Python function that adds two numbers.", client,
                                   settings, [Calculate()]))
    assert kinds(events) == ["run_started", "answer", "run_finished"]
    assert of(events, Answer)[0].text == code
    assert len(fake_model.bodies) == 1


async def test_an_action_line_answered_natively_is_a_call_written_as_text(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    """A model that answers a native request in the text protocol's own lines wrote its call
    as text: the round is asked again in that format, and the endpoint counts a sighting."""
    action = "Thought: I need Lima's weather.\nAction: get_weather[Lima]"
    fake_model.push(text_reply(action), text_reply(action),
                    text_reply("Thought: I have it.\nFinal Answer: Lima is 21°C."))
    weather = Weather()
    events = await events_of(react("Weather in Lima?", client, settings, [weather]))
    assert weather.calls == ["Lima"]
    (note,) = [n for n in of(events, Remark) if n.kind == "text_format"]
    assert note.round == 1 and note.text.startswith("This model writes its tool calls as text")
    assert [a.text for a in of(events, Answer)] == ["Lima is 21°C."]
    assert ["tools" in body for body in fake_model.bodies] == [True, False, False]
    assert len(client.memory.seen["calls_as_text"]) == 1 and not client.memory.calls_as_text


async def test_the_switch_to_text_reads_only_the_prompts_tail_anew(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    """A local server reuses the longest prefix it has read: once an endpoint has written
    its calls as text, the native request and the text one after a switch share everything
    but their last lines (instructions, tools with their schemas, format, worked examples),
    so the switch does not read the prompt twice."""
    client.memory.saw(Lesson.CALLS_AS_TEXT, "another chat")
    fake_model.push(text_reply(FENCED),
                    text_reply("Thought: I have it.\nFinal Answer: Lima is 21°C and clear."))
    await events_of(react("Weather in Lima?", client, settings, [Weather(), Convert()]))
    native, text = (body["messages"][0]["content"] for body in fake_model.bodies)
    shared = next(i for i, (a, b) in enumerate(zip(native, text, strict=False)) if a != b)
    assert "- convert:" in text[:shared] and "Example without a tool, in Chinese" in (
        text[:shared])
    assert text[shared:] == language_tail("en")
    assert native[shared:].startswith("Here the tools are also offered to you as functions")


async def test_an_endpoint_that_never_wrote_calls_as_text_gets_the_short_native_prompt(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    """A cloud model that calls tools properly pays no prompt tokens for the text format's
    tools, format and examples: only an endpoint that has shown it writes calls as text
    gets them in its native rounds."""
    fake_model.push(text_reply("Lima is lovely."))
    await events_of(react("Weather in Lima?", client, settings, [Weather(), Convert()]))
    (native,) = fake_model.bodies
    system = native["messages"][0]["content"]
    assert "tools" in native
    assert "Action: tool_name[input]" not in system and "Example without a tool" not in system

    client.memory.saw(Lesson.CALLS_AS_TEXT, "a chat")
    fake_model.push(text_reply("Lima is lovely."))
    await events_of(react("Weather in Lima?", client, settings, [Weather(), Convert()]))
    assert "Action: tool_name[input]" in fake_model.bodies[1]["messages"][0]["content"]
