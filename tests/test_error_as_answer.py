"""A tool's error is never the answer: a model that answers with a failed call's error text
gets no 💬 Answer; Glassbox says, in its own name and the question's language, what could not
be done. Real loop, fake model server, drawn as the chat draws it."""

from __future__ import annotations

import pytest

from agent import AgentSettings, Answer, ModelClient, RunFinished
from agent.events import AnswerDelta, Event, Remark, TextDelta
from agent.protocols.echoed_errors import ERROR_KIND, REMARK_KIND
from bot.view.render import render_run
from bot.view.transcript import Transcript
from testkit.agentkit import agent_settings
from testkit.fakes.model import DashScope, FakeModel, sse, text_reply, tool_reply
from testkit.fakes.telegram_html import parse_html
from tests.test_loop import Weather, events_of, of, react
from wire import model_transport

ERROR = "No place named Atlantis found."
PIECE_S = 0.05
"""Between a streamed answer's pieces: each arrives on its own, as a real model's do."""


@pytest.fixture(autouse=True)
def each_piece_read_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """The model's transport reads each piece as it comes rather than what came in its
    gathering window (wire/model_transport.py), so the pieces need not be that far apart
    to reach the loop one by one."""
    monkeypatch.setattr(model_transport, "STREAM_GATHER_S", 0.0)


def shown(events: list[Event], lang: str = "en") -> str:
    """The finished run's chat message, as the reader sees it."""
    pages = render_run(Transcript.from_events(events), lang, live=False)
    return "\n".join(parse_html(page).text for page in pages)


def streamed(events: list[Event]) -> str:
    return "".join(e.text for e in events if isinstance(e, AnswerDelta | TextDelta))


@pytest.mark.parametrize("answer", [ERROR, f"Error: {ERROR}", f"**{ERROR.lower()}**",
                                    "No place named Atlantis"])
async def test_an_answer_that_only_repeats_the_error_is_not_the_answer(
    answer: str, fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    fake_model.push(tool_reply(("get_weather", {"city": "Atlantis"})),
                    sse(DashScope().text(answer, pieces=6), delay=PIECE_S))
    events = await events_of(react("Weather in Atlantis?", client, settings, [Weather()]))
    assert of(events, Answer) == []
    assert streamed(events) == ""  # never drawn, not even while it streamed
    note = next(n for n in of(events, Remark) if n.kind == REMARK_KIND)
    assert note.round == 2 and note.text == (
        "the model's answer only repeated the error of get_weather(city=\"Atlantis\") above, so "
        "Glassbox does not show it as the answer.")
    done = events[-1]
    assert isinstance(done, RunFinished)
    assert (done.status, done.error_kind) == ("error", ERROR_KIND)
    assert done.reason == ("No answer: get_weather(city=\"Atlantis\") gave an error, and the model "
                           "repeated that error instead of answering. Try asking in other words.")
    page = shown(events)
    assert "💬" not in page
    assert "📝 Written by Glassbox: " in page  # Glassbox's notes run together in one line
    assert "he model's answer only repeated the error of get_weather" in page
    assert "❌ No answer: get_weather(city=\"Atlantis\") gave an error" in page
    assert page.count(ERROR) == 1  # the observation, nowhere else


async def test_in_chinese_glassbox_says_so_in_chinese(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    fake_model.push(tool_reply(("get_weather", {"city": "Atlantis"})), text_reply(ERROR))
    events = await events_of(react("亚特兰蒂斯天气怎么样？", client, settings, [Weather()]))
    done = events[-1]
    assert isinstance(done, RunFinished) and done.reason == (
        "没有得到回答：get_weather(city=\"Atlantis\") 出错了，模型只是重复了这个错误，没有作答。"
        "可以换个说法再问一次。")
    page = shown(events, "zh")
    assert "由 Glassbox 补写" in page
    assert "模型的回答只是重复了上面 get_weather(city=\"Atlantis\") 的错误信息" in page
    assert "💬" not in page


@pytest.mark.parametrize("answer", [
    "I could not find a place named Atlantis, so I cannot give its weather.",
    "No place named Atlantis found. It is a legendary island, so it has no weather station.",
    "Atlantis",
    "Atlantis found.",
])
async def test_an_answer_in_its_own_words_streams_and_stays_the_answer(
    answer: str, fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    fake_model.push(tool_reply(("get_weather", {"city": "Atlantis"})),
                    sse(DashScope().text(answer, pieces=8), delay=PIECE_S))
    events = await events_of(react("Weather in Atlantis?", client, settings, [Weather()]))
    (final,) = of(events, Answer)
    assert final.text == answer and streamed(events) == answer  # nothing held back for good
    assert not [n for n in of(events, Remark) if n.kind == REMARK_KIND]
    done = events[-1]
    assert isinstance(done, RunFinished) and done.status == "done"
    assert "💬" in shown(events)


async def test_a_long_own_answer_streams_before_it_ends(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    """Held only while it may still be the error: its first words that cannot be are sent
    before the model has finished."""
    answer = "Sorry: " + "there is no weather for a place that is not on any map. " * 8
    fake_model.push(tool_reply(("get_weather", {"city": "Atlantis"})),
                    sse(DashScope().text(answer, pieces=16), delay=PIECE_S))
    events = await events_of(react("Weather in Atlantis?", client, settings, [Weather()]))
    deltas = [e for e in events if isinstance(e, AnswerDelta | TextDelta)]
    assert len(deltas) >= 8 and "".join(d.text for d in deltas) == answer


async def test_an_observation_that_worked_may_be_the_answer_word_for_word(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    fake_model.push(tool_reply(("get_weather", {"city": "Paris"})),
                    text_reply("Paris: 21°C, clear"))
    events = await events_of(react("Weather in Paris?", client, settings, [Weather()]))
    assert [a.text for a in of(events, Answer)] == ["Paris: 21°C, clear"]
    assert isinstance(events[-1], RunFinished) and events[-1].status == "done"


async def test_in_the_text_format_the_labelled_error_is_not_the_answer_either(
    fake_model: FakeModel
) -> None:
    settings = agent_settings(fake_model.base_url, agent_mode="text")
    client = ModelClient(settings)
    try:
        fake_model.push(
            text_reply("Thought: I need the weather in Atlantis.\nAction: get_weather[Atlantis]"),
            sse(DashScope().text(f"Thought: I have the answer.\nFinal Answer: {ERROR}", pieces=8),
                delay=PIECE_S))
        events = await events_of(react("Weather in Atlantis?", client, settings, [Weather()]))
    finally:
        await client.close()
    assert of(events, Answer) == [] and streamed(events) == ""
    page = shown(events)
    assert "💭 Thought: I have the answer." in page  # the model's reasoning stays its own
    assert "the model's answer only repeated the error of get_weather" in page
    assert "💬" not in page and page.count(ERROR) == 1
