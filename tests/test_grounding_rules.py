"""Each rule of the figure ledger (agent/grounding/backing.py), what is no figure, Chinese figures,
and the ledger as /show, /export and the board show it."""

from __future__ import annotations

import time

import pytest

from agent.events import Answer, Observation, RunFinished, RunStarted, event_from_dict
from agent.grounding.backing import ledger
from agent.grounding.figures import figures
from agent.ledger import Backing, Entry, Rule
from agent.prompts import Turn
from bot.view.board_html import _lane
from bot.view.export import export_html
from bot.view.render import render_run
from bot.view.transcript import Transcript
from tests.test_export import Page, record

HZ = ("Hangzhou (local time 2025-04-11 14:00):\nnow 21.4 °C, feels like 19.8 °C, humidity 35%, "
      "wind 12.6 km/h\ntoday: high 24.1 °C, low 9.3 °C")
FX = "100 USD = 729.94 CNY (rate 1 USD = 7.2994 CNY, ECB reference rate of 2025-04-11)"
BERLIN = "Berlin (local time 2026-12-03 09:00): now 2.3 °C, humidity 87%"
SENNA = ("Senna won 41 Grands Prix and set 65 pole positions, the record until 2006; "
         "he died in 1994.")
HRB = "哈尔滨（当地时间 2026-12-03 16:00）：现在 3.5 °C，湿度 80%，最高 5.2 °C，最低 -6.1 °C"


def entry(answer: str, figure: str, observations: list[str], question: str = "",
          history: tuple[Turn, ...] = ()) -> Entry:
    (found,) = [e for e in ledger(answer, observations, question, history) if e.text == figure]
    return found


@pytest.mark.parametrize(("answer", "figure", "sources", "backing", "rule"), [
    ("It is 21.4 °C.", "21.4 °C", [HZ], Backing.OBSERVATION, Rule.EXACT),
    ("About 21 °C.", "21 °C", [HZ], Backing.OBSERVATION, Rule.ROUNDED),
    # more digits than Decimal's default 28: its bounds rounded, the value fell outside them
    ("Exactly 1267650600228229401496703205376.", "1267650600228229401496703205376",
     ["2**100 = 1267650600228229401496703205376"], Backing.OBSERVATION, Rule.EXACT),
    ("Roughly 730 yuan.", "730 yuan", [FX], Backing.OBSERVATION, Rule.ROUNDED),
    ("It is 36.1 °F.", "36.1 °F", [BERLIN], Backing.COMPUTED, Rule.CONVERTED),
    ("It is 294.6 K.", "294.6 K", [HZ], Backing.COMPUTED, Rule.CONVERTED),
    ("Wind 3.5 m/s.", "3.5 m/s", [HZ], Backing.COMPUTED, Rule.CONVERTED),
    ("Wind 7.8 mph.", "7.8 mph", [HZ], Backing.COMPUTED, Rule.CONVERTED),
    ("Humidity 0.35.", "0.35", [HZ], Backing.COMPUTED, Rule.CONVERTED),
    ("1000 yuan is 137.00 US dollars.", "137.00 US dollars", [FX, "1000 CNY"], Backing.COMPUTED,
     Rule.RATE),
    ("So 10 USD is 72.99 CNY.", "72.99 CNY", [FX], Backing.COMPUTED, Rule.RATE),
    ("So 10 USD is 72.99 CNY.", "10 USD", [FX], Backing.COMPUTED, Rule.EXAMPLE),
    ("A range of 14.8 degrees.", "14.8 degrees", [HZ], Backing.COMPUTED, Rule.DIFFERENCE),
    ("106 in all.", "106", [SENNA], Backing.COMPUTED, Rule.SUM),
    ("From 1994 to 2006, 12 years.", "12 years", [SENNA], Backing.COMPUTED, Rule.DIFFERENCE),
    ("Everest is 8.8 km high.", "8.8 km", ["8,849 m"], Backing.COMPUTED, Rule.CONVERTED),
    ("87% is 2.49 times 35%.", "2.49", [BERLIN, HZ], Backing.COMPUTED, Rule.RATIO),
    ("An average of 18.3 °C.", "18.3 °C", [HZ], Backing.COMPUTED, Rule.MEAN),
    ("15% of 80 is 12.", "12", [], Backing.COMPUTED, Rule.PRODUCT),
    ("20% off 150 is 120.", "120", ["20% off 150?"], Backing.COMPUTED, Rule.PERCENT_CHANGE),
    ("Tokyo is 9 hours ahead.", "9 hours", ["London: 09:15", "Tokyo: 18:15"], Backing.COMPUTED,
     Rule.TIME_DIFFERENCE),
    ("东京比伦敦快9个小时。", "9个小时", ["London: 09:15 (UTC+00:00)", "Tokyo: 18:15 (UTC+09:00)"],
     Backing.COMPUTED, Rule.TIME_DIFFERENCE),
    ("It is 30 minutes later there.", "30 minutes", ["Delhi: 14:45", "Kathmandu: 15:15"],
     Backing.COMPUTED, Rule.TIME_DIFFERENCE),
    ("On December 3rd.", "December 3rd", [BERLIN], Backing.OBSERVATION, Rule.DATE),
    ("At 9 AM.", "9 AM", [BERLIN], Backing.OBSERVATION, Rule.TIME),
    ("From 2025.", "2025", [FX], Backing.OBSERVATION, Rule.DATE),
    ("现在三点五度。", "三点五度", [HRB], Backing.OBSERVATION, Rule.EXACT),
    ("湿度百分之八十。", "百分之八十", [HRB], Backing.OBSERVATION, Rule.EXACT),
    ("最低零下六点一度。", "零下六点一度", [HRB], Backing.OBSERVATION, Rule.EXACT),
    ("最低零下6.1度。", "零下6.1度", [HRB], Backing.OBSERVATION, Rule.EXACT),
    ("温差十一点三度。", "十一点三度", [HRB], Backing.COMPUTED, Rule.DIFFERENCE),
    ("是两千零二十六年十二月三日。", "两千零二十六年十二月三日", [HRB], Backing.OBSERVATION,
     Rule.DATE),
    ("约2487万人。", "2487万", ["24,870,895 人"], Backing.OBSERVATION, Rule.ROUNDED),
])
def test_each_rule_backs_what_it_states(answer: str, figure: str, sources: list[str],
                                        backing: Backing, rule: Rule) -> None:
    found = entry(answer, figure, sources, question="What is 15% of 80?")
    assert (found.backing, found.rule) == (backing, rule)


@pytest.mark.parametrize(("answer", "figure", "sources"), [
    ("It is 12 °C.", "12 °C", [BERLIN]),  # the date's 12 is no temperature
    ("The reading is from 2025-04-14.", "2025-04-14", [HZ]),  # 14:00 and 2025 are no date
    ("It is December 4, 2026.", "December 4, 2026", [BERLIN]),
    ("About 23 °C.", "23 °C", [HZ]),  # 21.4 does not round to 23
    ("It will reach 13 °C.", "13 °C", ["now 7.8 °C, low 5.2 °C"]),  # a sum by chance
    ("Tokyo is 9 hours ahead.", "9 hours", ["Asia/Tokyo: 17:05 (UTC+09:00)"]),
    ("Tokyo is 8 hours ahead.", "8 hours", ["London: 09:15", "Tokyo: 18:15"]),
    ("It is 72.5 °F.", "72.5 °F", [HZ]),
    ("Atlantis is 77 °F.", "77 °F", ["Atlantis: 25 km away"]),  # °F from km: no
    ("It is 1:40 AM.", "1:40 AM", ["Europe/London: 2026-12-02 00:40"]),
    ("明天零下十度。", "零下十度", [HRB]),
    ("约1.2亿人。", "1.2亿", ["24,870,895 人"]),
    ("It is 121,932,631,112,635,000.", "121,932,631,112,635,000", ["121932631112635269"]),
])
def test_what_no_rule_verifies_is_unbacked(answer: str, figure: str, sources: list[str]) -> None:
    assert entry(answer, figure, sources).backing == Backing.UNBACKED


RISE = "The price rose from 80 to 92; by what percent?"


@pytest.mark.parametrize(("answer", "figure", "sources", "question", "backing"), [
    # a difference is no percentage: nothing computed 12 as a per cent (the rise is 15 %)
    ("It rose by 12%.", "12%", ["92 - 80 = 12"], RISE, Backing.UNBACKED),
    ("It rose by 12 per cent.", "12 per cent", ["92 - 80 = 12"], RISE, Backing.UNBACKED),
    ("涨了百分之十二。", "百分之十二", ["92 - 80 = 12"], RISE, Backing.UNBACKED),
    ("涨了12％。", "12％", ["92 - 80 = 12"], RISE, Backing.UNBACKED),
    ("It rose by 12.", "12", ["92 - 80 = 12"], RISE, Backing.OBSERVATION),
    ("It rose by 15%.", "15%", ["(92 - 80) / 80 * 100 = 15"], RISE, Backing.OBSERVATION),
    ("It is 12%.", "12%", ["12% * 100 = 12"], "", Backing.OBSERVATION),
    ("Humidity is 87%.", "87%", ["92 - 5 = 87", BERLIN], "", Backing.OBSERVATION),
    ("It is 12%.", "12%", ["92 - 80 = 12"], "Is the rise 12%?", Backing.QUESTION),
    # nor is the ledger's own difference of the answer's 80 and 92; one of per cents is
    ("From 80 to 92, up 12%.", "12%", [], RISE, Backing.UNBACKED),
    ("From 35% to 87%, up 52%.", "52%", [HZ, BERLIN], "", Backing.COMPUTED),
])
def test_a_calculation_backs_a_percentage_only_when_it_could_give_a_ratio(
        answer: str, figure: str, sources: list[str], question: str, backing: Backing) -> None:
    assert entry(answer, figure, sources, question).backing == backing


def test_the_question_and_the_history_back_figures() -> None:
    history = (Turn("Berlin?", "Berlin is 2.3 °C."),)
    entries = ledger("Berlin was 2.3 °C, and 150 of them; Hangzhou is 19.1 degrees warmer.",
                     [HZ], "一百五十的百分之二十?", history)
    assert [(e.text, e.backing) for e in entries] == [
        ("2.3 °C", Backing.HISTORY), ("150", Backing.QUESTION),
        ("19.1 degrees", Backing.COMPUTED)]


@pytest.mark.parametrize("text", [
    "```python\nprint(c * 9 / 5 + 32)\n```",
    "Use `round(21.456, 2)` or `range(10)`.",
    "10. Tenth\n11. Eleventh\n[12] Twelfth\n## 13. Heading\n> 14. quoted",
    "Python 3.11, ISO 8601, RFC 9110, GPT-4, Qwen2.5, HTTP/2, UTF-8, v22, 1.2.3, 24/7",
    "See point 11 and step 12; the 2nd item. 第十一条。",
    "From https://api.open-meteo.com/v1/forecast?latitude=30.29 and 2 cities; 一样，十分好。",
])
def test_what_is_no_figure(text: str) -> None:
    assert figures(text) == ()


def test_figures_read_as_their_kind_and_value() -> None:
    read = {f.text: f for f in figures(
        "两千零二十四年, 下午两点, 百分之八十, 2487万, 12:40 AM, 36.1 °F, 2 December 2026")}
    assert read["两千零二十四年"].date == (2024, None, None)
    assert read["下午两点"].time == (14, 0, True)
    assert (read["百分之八十"].value, read["百分之八十"].unit) == (80, "%")
    assert (read["2487万"].value, read["2487万"].exponent) == (24870000, 4)
    assert read["12:40 AM"].time == (0, 40, True)
    assert read["36.1 °F"].unit == "°F"
    assert read["2 December 2026"].date == (2026, 12, 2)


def test_reading_and_checking_hostile_text_stays_linear() -> None:
    """Long runs of what the patterns look for; a backtracking pattern would take minutes."""
    sources = ["1," * 10_000, "1" * 20_000, "9:" * 10_000, "2025-" * 5_000]
    hostile = ["1," * 20_000, "1." * 20_000, "1" * 20_000 + "x", "9:" * 20_000,
               "2025-" * 10_000, "一" * 20_000, "点" * 20_000, "`" * 20_000,
               "December " * 5_000, "1 " * 20_000, "$" * 20_000, "```\n" * 5_000]
    for text in hostile:
        start = time.perf_counter()
        ledger(text, sources, text)
        assert time.perf_counter() - start < 10, text[:20]


ANSWER = "Berlin is 36.1 °F (2.3 °C); tomorrow 12 °C."
EVENTS = [RunStarted(0, "react", "Berlin?", "m"),
          Observation(1, "c1", "get_weather", BERLIN, True, 5)]


def _events() -> list:
    entries = ledger(ANSWER, [BERLIN], "Berlin?")
    answer = Answer(2, ANSWER, unfounded=("12 °C",), ledger=entries)
    stored = [event_from_dict(e.to_dict()) for e in [*EVENTS, answer, RunFinished(2, "done")]]
    assert stored[2] == answer  # the store keeps the ledger as it was
    return stored


def _board_answer(t: Transcript) -> str:
    """The answer step of a finished run's lane on the board."""
    _, answer = _lane("main", t, "en", False, (t.answer, t.ledger))
    return answer


def test_show_lists_the_ledger_and_the_chat_stays_quiet() -> None:
    t = Transcript.from_events(_events())
    live = "".join(render_run(t, "en", live=True))
    assert "tomorrow 12 °Cⁱ." in live and "36.1 °F (2.3 °C)" in live
    assert "Where the figures come from" not in live
    shown = "".join(render_run(t, "en", live=False))
    assert "36.1 °F — computed from 2.3 °C (unit conversion)" in shown
    assert "2.3 °C — observation 1 (exact)" in shown
    assert "12 °Cⁱ — nothing: not from any observation" in shown
    zh = "".join(render_run(t, "zh", live=False))
    assert "36.1 °F — 由 2.3 °C 算出（单位换算）" in zh


def test_the_export_has_a_ledger_table_and_the_board_a_title_on_each_figure() -> None:
    events = _events()
    document = export_html(record(), {"main": events}, "en")
    assert "<td>36.1 °F</td><td>computed from 2.3 °C (unit conversion)</td>" in document
    assert "<td>12 °Cⁱ</td><td>nothing: not from any observation</td>" in document
    assert "Where the figures come from" in Page(document).text
    board = _board_answer(Transcript.from_events(events))
    assert 'title="computed from 2.3 °C (unit conversion)">36.1 °F</span>' in board
    assert 'title="nothing: not from any observation">12 °C</span>ⁱ' in board


def test_an_old_run_without_a_ledger_replays_as_it_was_shown() -> None:
    old = {"type": "answer", "round": 2, "text": "It is 25°C.", "unfounded": ["25"]}
    t = Transcript.from_events([*EVENTS, event_from_dict(old), RunFinished(2, "done")])
    shown = "".join(render_run(t, "en", live=False))
    assert "It is 25ⁱ°C." in shown and "Where the figures come from" not in shown
    board = _board_answer(t)
    assert "25ⁱ°C" in board and "title=" not in board
