"""A real small model's streams, replayed (issue 18): what Qwen2.5-Coder-1.5B-Instruct behind
llama-cpp-python's server sent for the class questions (tests/wire/local/, recorded by
`scripts/bench --local-model URL --record`), byte for byte from the fake model server,
through the real loop, tools on the fakes, and drawn as the chat draws it.

Each run must ask the model exactly as often as when it was recorded (so the replies fit
the requests), show an answer with no tool-call JSON, and come to what
the live run came to (question.json's `problems`: empty when it was right, else why not),
so a change that reads the same streams worse, or better, shows here.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import ExitStack
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from agent import ModelClient, run_react
from agent.events import (
    Action,
    Answer,
    AnswerDelta,
    Event,
    Observation,
    Remark,
    RunFinished,
    Thought,
)
from agent.protocols.echoed_errors import ERROR_KIND
from agent.tool import Tool
from agent.tools import Toolbox
from agent.tools.clock import GetTime
from bench.local_model import CALL_JSON, Question, answer_lang, outcome_of, settings_for
from bot.view.grounding_marks import MARK, marked
from bot.view.render import render_run
from bot.view.transcript import Transcript
from testkit.fakes.model import SSE_HEADERS, FakeModel
from testkit.fakes.server import Reply
from testkit.fakes.telegram_html import parse_html
from testkit.fakes.upstreams import FakeFrankfurter, FakeOpenMeteo, FakeWikipedia

RECORDED = Path(__file__).parent / "wire" / "local"
SCRIPTED = Path(__file__).parent / "wire" / "local_scripted"
"""The same format, written by hand (see its README.md)."""
RUNS = sorted(p for p in RECORDED.iterdir() if (p / "question.json").exists())


def meta(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "question.json").read_text("utf-8"))


def tools_at(box: Toolbox, settings: Any, clock: str | None) -> list[Tool]:
    """The toolbox's tools, get_time reading the time the run was recorded at (if given)."""
    if clock is None:
        return list(box.tools)
    now = datetime.fromisoformat(clock)
    return [GetTime(settings.default_timezone, clock=lambda: now) if t.name == GetTime.name
            else t for t in box.tools]


@pytest.fixture
async def stage(fake_model: FakeModel) -> AsyncIterator[tuple[ModelClient, Any, Toolbox]]:
    with ExitStack() as stack:
        meteo = stack.enter_context(FakeOpenMeteo())
        rates = stack.enter_context(FakeFrankfurter())
        wiki = stack.enter_context(FakeWikipedia())
        settings = settings_for(fake_model.base_url, meteo, rates, wiki).model_copy(
            update={"llm_timeout_s": 10})
        client = ModelClient(settings)
        box = await Toolbox.open(settings)
        try:
            yield client, settings, box
        finally:
            await box.aclose()
            await client.close()


async def replay(folder: Path, fake_model: FakeModel,
                 stage: tuple[ModelClient, Any, Toolbox]) -> tuple[list[Event], str]:
    """The run's events, replayed from its streams, and its chat message as drawn (HTML)."""
    client, settings, box = stage
    info = meta(folder)
    streams = sorted(folder.glob("*.sse"))
    fake_model.push(*(Reply(200, [(0.0, s.read_bytes())], dict(SSE_HEADERS)) for s in streams))
    client.memory.calls_as_text = info["starts_in_text"]
    events = [e async for e in run_react(info["question"], client=client, settings=settings,
                                         tools=tools_at(box, settings, info.get("clock")))]
    assert len(fake_model.bodies) == len(streams)
    return events, "\n".join(render_run(Transcript.from_events(events), "en", live=False))


@pytest.mark.parametrize("folder", RUNS, ids=[p.name for p in RUNS])
async def test_a_recorded_run_replays_to_a_right_answer(
    folder: Path, fake_model: FakeModel, stage: tuple[ModelClient, Any, Toolbox]
) -> None:
    info = meta(folder)
    events, shown = await replay(folder, fake_model, stage)
    q = Question(folder.name, info["question"], info["tool"], info["expect"],
                 tuple(info.get("also", ())), info.get("then", ""))
    outcome = outcome_of(q, events)
    assert outcome.problems() == info["problems"]

    assert not CALL_JSON.search(outcome.answer) and "```json" not in outcome.answer
    (answer,) = [e for e in events if isinstance(e, Answer)]
    start = marked(" ".join(answer.text.split()[:4]), unfounded=answer.unfounded)
    assert start in " ".join(shown.split())  # the answer is shown, its guesses marked
    for figure in answer.unfounded:
        assert f"{figure}{MARK}" in shown and "not from any observation" in shown
    if any(isinstance(e, Remark) and e.kind == "text_format" for e in events):
        assert "📝" in shown and "Thought/Action/Observation" in shown


async def test_a_call_described_instead_of_made_is_asked_again_in_text(
    fake_model: FakeModel, stage: tuple[ModelClient, Any, Toolbox]
) -> None:
    """Natively the model wrote "I would use the `calculate` function with the expression
    ..." and no call: that is not the answer; the round is asked again in the text format."""
    events, shown = await replay(RECORDED / "arithmetic", fake_model, stage)
    assert "This model described a tool call instead of making it" in shown
    assert [e.tool for e in events if isinstance(e, Action)] == ["calculate"]
    (answer,) = [e for e in events if isinstance(e, Answer)]
    assert "`calculate`" not in answer.text and "121932631112635269" in answer.text
    assert "I would use" not in shown
    assert "tools" in fake_model.bodies[0] and "tools" not in fake_model.bodies[1]


@pytest.mark.parametrize("folder", ["currency", "currency_zh"])
async def test_positional_inputs_fill_the_tool_fields_in_order(
    folder: str, fake_model: FakeModel, stage: tuple[ModelClient, Any, Toolbox]
) -> None:
    """`convert_currency[100, USD, CNY]`: amount, from, to, as the tool declares them (last
    session the amount was lost, and the model multiplied the rate of 1 USD itself)."""
    events, shown = await replay(RECORDED / folder, fake_model, stage)
    (action,) = [e for e in events if isinstance(e, Action)]
    assert action.arguments in ({"amount": 100, "from_currency": "USD", "to_currency": "CNY"},
                                {"amount": 100.0, "from_currency": "USD", "to_currency": "CNY"})
    (observation,) = [e for e in events if isinstance(e, Observation)]
    assert observation.ok and "729.94" in observation.text
    (answer,) = [e for e in events if isinstance(e, Answer)]
    assert "729.94" in answer.text and not answer.unfounded and MARK not in shown


async def test_a_greeting_is_answered_at_once_without_a_tool(
    fake_model: FakeModel, stage: tuple[ModelClient, Any, Toolbox]
) -> None:
    events, shown = await replay(RECORDED / "greeting", fake_model, stage)
    assert not [e for e in events if isinstance(e, Action)]
    finished = events[-1]
    assert isinstance(finished, RunFinished) and (finished.status, finished.rounds) == (
        "done", 1)
    assert "Hi! I am Glassbox" in shown and "get_" not in shown


@pytest.mark.parametrize(("folder", "line"), [("notes", "(Answer in English.)"),
                                              ("weather_zh", "（请用中文回答。）")])
async def test_the_observation_repeats_the_question_language(
    folder: str, line: str, fake_model: FakeModel, stage: tuple[ModelClient, Any, Toolbox]
) -> None:
    """The course notes are Chinese: an English question's answer came out in Chinese while
    only Chinese questions were reminded of their language. Every language is, alike."""
    events, _ = await replay(RECORDED / folder, fake_model, stage)
    assert fake_model.bodies[-1]["messages"][-1]["content"].endswith("\n" + line)
    (answer,) = [e for e in events if isinstance(e, Answer)]
    assert answer_lang(answer.text) == ("zh" if "中文" in line else "en")


async def test_an_english_question_reads_the_english_half_of_bilingual_notes(
    fake_model: FakeModel, stage: tuple[ModelClient, Any, Toolbox]
) -> None:
    """The notes hold ReAct in Chinese and in English. Shown only the Chinese passages, the
    model answered an English question from memory ("ReAct is a programming language …");
    shown the English ones (the run's language first), it says what the notes say."""
    events, shown = await replay(RECORDED / "notes", fake_model, stage)
    (observation,) = [e for e in events if isinstance(e, Observation)]
    assert observation.ok and "[react.md › What ReAct is]" in observation.text
    assert answer_lang(observation.text) == "en"
    (answer,) = [e for e in events if isinstance(e, Answer)]
    assert "Thought" in answer.text and "Action" in answer.text
    assert "programming language" not in shown


async def test_a_tool_error_repeated_as_the_answer_is_not_shown_as_the_answer(
    fake_model: FakeModel, stage: tuple[ModelClient, Any, Toolbox]
) -> None:
    """The calculator refused the model's expression; the model searched for it, the repeat
    guard forced a last round, and the model answered with the calculator's error. The chat
    shows no 💬 Answer: Glassbox says, in Chinese and in its own name, what it could not do."""
    events, _ = await replay(SCRIPTED / "error_as_answer", fake_model, stage)
    assert [e.tool for e in events if isinstance(e, Action)] == [
        "calculate", "search_wikipedia", "search_notes", "search_wikipedia", "search_notes",
        "search_wikipedia"]
    refused = next(e for e in events if isinstance(e, Observation))
    assert not refused.ok and "写法示例：12.5% * 3840" in refused.text  # how to mend it
    assert not [e for e in events if isinstance(e, Answer | AnswerDelta)]
    notes = [e.kind for e in events if isinstance(e, Remark)]
    assert notes[-2:] == ["forced_answer", "error_as_answer"]
    done = events[-1]
    assert isinstance(done, RunFinished)
    assert (done.status, done.error_kind, done.rounds) == ("error", ERROR_KIND, 7)
    assert done.reason.startswith("没有得到回答：calculate(")
    pages = render_run(Transcript.from_events(events), "zh", live=False)
    shown = "\n".join(parse_html(page).text for page in pages)
    assert "💬" not in shown
    assert "📝 由 Glassbox 补写：" in shown and "模型的回答只是重复了上面 calculate(" in shown
    assert "❌ 没有得到回答：calculate(" in shown
    assert shown.count("不认识 “百分之十二点五”") == 1  # the observation alone


async def test_the_class_percent_question_is_computed(
    fake_model: FakeModel, stage: tuple[ModelClient, Any, Toolbox]
) -> None:
    """"12.5% 的 3840 是多少？": the model calls calculate("12.5% * 3840"), as when the
    calculator refused it and the run ended with the refusal as its answer; now it is 480."""
    events, _ = await replay(RECORDED / "percent_zh", fake_model, stage)
    (action,) = [e for e in events if isinstance(e, Action)]
    assert action.tool == "calculate" and action.arguments == {"expression": "12.5% * 3840"}
    (observation,) = [e for e in events if isinstance(e, Observation)]
    assert observation.ok and observation.text == "12.5% * 3840 = 480"
    (answer,) = [e for e in events if isinstance(e, Answer)]
    assert "480" in answer.text and answer_lang(answer.text) == "zh"


async def test_a_comparison_looks_up_each_side_it_is_told_is_missing(
    fake_model: FakeModel, stage: tuple[ModelClient, Any, Toolbox]
) -> None:
    """"Is it colder in Berlin or in Paris?": the model looked up one city; told after that
    observation which side nothing had looked up yet, it looked up the other, and its
    answer gives each city its own temperature (Berlin 2.3 °C, Paris 21.4 °C), no side
    resting on no observation."""
    events, shown = await replay(RECORDED / "compare_two_lookups", fake_model, stage)
    looked = [e.arguments for e in events if isinstance(e, Action)]
    assert sorted(a["city"] for a in looked) == ["Berlin", "Paris"]
    first = looked[0]["city"]
    other = "Paris" if first == "Berlin" else "Berlin"
    told = fake_model.bodies[1]["messages"][-1]["content"]
    assert f"Not looked up yet: {other}." in told
    assert "Not looked up yet" not in fake_model.bodies[2]["messages"][-1]["content"]
    (answer,) = [e for e in events if isinstance(e, Answer)]
    assert "2.3" in answer.text and "21.4" in answer.text and not answer.unfounded
    assert not [e for e in events if isinstance(e, Remark) and e.kind == "side_not_looked_up"]
    assert "was not looked up" not in shown


async def test_a_comparison_in_one_lookup_gets_both_places_and_which_is_colder(
    fake_model: FakeModel, stage: tuple[ModelClient, Any, Toolbox]
) -> None:
    """The model writes both cities in one input. get_weather once looked up Berlin alone
    for it (the answer then gave Paris the wind's 10.7 as °C); now it looks up each place and
    says which is colder, the answer rests on both, and Glassbox sends no line of its own
    that the model could copy into its answer."""
    events, shown = await replay(RECORDED / "compare", fake_model, stage)
    (action,) = [e for e in events if isinstance(e, Action)]
    assert action.tool == "get_weather" and action.arguments == {"city": "Berlin, Paris"}
    (observation,) = [e for e in events if isinstance(e, Observation)]
    assert "now 2.3 °C" in observation.text and "now 21.4 °C" in observation.text
    assert observation.text.startswith("Now Berlin (2.3 °C) is colder than Paris (21.4 °C), "
                                       "and Paris is warmer than Berlin.\n\nBerlin, ")
    assert "Looked up" not in fake_model.bodies[1]["messages"][-1]["content"]
    (answer,) = [e for e in events if isinstance(e, Answer)]
    assert "2.3" in answer.text and "21.4" in answer.text and not answer.unfounded
    assert "berlin is colder" in answer.text.lower() and "Looked up" not in answer.text
    assert "was not looked up" not in shown


async def test_a_time_difference_is_one_lookup_of_both_places(
    fake_model: FakeModel, stage: tuple[ModelClient, Any, Toolbox]
) -> None:
    """"北京现在比伦敦早几个小时？": the model once put both places in one get_time input,
    was refused to the round cap, or looked both up and said 1 hour (the 5 of 星期五 even
    counted as its backing); get_time now gives both clocks and the hours between them."""
    events, _ = await replay(RECORDED / "time_diff_zh", fake_model, stage)
    (action,) = [e for e in events if isinstance(e, Action)]
    assert action.tool == "get_time" and action.arguments == {"timezone": "Beijing, London"}
    (observation,) = [e for e in events if isinstance(e, Observation)]
    assert observation.ok and observation.text.endswith("Beijing比London早 8 小时。")
    (answer,) = [e for e in events if isinstance(e, Answer)]
    assert "8" in answer.text and answer_lang(answer.text) == "zh" and not answer.unfounded
    assert [entry.text.replace(" ", "") for entry in answer.ledger] == ["8小时"]


async def test_the_template_s_empty_tools_tag_is_no_thought_and_no_answer(
    fake_model: FakeModel, stage: tuple[ModelClient, Any, Toolbox]
) -> None:
    """Recorded on the real 1.5B model at temperature 0 with the code of the time: natively
    it wrote `<tools></tools>` around its call, that went into the text format's history as
    "Thought: <tools></tools>", and the model wrote that thought and the same call in every
    later round, to the round cap and as its forced last answer, shown as 💬 Answer. Replayed:
    the tag is no thought and is not written back, and the last reply, one more call, is no
    answer: Glassbox says so, in Chinese."""
    folder = RECORDED / "regressions" / "weather_zh_tools_tag"
    events, _ = await replay(folder, fake_model, stage)
    first_text = fake_model.bodies[1]["messages"]
    assert "tools" not in fake_model.bodies[1]
    assert not any("<tools>" in str(m["content"]) for m in first_text[1:])
    assert [e.tool for e in events if isinstance(e, Action)] == ["get_weather"] * 3
    assert not [e for e in events if isinstance(e, Answer)]
    assert not [e for e in events if isinstance(e, Thought) and "<tools>" in e.text]
    assert [e.kind for e in events if isinstance(e, Remark)][-1] == "call_as_answer"
    done = events[-1]
    assert isinstance(done, RunFinished) and (done.status, done.error_kind) == (
        "error", "call_as_answer")
    shown = "\n".join(parse_html(page).text
                      for page in render_run(Transcript.from_events(events), "zh", live=False))
    assert "💬" not in shown and "<tools>" not in shown and "Action:" not in shown
    assert "模型最后写的是又一次工具调用，不是回答" in shown


@pytest.mark.parametrize(("folder", "place", "said"), [
    ("time_tokyo_zh", "东京", "16:17"), ("time_new_york", "New York", "02:19")])
async def test_the_time_is_looked_up_not_stated(
    folder: str, place: str, said: str, fake_model: FakeModel,
    stage: tuple[ModelClient, Any, Toolbox]
) -> None:
    """"东京现在几点？" ended at the round cap with the protocol as its answer, and "What time is
    it in New York now?" was answered "10:30 AM" with no lookup. Recorded again on the real
    1.5B model (in the text format, as a bot that learned it asks): each looks the clock up
    once and states what it said; nothing is sent back, so the check costs no round."""
    events, shown = await replay(RECORDED / folder, fake_model, stage)
    assert [(e.tool, e.arguments) for e in events if isinstance(e, Action)] == [
        ("get_time", {"timezone": place})]
    (answer,) = [e for e in events if isinstance(e, Answer)]
    assert said in answer.text and not answer.unfounded and MARK not in shown
    assert not [e for e in events if isinstance(e, Remark) and e.kind == "sent_back"]
    done = events[-1]
    assert isinstance(done, RunFinished) and (done.status, done.rounds) == ("done", 2)


async def test_a_request_for_advice_is_answered_without_a_tool(
    fake_model: FakeModel, stage: tuple[ModelClient, Any, Toolbox]
) -> None:
    """"谢谢！给我一句复习考试的建议吧。" was sent to the notes and Wikipedia, to the round cap or
    to "the notes have nothing on 复习考试" as the answer: the rule that a greeting, thanks or a
    request for advice needs no tool stood only in the English instructions, far above the
    question. It now also closes the prompt, in the question's language; recorded so, the
    model gave its advice at once."""
    events, shown = await replay(RECORDED / "thanks_zh", fake_model, stage)
    system = fake_model.bodies[0]["messages"][0]["content"]
    assert system.endswith("问候、感谢、请你给建议或问你是谁、能做什么，都不需要工具：直接回答。")
    assert not [e for e in events if isinstance(e, Action)]
    (answer,) = [e for e in events if isinstance(e, Answer)]
    assert "复习" in answer.text and answer_lang(answer.text) == "zh"
    done = events[-1]
    assert isinstance(done, RunFinished) and (done.status, done.rounds) == ("done", 1)
    assert "复习考试时" in " ".join(shown.split())


async def test_a_search_that_found_nothing_says_advice_needs_no_lookup(
    fake_model: FakeModel, stage: tuple[ModelClient, Any, Toolbox]
) -> None:
    """Asked for a study tip, the model searched Wikipedia for "study tips"; told only that
    no article was found, it answered "I don't have any specific tips" (recorded on the real
    1.5B model). The search's result now says that a greeting, thanks or a request for
    advice needs no lookup; recorded so, the model gave its own tips, and the chain shows
    the failed search above them."""
    events, shown = await replay(RECORDED / "advice", fake_model, stage)
    (action,) = [e for e in events if isinstance(e, Action)]
    assert (action.tool, action.arguments) == ("search_wikipedia", {"query": "study tips"})
    (observation,) = [e for e in events if isinstance(e, Observation)]
    assert not observation.ok and observation.text.startswith(
        "No Wikipedia article found for 'study tips'. If the question greets you, thanks you "
        "or asks for advice, no lookup is needed: give your own answer now")
    told = fake_model.bodies[1]["messages"][-1]["content"]
    assert "no lookup is needed: give your own answer now" in told
    (answer,) = [e for e in events if isinstance(e, Answer)]
    assert answer.text.startswith("I suggest taking breaks") and answer_lang(answer.text) == "en"
    done = events[-1]
    assert isinstance(done, RunFinished) and (done.status, done.rounds) == ("done", 2)
    assert "I suggest taking breaks" in " ".join(shown.split())
