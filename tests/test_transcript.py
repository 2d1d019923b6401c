"""The fold: events applied in order give the chain a user should see."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import ClassVar

from agent.events import (
    Action,
    Answer,
    AnswerDelta,
    Event,
    Observation,
    ObservationFailure,
    Remark,
    RunFinished,
    RunStarted,
    TextDelta,
    Thought,
    ThoughtDelta,
    Usage,
    event_from_dict,
)
from bot.view.transcript import CallView, Transcript


def weather_run() -> list[Event]:
    return [
        RunStarted(round=0, mode="react", question="Weather in Hangzhou?", model="qwen-plus",
                   tools=("weather", "calculator")),
        Thought(round=1, text="I need the current weather."),
        Action(round=1, call_id="call_a", tool="weather", arguments={"city": "Hangzhou"}),
        Action(round=1, call_id="call_b", tool="calculator", arguments={"expr": "25*9/5+32"}),
        Observation(round=1, call_id="call_b", tool="calculator", text="77", ok=True,
                    duration_ms=3),
        Observation(round=1, call_id="call_a", tool="weather", text="Sunny, 25 °C", ok=True,
                    duration_ms=420),
        TextDelta(round=2, text="It is sunny, "),
        TextDelta(round=2, text="25 °C (77 °F)."),
        Remark(round=2, kind="no_reasoning",
             text="the model wrote no reasoning; it answered after the observations above."),
        Answer(round=2, text="It is sunny, 25 °C (77 °F)."),
        RunFinished(round=2, status="done", usage=Usage(100, 50, 150), duration_ms=3200,
                    rounds=2, tool_calls=2),
    ]


def test_a_whole_run_folds_into_rounds_steps_and_the_answer() -> None:
    t = Transcript.from_events(weather_run())

    assert (t.mode, t.question, t.model) == ("react", "Weather in Hangzhou?", "qwen-plus")
    assert [r.number for r in t.rounds] == [1, 2]
    assert t.rounds[0].thought == "I need the current weather."
    assert not t.rounds[0].synthesized
    assert t.rounds[0].calls == [
        CallView("call_a", "weather", {"city": "Hangzhou"}, "Sunny, 25 °C", True, 420),
        CallView("call_b", "calculator", {"expr": "25*9/5+32"}, "77", True, 3),
    ]
    assert t.rounds[1].remarks == [
        "the model wrote no reasoning; it answered after the observations above."]
    assert t.rounds[1].draft == ""  # the streamed text became the answer
    assert t.answer == "It is sunny, 25 °C (77 °F)."
    assert t.answer_final
    assert t.finished is not None and t.finished.usage.total_tokens == 150


def test_text_of_unknown_role_grows_as_a_draft_that_is_neither_thought_nor_answer() -> None:
    t = Transcript.from_events(weather_run()[:8])

    assert t.rounds[1].draft == "It is sunny, 25 °C (77 °F)."
    assert t.rounds[1].thought == "" and t.answer == ""
    assert not t.answer_final
    assert t.finished is None


def test_a_draft_followed_by_tool_calls_becomes_the_rounds_thought() -> None:
    t = Transcript.from_events([
        RunStarted(round=0, mode="react", question="q", model="m"),
        TextDelta(round=1, text="Let me check the weather first."),
        Thought(round=1, text="Let me check the weather first."),
        Action(round=1, call_id="c1", tool="weather", arguments={"city": "Paris"}),
    ])

    assert len(t.rounds) == 1
    assert t.rounds[0].thought == "Let me check the weather first."
    assert t.rounds[0].draft == ""
    assert t.answer == ""
    assert [s.tool for s in t.rounds[0].calls] == ["weather"]


def test_reasoning_grows_into_the_thought_as_it_streams() -> None:
    t = Transcript.from_events([ThoughtDelta(round=1, text="Berlin "),
                                ThoughtDelta(round=1, text="first.")])
    assert t.rounds[0].thought == "Berlin first."
    t.apply(Thought(round=1, text="Berlin first."))
    t.apply(ThoughtDelta(round=1, text="late"))
    assert t.rounds[0].thought == "Berlin first."


def test_a_thought_does_not_clear_a_final_answer() -> None:
    t = Transcript.from_events([Answer(round=1, text="42"), Thought(round=1, text="late")])

    assert t.answer == "42"


def test_observations_attach_to_their_action_by_call_id_within_the_round() -> None:
    # Some servers number calls afresh each round: the same id in rounds 1 and 2.
    t = Transcript.from_events([
        Action(round=1, call_id="call_0", tool="weather", arguments={"city": "Oslo"}),
        Observation(round=1, call_id="call_0", tool="weather", text="cold", ok=True,
                    duration_ms=1),
        Action(round=2, call_id="call_0", tool="weather", arguments={"city": "Rome"}),
        Action(round=2, call_id="call_1", tool="fx", arguments="not json"),
        Observation(round=2, call_id="call_1", tool="fx", text="bad arguments", ok=False,
                    duration_ms=0),
        Observation(round=2, call_id="call_0", tool="weather", text="warm", ok=True,
                    duration_ms=2),
    ])

    assert [s.observation for s in t.rounds[0].calls] == ["cold"]
    assert [(s.observation, s.ok) for s in t.rounds[1].calls] == [("warm", True),
                                                                   ("bad arguments", False)]
    assert t.rounds[1].calls[1].arguments == "not json"


def test_a_call_id_used_twice_in_a_round_matches_its_actions_in_order() -> None:
    t = Transcript.from_events([
        Action(round=1, call_id="", tool="add", arguments={"a": 1}),
        Action(round=1, call_id="", tool="add", arguments={"a": 2}),
        Observation(round=1, call_id="", tool="add", text="first", ok=True, duration_ms=1),
        Observation(round=1, call_id="", tool="add", text="second", ok=True, duration_ms=1),
    ])

    assert [(s.arguments, s.observation) for s in t.rounds[0].calls] == [
        ({"a": 1}, "first"), ({"a": 2}, "second")]


def test_the_observation_for_calls_not_run_is_a_step_of_its_own() -> None:
    """It carries the first call's id that was not run; it never answers another Action."""
    t = Transcript.from_events([
        Action(round=1, call_id="c0", tool="add", arguments={"a": 1}),
        Observation(round=1, call_id="c0", tool="add", text="3 more calls not run",
                    ok=False, duration_ms=0, failure=ObservationFailure.NOT_RUN),
        Observation(round=1, call_id="c0", tool="add", text="2", ok=True, duration_ms=1),
    ])

    assert [(s.call_id, s.observation, s.failure) for s in t.rounds[0].calls] == [
        ("c0", "2", None), ("c0", "3 more calls not run", "not_run")]


def test_an_observation_without_its_action_is_kept_not_lost() -> None:
    t = Transcript.from_events([
        Observation(round=1, call_id="x", tool="wiki", text="text", ok=True, duration_ms=5),
    ])

    assert t.rounds[0].calls == [CallView("x", "wiki", {}, "text", True, 5)]


def test_unknown_future_event_types_are_ignored() -> None:
    @dataclass(frozen=True, slots=True)
    class Plan(Event):
        type: ClassVar[str] = "plan"
        steps: tuple[str, ...] = ()

    events = weather_run()
    events.insert(1, Plan(round=0, steps=("look up", "answer")))

    assert Transcript.from_events(events) == Transcript.from_events(weather_run())


def test_stored_events_rebuilt_from_dicts_fold_to_the_same_transcript() -> None:
    stored = [event_from_dict(e.to_dict()) for e in weather_run()]

    assert Transcript.from_events(stored) == Transcript.from_events(weather_run())


def fold_seconds(rounds: int) -> float:
    """The CPU time folding a run of `rounds` rounds, one thought each, takes on this thread
    (on a loaded machine other processes' time would count against the larger run more)."""
    events = [Thought(round=n, text=f"step {n}") for n in range(1, rounds + 1)]
    start = time.thread_time()
    Transcript.from_events(events)
    return time.thread_time() - start


def test_a_run_of_thousands_of_rounds_folds_in_linear_time() -> None:
    """A comparison of stored runs folds a copy of each side's chain, which may hold
    thousands of rounds: 8 times the rounds take about 8 times as long (64 if quadratic)."""
    smalls, larges = [], []
    for _ in range(3):  # the least of three, each size in turn
        smalls.append(fold_seconds(1_000))
        larges.append(fold_seconds(8_000))
    ratio = min(larges) / min(smalls)
    assert ratio < 20, f"{ratio:.1f}× the time for 8× the rounds"


def test_rounds_stay_in_order_whatever_order_they_come_in() -> None:
    t = Transcript.from_events([Thought(round=n, text=f"step {n}") for n in (3, 1, 4, 2, 5)])
    assert [(view.number, view.thought) for view in t.rounds] == [
        (n, f"step {n}") for n in range(1, 6)]


def test_plain_runs_record_their_mode() -> None:
    t = Transcript.from_events([
        RunStarted(round=0, mode="plain", question="q", model="m"),
        AnswerDelta(round=1, text="A"),
        Answer(round=1, text="A"),
    ])

    assert t.mode == "plain"
    assert t.rounds == []
    assert t.answer == "A"


def test_a_glassbox_note_folds_into_its_round_and_shows_as_glassbox_words() -> None:
    from bot.view.render import render_run

    note = Remark(round=2, kind="mode_switch", text="this model writes its tool calls as text")
    assert event_from_dict(note.to_dict()) == note
    events = weather_run()
    t = Transcript.from_events([*events[:7], note, *events[7:]])
    assert t.rounds[1].remarks[0] == "this model writes its tool calls as text"
    page = "".join(render_run(t, "en", live=False))
    assert ("<i>📝 Written by Glassbox: this model writes its tool calls as text. The model "
            "wrote no reasoning; it answered after the observations above.</i>") in page


def test_a_stored_synthesised_thought_shows_as_glassbox_words_not_a_thought() -> None:
    from bot.view.render import render_run

    t = Transcript.from_events([
        RunStarted(round=0, mode="react", question="q", model="m"),
        Thought(round=1, text="To answer this I first need to look something up.",
                synthesized=True),
        Action(round=1, call_id="c1", tool="weather", arguments={"city": "Paris"})])
    for lang, label in (("en", "Written by Glassbox: "), ("zh", "由 Glassbox 补写：")):
        page = "".join(render_run(t, lang, live=False))
        assert f"<i>📝 {label}To answer this" in page
        assert "💭" not in page
