"""The plan opens the message as a checklist, ticked as matching tools succeed."""

from __future__ import annotations

from agent.events import (
    Action,
    Answer,
    Observation,
    Plan,
    PlannedAction,
    RunFinished,
    RunStarted,
    Thought,
    Usage,
)
from bot.view.render import render_run
from bot.view.spans import to_plain
from bot.view.transcript import Transcript
from testkit.fakes.telegram_html import parse_html

PLAN = Plan(round=0, actions=(
    PlannedAction("get_weather", "today's weather in <Paris>"),
    PlannedAction("get_weather", "and in Berlin"),
    PlannedAction("finish", "compare them"),
))


def chain(*, second_ok: bool, answered: bool) -> Transcript:
    events = [
        RunStarted(round=0, mode="react", question="Paris or Berlin warmer?", model="m"),
        PLAN,
        Thought(round=1, text="Look both up."),
        Action(round=1, call_id="a", tool="get_weather", arguments={"city": "Paris"}),
        Action(round=1, call_id="b", tool="get_weather", arguments={"city": "Berlin"}),
        Observation(round=1, call_id="a", tool="get_weather", text="21°C", ok=True,
                    duration_ms=5),
        Observation(round=1, call_id="b", tool="get_weather", text="timeout", ok=second_ok,
                    duration_ms=5),
    ]
    if answered:
        events += [Thought(round=2, text="Done.", synthesized=True),
                   Answer(round=2, text="Paris."),
                   RunFinished(round=2, status="done", usage=Usage(1, 1, 2), rounds=2)]
    return Transcript.from_events(events)


def test_checklist_ticks_steps_as_tools_succeed() -> None:
    text = to_plain(render_run(chain(second_ok=False, answered=False), "en")[0])
    assert "📋 Plan\n☑ get_weather — today's weather in <Paris>\n☐ get_weather — and in Berlin\n"\
           "☐ answer — compare them" in text
    assert text.index("📋 Plan") < text.index("Round 1")
    done = to_plain(render_run(chain(second_ok=True, answered=True), "zh")[0])
    assert "📋 计划\n☑ get_weather — today's weather in <Paris>\n☑ get_weather — and in Berlin\n"\
           "☑ 作答 — compare them" in done


def test_plan_page_is_valid_html() -> None:
    for page in render_run(chain(second_ok=True, answered=True), "en"):
        parse_html(page)
        assert "&lt;Paris&gt;" in page
