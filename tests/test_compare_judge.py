"""/compare's difference line: one short model call, capped, and nothing when it fails."""

from __future__ import annotations

from agent.classroom.compare_judge import (
    JUDGE_MARK,
    MAX_WORDS,
    Side,
    ToolUses,
    capped,
    judge,
    judge_sides,
)
from agent.events import Action, Observation
from agent.model.model_client import ModelClient
from agent.tool import Source
from agent.tools.calculator import Calculate
from agent.tools.search_notes import SearchNotes
from testkit.fakes.model import FakeModel, error, judgement_reply, text_reply


def test_a_long_judgement_is_cut_to_its_length() -> None:
    assert capped(" ".join(["word"] * 80), "en") == " ".join(["word"] * MAX_WORDS) + "…"
    assert capped("短" * 200, "zh") == "短" * 119 + "…"
    assert capped("They agree.", "en") == "They agree."


async def test_the_judge_asks_once_at_temperature_zero_in_the_questions_language(
        fake_model: FakeModel, client: ModelClient) -> None:
    fake_model.judge = text_reply("两个回答一致。", usage=(90, 10))
    judged = await judge("杭州天气？", "晴。", "晴，18 度。", client=client, lang="zh")
    assert judged is not None and judged.text == "两个回答一致。"
    assert judged.usage.total_tokens == 100
    [body] = fake_model.bodies
    assert body["temperature"] == 0 and "tools" not in body
    assert body["messages"][0]["content"].startswith(JUDGE_MARK)
    assert "written in Chinese" in body["messages"][0]["content"]


async def test_a_failed_or_empty_judgement_gives_no_line(fake_model: FakeModel,
                                                         client: ModelClient) -> None:
    fake_model.judge = error("openai/error_401_invalid_api_key.json", 401)
    assert await judge("q", "a", "b", client=client, lang="en") is None
    fake_model.judge = text_reply("   ")
    assert await judge("q", "a", "b", client=client, lang="en") is None


async def test_the_judge_is_told_the_differing_figures_and_what_the_tools_did(
        fake_model: FakeModel, client: ModelClient) -> None:
    uses = ToolUses([Calculate(), SearchNotes(None)])  # type: ignore[arg-type]
    for event in (Action(round=1, call_id="a", tool="calculate",
                         arguments={"expression": "123456789 * 987654321"}),
                  Observation(round=1, call_id="a", tool="calculate", ok=True,
                              text="121932631112635269", duration_ms=1),
                  Action(round=1, call_id="b", tool="search_notes", arguments={"query": "x"}),
                  Observation(round=1, call_id="b", tool="search_notes", ok=False,
                              text="No notes.", duration_ms=1)):
        uses.add(event)
    assert uses.calls == [('calculate(expression="123456789 * 987654321")',
                           Source.CALCULATED)]  # a failed call did nothing
    fake_model.judge = text_reply("They differ.")
    await judge("What is 123456789 × 987654321?", "It is 121,932,631,137,021,795.",
                "It is 121,932,631,112,635,269.", client=client, lang="en", calls=uses.calls)
    [body] = fake_model.bodies
    prompt = body["messages"][1]["content"]
    assert ("Figures that differ: 121,932,631,137,021,795 (without tools) vs "
            "121,932,631,112,635,269 (with tools)") in prompt
    assert 'Tool calls that worked: calculate(expression="123456789 * 987654321"): ' \
           "calculated" in prompt
    assert "read in the class notes" in body["messages"][0]["content"]


async def test_the_judge_is_told_what_the_facts_come_to(fake_model: FakeModel,
                                                        client: ModelClient) -> None:
    """A small model read past the list of differing figures and wrote "The answers agree."
    (tests/test_local_judge.py): the prompt ends with what the facts come to."""
    calls = [('calculate(expression="20% * 150")', Source.CALCULATED)]
    for plain, react, so in (
            ("It is 121,932,631,137,021,795.", "It is 121,932,631,112,635,269.",
             "So: the answers do not agree. Say so, name the figures that differ, and say the "
             "answer with tools calculated its figure."),
            ("I cannot know the weather.", "It is 21.4 °C.",
             "So: only the answer with tools gives 21.4 °C. Say so, and"),
            ("20% off 150 is 120.", "20% off of 150 is 120.",
             "So: no figure differs. Say whether the answers agree, and")):
        fake_model.judge = text_reply("x")
        await judge("q", plain, react, client=client, lang="en", calls=calls)
        assert so in fake_model.bodies[-1]["messages"][1]["content"]
    await judge("q", "a", "b", client=client, lang="en")
    assert fake_model.bodies[-1]["messages"][1]["content"].endswith(
        "say the tools added nothing.")


async def test_a_judgement_that_says_what_is_not_so_gives_no_line(
        fake_model: FakeModel, client: ModelClient) -> None:
    plain, react = ("It is 121,932,631,137,021,795.",
                    "It is 121,932,631,112,635,269, as 987,654,321 times 123,456,789 is.")
    calculated = [('calculate(expression="123456789 * 987654321")', Source.CALCULATED)]
    for said in ("The answers agree.",  # the figures differ
                 "They differ: 121,932,631,137,021,795 against 121,932,631,112,635,269, "
                 "which the tools looked up.",  # they calculated it
                 "They differ by 24,386,526.",  # a figure in neither answer
                 "They differ: 121,932,631,137,021,795 against 987,654,321, which the tools "
                 "calculated."):  # 987,654,321 is the second answer's alone, and no pair's
        fake_model.judge = text_reply(said)
        assert await judge("q", plain, react, client=client, lang="en",
                           calls=calculated) is None, said
    fake_model.judge = text_reply("They differ: 121,932,631,137,021,795 without tools; the "
                                  "tools calculated 121,932,631,112,635,269.")
    shown = await judge("q", plain, react, client=client, lang="en", calls=calculated)
    assert shown is not None and shown.text.startswith("They differ")
    fake_model.judge = text_reply("两个回答不同：用了工具后查到 121,932,631,112,635,269。")
    assert await judge("q", plain, react, client=client, lang="zh", calls=calculated) is None


async def test_a_figure_of_a_tool_call_may_be_named(fake_model: FakeModel,
                                                    client: ModelClient) -> None:
    """The local model, of 20% off 150 (tests/wire/local/judge/percent_off): "The answers
    agree. The answer with tools calculated its figure by multiplying 150 by (1 - 0.2),
    which equals 120." 0.2 is in the call the prompt listed: true, and shown."""
    said = ("The answers agree. The answer with tools calculated its figure by multiplying "
            "150 by (1 - 0.2), which equals 120.")
    fake_model.judge = text_reply(said)
    shown = await judge("What is 20% off 150?", "20% off 150 equals $120.",
                        "20% off of 150 is 120.", client=client, lang="en",
                        calls=[('calculate(expression="150 * (1 - 0.2)")', Source.CALCULATED)])
    assert shown is not None and shown.text == said


async def test_a_single_digit_that_differs_is_named_and_never_agreed(
        fake_model: FakeModel, client: ModelClient) -> None:
    """"4" against "5" is the whole difference: the judge is told so, and a line that says
    the answers agree is not shown, whichever kind of comparison."""
    calculated = [('calculate(expression="20 / 4")', Source.CALCULATED)]
    for plain, react, listed in (
            ("It takes 4 hours.", "It takes 5 hours.", "4 hours (without tools) vs 5 hours"),
            ("The answer is 4.", "The answer is 5.", "4 (without tools) vs 5 (with tools)"),
            ("1. It takes 4 hours.\n2. Rest.", "1. It takes 5 hours.\n2. Rest.",
             "4 hours (without tools) vs 5 hours (with tools)")):  # "1." is no figure
        fake_model.judge = judgement_reply
        shown = await judge("How long?", plain, react, client=client, lang="en",
                            calls=calculated)
        prompt = fake_model.bodies[-1]["messages"][1]["content"]
        assert f"Figures that differ: {listed}" in prompt
        assert "So: the answers do not agree." in prompt
        assert shown is not None and "4" in shown.text and "5" in shown.text
        assert "agree" not in shown.text
        for said in ("They agree.", "They agree: 4 hours and 5 hours are close.",
                     "The answers agree on 4."):
            fake_model.judge = text_reply(said)
            assert await judge("How long?", plain, react, client=client, lang="en",
                               calls=calculated) is None, said
        fake_model.judge = text_reply("They do not agree: 4 without tools; the tools "
                                      "calculated 5.")
        assert await judge("How long?", plain, react, client=client, lang="en",
                           calls=calculated) is not None
    fake_model.judge = text_reply("两个回答一致。")
    assert await judge("要多久？", "需要 4 小时。", "需要 5 小时。", client=client,
                       lang="zh", calls=calculated) is None

    left, right = Side("#1", "It takes 4 hours.", calculated), Side("#2", "It takes 5 hours.")
    fake_model.judge = judgement_reply
    shown = await judge_sides("How long?", left, right, client=client, lang="en")
    assert shown is not None
    assert shown.text == "They differ: #1 calculated 4 hours; #2 gave 5 hours without a tool."
    fake_model.judge = text_reply("They agree.")
    assert await judge_sides("How long?", left, right, client=client, lang="en") is None
