"""The sides of a comparing question (agent/grounding/sides.py); what the loop does with them is in
tests/test_text_mode.py."""

from __future__ import annotations

import pytest

from agent.grounding.sides import sides

QUESTION = "Is it colder in Berlin or in Paris right now? Give both temperatures."


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
