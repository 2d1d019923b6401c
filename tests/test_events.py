"""Events as stored: `to_dict()` JSON comes back as the same event, and payloads written
by earlier versions still load."""

from __future__ import annotations

import json

import pytest

from agent.events import (
    Decided,
    Observation,
    ObservationFailure,
    Proposed,
    RunFinished,
    Usage,
    event_from_dict,
)


def stored(data: dict[str, object]) -> dict[str, object]:
    """What the store keeps and hands back: the dict through JSON."""
    return json.loads(json.dumps(data, ensure_ascii=False))


def test_a_failed_observation_round_trips_with_its_failure() -> None:
    obs = Observation(round=1, call_id="c1", tool="get_weather", text="Open-Meteo answered "
                      "with error 503", ok=False, duration_ms=12,
                      failure=ObservationFailure.UPSTREAM_ERROR)
    data = stored(obs.to_dict())
    assert data["failure"] == "upstream_error"
    again = event_from_dict(data)
    assert again == obs and isinstance(again, Observation)
    assert again.failure is ObservationFailure.UPSTREAM_ERROR


def test_an_observation_stored_before_failures_were_recorded_still_loads() -> None:
    old = {"type": "observation", "round": 1, "call_id": "c1", "tool": "convert_currency",
           "text": "Frankfurter did not answer in time.", "ok": False, "duration_ms": 10000}
    obs = event_from_dict(old)
    assert isinstance(obs, Observation)
    assert (obs.ok, obs.failure) == (False, None)  # failed, for a reason no one recorded


def test_a_failure_kind_that_does_not_exist_is_refused() -> None:
    with pytest.raises(ValueError, match="no_such_kind"):
        event_from_dict({"type": "observation", "round": 1, "call_id": "c", "tool": "t",
                         "text": "x", "ok": False, "duration_ms": 0, "failure": "no_such_kind"})


def test_failure_values_are_the_stored_strings() -> None:
    assert [str(f) for f in ObservationFailure] == [
        "bad_arguments", "unknown_tool", "timeout", "tool_error", "upstream_error", "skipped",
        "not_run"]


def test_walkthrough_events_round_trip() -> None:
    proposed = Proposed(round=1, call_id="c1", tool="calculate", arguments={"expression": "1"})
    decided = Decided(round=1, call_id="c1", tool="calculate", decision="edit", by="Alice",
                      arguments={"expression": "2"})
    for event in (proposed, decided):
        assert event_from_dict(stored(event.to_dict())) == event


def test_a_run_finished_round_trips() -> None:
    done = RunFinished(round=2, status="error", usage=Usage(1, 2, 3), duration_ms=5, rounds=2,
                       tool_calls=1, reason="The model service had an error.",
                       error_kind="server")
    assert event_from_dict(stored(done.to_dict())) == done
