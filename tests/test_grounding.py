"""No figure without an observation: figures of an answer that no observation,
the question or the history holds are marked "ⁱ" with one line under the answer (in
/compare's no-tools lane: "from the model's memory"), and a run whose lookups failed says
so in a Glassbox note. What the chat and the export show, from runs over real HTTP."""

from __future__ import annotations

import pytest

from agent import Answer, ModelClient, Turn, run_plain
from agent.events import Remark
from agent.grounding.backing import ledger, unfounded
from agent.settings import AgentSettings
from agent.tools.calculator import Calculate
from bot.view.export import export_html
from bot.view.grounding_marks import marked
from bot.view.render import render_compare, render_run
from bot.view.transcript import Transcript
from testkit.fakes.model import FakeModel, text_reply, tool_reply
from tests.test_export import Page, record
from tests.test_loop import Weather, events_of, of, react

CASES = [
    # (answer, sources, unfounded)
    ("The time in London is 10:30 AM.", ["London: 14:05 (Europe/London)"], ["10:30 AM"]),
    ("It is 2:05 PM in London.", ["London: 14:05:33 GMT, 2025-12-01"], []),
    ("It is 14:05.", ["2:05 PM"], []),
    ("123456789 × 987654321 = 121,932,631,112,635,269",
     ["123456789 × 987654321", "121932631112635269"], []),
    ("About 713.44 CNY, rate 7.13.", ["100 USD = 713.4372 CNY (1 USD = 7.134372 CNY)"], []),
    ("It is 21°C, humidity 35%.", ["21.4 °C, humidity 35 %"], []),
    ("It is 25°C, humidity 40%.", ["21.4 °C, humidity 35 %"], ["25°C", "40%"]),
    ("Today is 2025-12-01.", ["Monday, 1 December 2025 (12/01)"], []),
    ("1. Think 2. Act 3. Observe", [], []),  # single digits are no figures
    ("Qwen2.5 in 2024", [], ["2024"]),
    ("21.4°C ... again 21.4°C", [], ["21.4°C"]),  # each figure once
    # a clock's weekday is no figure: 星期五 (Friday) backs no 5 hours
    ("北京现在比伦敦早5小时。", ["北京（Asia/Shanghai）：2026年12月4日 星期五 00:03（UTC+08:00）",
                          "伦敦（Europe/London）：2026年12月3日 星期四 16:03（UTC+00:00）"],
     ["5小时"]),
    ("今天是星期五，每周五天课。", ["每周五天课"], []),
    # the unit amount of a rate is how a rate is said, no claim: only its value is marked
    ("1 EUR is 7.85 CNY.", [], ["7.85 CNY"]),
    ("1 USD is about 7.30 CNY, so 100 USD is 730 CNY.", ["100 USD"], ["7.30 CNY", "730 CNY"]),
    ("1欧元约等于7.85元人民币。", [], ["7.85元人民币"]),
    ("I paid 1 USD and got 7 CNY back.", [], ["1 USD", "7 CNY"]),
]


@pytest.mark.parametrize(("answer", "sources", "expected"), CASES)
def test_unfounded_figures(answer: str, sources: list[str], expected: list[str]) -> None:
    assert list(unfounded(ledger(answer, sources))) == expected


def test_a_run_stored_before_the_ledger_is_marked_as_it_was_shown() -> None:
    """Old runs list only the unbacked figures' texts: each standing occurrence is marked."""
    answer = "It is 25°C at 10:30 AM; 125 and 2.25 are other figures; 25°C again."
    assert marked(answer, unfounded=["25", "10:30 AM"]) == (
        "It is 25ⁱ°C at 10:30 AMⁱ; 125 and 2.25 are other figures; 25ⁱ°C again.")


async def test_a_guess_after_a_failed_lookup_is_marked_and_the_failure_said(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    fake_model.push(tool_reply(("get_weather", {"city": "Atlantis"})),
                    text_reply("In Atlantis it is 10:30 AM and 25°C."))
    events = await events_of(react("Weather in Atlantis?", client, settings, [Weather()]))
    (note,) = [n for n in of(events, Remark) if n.kind == "lookups_failed"]
    assert note.round == 2
    assert 'get_weather(city="Atlantis")' in note.text
    (answer,) = of(events, Answer)
    assert answer.unfounded == ("10:30 AM", "25°C")
    assert events.index(note) < events.index(answer)

    shown = "".join(render_run(Transcript.from_events(events), "en", live=False))
    assert "10:30 AMⁱ and 25°Cⁱ" in shown
    assert "ⁱ not from any observation: 10:30 AM, 25°C" in shown
    assert "These lookups failed" in shown and "10:30 AM, 25°C were not looked up" in shown
    page = Page(export_html(record(), {"main": events}, "en")).text
    assert "10:30 AMⁱ" in page and "not from any observation: 10:30 AM, 25°C" in page


async def test_a_failed_lookup_answered_without_figures_gets_no_verdict(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    fake_model.push(tool_reply(("get_weather", {"city": "Atlantis"})),
                    text_reply("I could not find a place called Atlantis; it may be a legend."))
    events = await events_of(react("Weather in Atlantis?", client, settings, [Weather()]))
    notes = [n.text for n in of(events, Remark) if n.round == 2]
    assert notes == ["the model wrote no reasoning before answering.",
                     'these lookups failed: get_weather(city="Atlantis").']
    shown = "".join(render_run(Transcript.from_events(events), "en", live=False))
    for verdict in ("anyway", "not looked up", "does not rest"):
        assert verdict not in shown, verdict


async def test_figures_from_an_observation_or_the_history_are_not_marked(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    fake_model.push(tool_reply(("get_weather", {"city": "Lima"})),
                    text_reply("Lima is 21°C, like the 18°C of Quito you asked about."))
    history = [Turn("And Quito?", "Quito was 18°C.")]
    events = await events_of(react("Lima?", client, settings, [Weather()], history=history))
    assert of(events, Answer)[0].unfounded == ()
    assert not [n for n in of(events, Remark) if n.kind == "lookups_failed"]
    shown = "".join(render_run(Transcript.from_events(events), "en", live=False))
    assert "ⁱ" not in shown and "not from any observation" not in shown


async def test_a_difference_answered_as_a_percentage_is_marked(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    """calculate("92 - 80") gives 12, a difference: "12%" rests on no calculation of a per
    cent, so it goes back to the model once and, said again, keeps its mark; the rise
    worked out as a per cent is backed."""
    question = "The price rose from 80 to 92; by what percent?"
    fake_model.push(tool_reply(("calculate", {"expression": "92 - 80"})),
                    text_reply("It rose by 12%."), text_reply("It rose by 12%."))
    events = await events_of(react(question, client, settings, [Calculate()]))
    (note,) = [n for n in of(events, Remark) if n.kind == "sent_back"]
    assert "12%" in note.text and "calculate" in note.text
    (answer,) = of(events, Answer)
    assert answer.unfounded == ("12%",)
    assert "12%ⁱ" in "".join(render_run(Transcript.from_events(events), "en", live=False))

    fake_model.push(tool_reply(("calculate", {"expression": "92 - 80"})),
                    text_reply("It rose by 12%."),
                    tool_reply(("calculate", {"expression": "(92 - 80) / 80 * 100"})),
                    text_reply("It rose by 15%."))
    events = await events_of(react(question, client, settings, [Calculate()]))
    (answer,) = of(events, Answer)
    assert answer.text == "It rose by 15%." and answer.unfounded == ()


async def test_compare_labels_the_no_tools_figures_as_memory(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    fake_model.push(text_reply("杭州现在大约 18 度。"))
    plain = await events_of(run_plain("杭州现在几度？", client=client, settings=settings))
    fake_model.push(tool_reply(("get_weather", {"city": "杭州"})),
                    text_reply("杭州现在 21°C，晴。"))
    chain = await events_of(react("杭州现在几度？", client, settings, [Weather()]))
    shown = "".join(render_compare(Transcript.from_events(plain), Transcript.from_events(chain),
                                   "zh", live=False))
    assert "大约 <u>18</u> 度ⁱ" in shown and "ⁱ 来自模型的记忆：18 度" in shown  # 18 vs 21
    assert "现在 <u>21</u>°C，晴" in shown and "不来自任何观察" not in shown
