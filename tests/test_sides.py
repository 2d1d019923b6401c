"""A comparison needs an observation of each side (issue 32): "Is it colder in Berlin or in
Paris?" got one lookup (Paris) and an answer that gave Berlin a figure of Paris. After each
lookup the model is told which sides named in the question are still missing; an answer
naming a side nothing looked up gets Glassbox's note. Against the fake model, real HTTP."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from agent import AgentSettings, Answer, ModelClient
from agent.events import Note
from agent.sides import sides
from tests.fakes.model import FakeModel, text_reply
from tests.kit import agent_settings
from tests.test_loop import Weather, events_of, of, react

QUESTION = "Is it colder in Berlin or in Paris right now? Give both temperatures."


@pytest.fixture
def text_settings(fake_model: FakeModel) -> AgentSettings:
    return agent_settings(fake_model.base_url, agent_mode="text")


@pytest.fixture
async def text_client(text_settings: AgentSettings) -> AsyncIterator[ModelClient]:
    client = ModelClient(text_settings)
    yield client
    await client.close()


@pytest.mark.parametrize(("question", "expected"), [
    (QUESTION, ["Berlin", "Paris"]),
    ("Which is bigger, New York or Los Angeles?", ["New", "York", "Los", "Angeles"]),
    ("What is the weather in Hangzhou right now?", []),  # compares nothing
    ("Is Paris warm or cold?", []),  # one side
    ("How much is 100 US dollars in Chinese yuan today?", []),
    ("Compare Oslo and Lima. Which is warmer?", ["Oslo", "Lima"]),  # Which starts a sentence
    ("柏林和巴黎哪里更冷？", []),  # Chinese names are not told apart from their neighbours
])
def test_the_sides_of_a_question(question: str, expected: list[str]) -> None:
    assert sides(question) == expected


def test_reading_sides_stays_linear_on_hostile_text() -> None:
    """Every name starting a sentence is looked behind (a bounded window, not the whole
    question before it): 100,000 of them are read in one pass."""
    assert sides("Which " + "Aa. " * 100_000 + "or Bb and Cc?") == ["Aa", "Bb", "Cc"]


async def test_the_model_is_told_which_side_is_missing_and_looks_it_up(
    fake_model: FakeModel, text_client: ModelClient, text_settings: AgentSettings
) -> None:
    fake_model.push(
        text_reply("Thought: I need both.\nAction: get_weather[Paris]\n"
                   "Action: get_weather[Berlin]"),
        text_reply("Thought: Now Berlin.\nAction: get_weather[Berlin]"),
        text_reply("Thought: I have both.\nFinal Answer: Berlin 21°C, Paris 21°C: the same."))
    weather = Weather()
    events = await events_of(react(QUESTION, text_client, text_settings, [weather]))
    assert weather.calls == ["Paris", "Berlin"]
    told = [body["messages"][-1]["content"] for body in fake_model.bodies[1:]]
    assert told[0] == ("Observation: Paris: 21°C, clear\nNot looked up yet: Berlin. The "
                       "question compares them: look each one up before you answer.\n"
                       "(Answer in English.)")
    assert told[1] == "Observation: Berlin: 21°C, clear\n(Answer in English.)"
    assert not [n for n in of(events, Note) if n.kind == "side_not_looked_up"]


async def test_an_answer_naming_a_side_never_looked_up_gets_a_note(
    fake_model: FakeModel, text_client: ModelClient, text_settings: AgentSettings
) -> None:
    fake_model.push(
        text_reply("Thought: Paris first.\nAction: get_weather[Paris]"),
        text_reply("Final Answer: Berlin is 7.2 °C, Paris 21 °C: Berlin is colder."))
    events = await events_of(react(QUESTION, text_client, text_settings, [Weather()]))
    (note,) = [n for n in of(events, Note) if n.kind == "side_not_looked_up"]
    assert note.text == ("Berlin was not looked up: what the answer says of it rests on no "
                         "observation.")
    (answer,) = of(events, Answer)
    assert answer.unfounded == ("7.2 °C",)  # and its figure is marked as unfounded
    assert events.index(note) < events.index(answer)
