"""The protocol's own text is never shown as a thought or as the answer: an `Action:` line,
a chat template's `<tools></tools>`. Real loop, fake model server, drawn as the chat draws it."""

from __future__ import annotations

import time

import pytest

from agent import AgentSettings, Answer, ModelClient, RunFinished
from agent.events import Remark, Thought
from agent.protocols.protocol_guard import ERROR_KIND, REMARK_KIND
from agent.protocols.text_protocol import protocol_free, unlabelled
from testkit.fakes.model import FakeModel, text_reply
from tests.test_error_as_answer import shown
from tests.test_loop import Weather, events_of, of, react

CALL = 'Action: get_weather[{"city": "杭州"}]'


@pytest.mark.parametrize(("text", "left"), [
    ("<tools></tools>", ""),
    (f"Thought: <tools></tools>\n{CALL}", ""),
    ("Thought: I need the weather.\nAction: get_weather\nAction Input: Paris", "Thought: I need "
     "the weather."),
    (f"杭州现在 21.4°C。\n{CALL}", "杭州现在 21.4°C。"),
    # prose about the format stays, and so does a tag's name in words
    ("ReAct has three steps:\n- **Action**: the tool call\n- Observation: its result",
     "ReAct has three steps:\n- **Action**: the tool call\n- Observation: its result"),
    ("Action: calls (a tool)", "Action: calls (a tool)"),
    ("The tools are listed in the prompt.", "The tools are listed in the prompt."),
])
def test_protocol_free_keeps_the_conversation_only(text: str, left: str) -> None:
    assert protocol_free(text) == left


@pytest.mark.parametrize(("text", "left"), [
    ("Thought: I need to calculate 4,368.", "I need to calculate 4,368."),
    ("**Thought 2:** It is 21 °C.", "It is 21 °C."),
    # a label further down, or another label, is the answer's own text
    ("Lima is sunny.\nThought: that was easy", "Lima is sunny.\nThought: that was easy"),
    ("Action: calls (a tool)", "Action: calls (a tool)"),
])
def test_an_answer_loses_the_thought_label_it_opens_with(text: str, left: str) -> None:
    assert unlabelled(text) == left


def test_protocol_free_is_linear_on_hostile_text() -> None:
    """Labels, tags and calls by the thousand: four times the text, about four times the
    time (a quadratic reading would take sixteen)."""
    def seconds(n: int) -> float:
        text = "Action: a[1]\nThought: \n<tools>Action: b\nAction Input:\n" * n
        started = time.perf_counter()
        protocol_free(text)
        return time.perf_counter() - started

    small = min(seconds(2_000) for _ in range(3))
    assert min(seconds(8_000) for _ in range(3)) < 10 * small


async def test_a_last_round_that_is_one_more_call_is_no_answer(
    fake_model: FakeModel, settings: AgentSettings
) -> None:
    """The real 1.5B model, at the round cap, wrote another Action line as its last
    answer; it was shown as 💬 Answer. Now Glassbox says the model asked for one more call
    instead of answering, and the run ends without an answer, in the question's language."""
    text = settings.model_copy(update={"agent_mode": "text", "agent_max_rounds": 1})
    fake_model.push(text_reply(f"Thought: <tools></tools>\n{CALL}"),
                    text_reply(f"Thought: <tools></tools>\n{CALL}"))
    client = ModelClient(text)
    try:
        events = await events_of(react("杭州现在天气怎么样？", client, text, [Weather()]))
    finally:
        await client.close()
    assert of(events, Answer) == []
    assert all("<tools>" not in t.text and "Action" not in t.text for t in of(events, Thought))
    assert [n.kind for n in of(events, Remark)][-1] == REMARK_KIND
    done = events[-1]
    assert isinstance(done, RunFinished)
    assert (done.status, done.error_kind) == ("error", ERROR_KIND)
    assert done.reason == "没有得到回答：模型没有作答，而是又要调用工具。可以换个说法再问一次。"
    page = shown(events, "zh")
    assert "💬" not in page and "<tools>" not in page and "Action:" not in page
    assert "模型最后写的是又一次工具调用，不是回答" in page


async def test_an_action_line_after_the_answer_is_not_shown(
    fake_model: FakeModel, settings: AgentSettings
) -> None:
    text = settings.model_copy(update={"agent_mode": "text"})
    fake_model.push(text_reply(f"Thought: I know it.\nFinal Answer: Lima is sunny.\n{CALL}"))
    client = ModelClient(text)
    try:
        events = await events_of(react("Lima?", client, text, [Weather()]))
    finally:
        await client.close()
    (answer,) = of(events, Answer)
    assert answer.text == "Lima is sunny."
    page = shown(events)
    assert "💬" in page and "Action:" not in page and "get_weather[" not in page


async def test_the_template_s_tags_are_no_thought_and_are_not_written_back(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    """Natively the model wrote `<tools></tools>` beside its `<tool_call>`: that is no
    thought, and the text format's history does not say "Thought: <tools></tools>" (the
    model copied it into every later reply)."""
    call = '<tools></tools>\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Lima"}}' \
           "\n</tool_call>"
    fake_model.push(text_reply(call), text_reply("Thought: I have it.\nFinal Answer: 21°C."))
    events = await events_of(react("Lima?", client, settings, [Weather()]))
    assert not [t for t in of(events, Thought) if "<tools>" in t.text]
    history = "\n".join(str(m["content"]) for m in fake_model.bodies[1]["messages"])
    assert "<tools>" not in history and 'Action: get_weather[{"city": "Lima"}]' in history
    assert of(events, Answer)[0].text == "21°C."
