"""Where a long thread is cut: the turns summarised are exactly those the model's history
(agent.prompts.history_messages) leaves out, and the rest go word for word."""

from __future__ import annotations

from agent.classroom.history_summary import split_history
from agent.prompts import Turn, history_messages

TURNS = [Turn(f"question {n}?", "answer " * n) for n in range(1, 8)]


def test_the_summarised_turns_are_the_ones_the_history_drops() -> None:
    for max_chars in range(0, sum(len(t.question) + len(t.answer) for t in TURNS) + 10, 7):
        older, recent = split_history(TURNS, max_chars)
        assert older + recent == TURNS
        shown = [m["content"] for m in history_messages(TURNS, max_chars)]
        assert shown == [text for turn in recent for text in (turn.question, turn.answer)]


def test_the_newest_turns_that_fit_stay() -> None:
    older, recent = split_history(TURNS, len(TURNS[-1].question) + len(TURNS[-1].answer))
    assert (older, recent) == (TURNS[:-1], TURNS[-1:])
    assert split_history(TURNS, 0) == (TURNS, [])
    assert split_history([], 100) == ([], [])
