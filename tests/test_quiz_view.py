"""Quiz mode's words and votes as drawn: the poll within sendPoll's limits, and a stored
vote folded and drawn beside what the model did (chat, board, export alike)."""

from __future__ import annotations

from agent.classroom.quiz_choices import quiz_choices
from agent.events import (
    ANSWER_CHOICE,
    OTHER_CHOICE,
    Action,
    Answer,
    Observation,
    RunFinished,
    RunStarted,
    VoteClosed,
    VoteOpened,
    event_from_dict,
)
from bot.view.quiz_view import class_record, poll_words
from bot.view.render import render_run
from bot.view.transcript import Transcript


def test_the_poll_words_keep_to_the_bot_api_limits() -> None:
    choices = quiz_choices([f"t{i}" for i in range(9)] + ["x" * 150])
    assert choices == (*(f"t{i}" for i in range(8)), OTHER_CHOICE, ANSWER_CHOICE)
    assert quiz_choices(["a", "b"]) == ("a", "b", ANSWER_CHOICE)
    question, options = poll_words(3, "问" * 400, ("y" * 150, ANSWER_CHOICE), "zh")
    assert len(question) == 300 and question.startswith("第 3 轮：") and question.endswith("…")
    assert [len(o) for o in options] == [100, len("直接回答（不调用工具）")]


def test_a_stored_vote_replays_beside_what_the_model_did() -> None:
    stored = [RunStarted(round=0, mode="react", question="2+2?", model="m"),
              VoteOpened(round=1, choices=("add", ANSWER_CHOICE)),
              VoteClosed(round=1, choices=("add", ANSWER_CHOICE), counts=(1, 3), by="Ann"),
              Action(round=1, call_id="c", tool="add", arguments={"a": 2, "b": 2}),
              Observation(round=1, call_id="c", tool="add", text="4", ok=True, duration_ms=3),
              VoteOpened(round=2, choices=("add", ANSWER_CHOICE)),
              VoteClosed(round=2, choices=("add", ANSWER_CHOICE), counts=(0, 0), sent=False),
              Answer(round=2, text="4"), RunFinished(round=2, status="done")]
    t = Transcript.from_events(event_from_dict(e.to_dict()) for e in stored)
    shown = "".join(render_run(t, "en", live=False))
    assert ("Class prediction</b><i> · 4 votes · revealed by Ann · ✅ the model's choice</i>"
            in shown)
    assert "answer directly (no tool) 3 · add 1 ✅" in shown
    assert "the poll could not be posted, so no one predicted this round" in shown
    assert t.vote_taken(t.rounds[1]) == {1}
    assert class_record(t, "en") == "🗳 the class's top pick was right in 0 of 1 rounds"
