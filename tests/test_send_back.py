"""No figure without a lookup, visibly: an answer stating a time, a temperature or an amount
that no tool gave, where an offered tool gives it, goes back to the model once; the chain
shows that step as Glassbox's. Real loop, fake model server, drawn as the chat draws it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from agent import AgentSettings, Answer, ModelClient, RunFinished
from agent.events import AnswerDelta, Remark, TextDelta, Thought
from agent.grounding.send_back import REMARK_KIND
from agent.model.answer_model import answer_client
from agent.tools.clock import GetTime
from bot.view.grounding_marks import MARK
from testkit.fakes.model import FakeModel, text_reply, tool_reply
from tests.test_error_as_answer import shown
from tests.test_loop import Weather, events_of, of, react

NOON = datetime(2026, 12, 5, 17, 5, tzinfo=UTC)  # 12:05 in New York


def clock() -> GetTime:
    return GetTime("UTC", clock=lambda: NOON)


async def test_a_time_no_tool_gave_is_sent_back_and_looked_up(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    fake_model.push(text_reply("The current time in New York is 10:30 AM."),
                    tool_reply(("get_time", {"timezone": "New York"})),
                    text_reply("It is 12:05 PM in New York."))
    events = await events_of(react("What time is it in New York now?", client, settings,
                                   [clock(), Weather()]))
    first = of(events, Thought)[0]
    assert (first.round, first.text) == (1, "The current time in New York is 10:30 AM.")
    note = next(n for n in of(events, Remark) if n.kind == REMARK_KIND)
    assert (note.round, note.text) == (1, "the answer said 10:30 AM, which no tool gave; asked "
                                          "the model to look it up with get_time.")
    asked = fake_model.bodies[1]["messages"]
    assert asked[-2] == {"role": "assistant",
                         "content": "The current time in New York is 10:30 AM."}
    assert asked[-1]["content"].startswith(
        "Your answer states 10:30 AM, but no tool gave you that. Call get_time to look it up")
    (answer,) = of(events, Answer)
    assert answer.text == "It is 12:05 PM in New York." and answer.unfounded == ()
    done = events[-1]
    assert isinstance(done, RunFinished) and (done.status, done.rounds) == ("done", 3)
    page = shown(events)
    assert "📝" in page and "the answer said 10:30 AM, which no tool gave" in page
    assert MARK not in page and "💬" in page


async def test_the_same_answer_again_keeps_its_mark_and_says_the_model_was_asked(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    fake_model.push(text_reply("纽约现在是上午10:30。"), text_reply("纽约现在是上午10:30。"))
    events = await events_of(react("纽约现在几点？", client, settings, [clock()]))
    note = next(n for n in of(events, Remark) if n.kind == REMARK_KIND)
    assert note.text == "回答里说 10:30，但没有任何工具给出它；已请模型用 get_time 查一查。"
    assert len(fake_model.bodies) == 2  # once, never twice
    (answer,) = of(events, Answer)
    assert answer.round == 2 and answer.unfounded == ("10:30",)
    page = shown(events, "zh")
    assert f"10:30{MARK}" in page
    assert "不来自任何观察（已请模型去查，它仍没有查）：10:30" in page


@pytest.mark.parametrize("mode", ["native", "text"])
async def test_a_backed_answer_costs_nothing_more(
    mode: str, fake_model: FakeModel, settings: AgentSettings
) -> None:
    """The same requests, rounds and tokens as without the check; and the answer streams
    (as text whose role is known once its figures are read)."""
    run = settings.model_copy(update={"agent_mode": mode})
    if mode == "native":
        fake_model.push(tool_reply(("get_weather", {"city": "Lima"}), usage=(80, 15)),
                        text_reply("Lima is 21°C and clear.", usage=(120, 9)))
    else:
        fake_model.push(text_reply("Thought: I need Lima's weather.\nAction: get_weather[Lima]",
                                   usage=(80, 15)),
                        text_reply("Thought: I have it.\nFinal Answer: Lima is 21°C and clear.",
                                   usage=(120, 9)))
    client = ModelClient(run)
    try:
        events = await events_of(react("Lima's weather?", client, run, [Weather()]))
    finally:
        await client.close()
    assert len(fake_model.bodies) == 2
    done = events[-1]
    assert isinstance(done, RunFinished) and (done.status, done.rounds) == ("done", 2)
    assert (done.usage.prompt_tokens, done.usage.completion_tokens) == (200, 24)
    assert not [n for n in of(events, Remark) if n.kind == REMARK_KIND]
    assert "".join(d.text for d in of(events, TextDelta | AnswerDelta) if d.round == 2
                   ).endswith("Lima is 21°C and clear.")
    (answer,) = of(events, Answer)
    assert answer.text == "Lima is 21°C and clear." and answer.unfounded == ()


async def test_a_figure_no_offered_tool_gives_is_only_marked(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    """A temperature with only the clock offered: nothing to send the model back to."""
    fake_model.push(text_reply("Lima is 25°C."))
    events = await events_of(react("Lima?", client, settings, [clock()]))
    assert len(fake_model.bodies) == 1
    (answer,) = of(events, Answer)
    assert answer.unfounded == ("25°C",)
    assert "though the model was asked" not in shown(events)


async def test_with_an_answer_model_the_reasoning_model_is_sent_back_before_it_writes(
    fake_model: FakeModel, settings: AgentSettings
) -> None:
    """LLM_ANSWER_MODEL: the reasoning model's draft is what goes back, so the figure is
    looked up before the answer model writes from the chain."""
    run = settings.model_copy(update={"llm_answer_model": "qwen-max"})
    fake_model.push(text_reply("The current time in New York is 10:30 AM."),
                    tool_reply(("get_time", {"timezone": "New York"})),
                    text_reply("It is 12:05 PM."),
                    text_reply("It is 12:05 PM in New York."))
    client, answers = ModelClient(run), answer_client(run)
    try:
        events = await events_of(react("What time is it in New York now?", client, run,
                                       [clock()], answer_client=answers))
    finally:
        await client.close()
        if answers is not None:
            await answers.close()
    assert [b["model"] for b in fake_model.bodies] == ["qwen-plus"] * 3 + ["qwen-max"]
    note = next(n for n in of(events, Remark) if n.kind == REMARK_KIND)
    assert (note.round, note.text) == (1, "the answer said 10:30 AM, which no tool gave; asked "
                                          "the model to look it up with get_time.")
    assert fake_model.bodies[1]["messages"][-1]["content"].startswith(
        "Your answer states 10:30 AM, but no tool gave you that. Call get_time to look it up")
    assert "Observation: " in fake_model.bodies[3]["messages"][-1]["content"]
    (answer,) = of(events, Answer)
    assert (answer.text, answer.model) == ("It is 12:05 PM in New York.", "qwen-max")
    assert answer.unfounded == ()
