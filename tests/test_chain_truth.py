"""Nothing untrue, ever: every state of a run's message, in order, as a class saw it (the real
bot against the fake Bot API and a slowly streaming fake model). Text whose role is not known
yet is neutral; Glassbox's notes are labelled as Glassbox's and true to their round; one
language per message; the finished message keeps the answer in view."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from pydantic import BaseModel

from agent.tool import Tool, ToolError
from bot.view.i18n import phrase, text
from testkit.botkit import ALICE, BOB, Add, Glassbox
from testkit.fakes.model import text_reply, tool_reply
from testkit.fakes.telegram import Message
from tests.chainkit import assert_never_contradicted, read, slow

SPECULATIVE = ("synthesised", "推断", "This needs no tool", "不需要工具", "I have what I need",
               "To answer this I first need", "要回答这个问题")


class PlaceArgs(BaseModel):
    city: str


class Weather(Tool):
    name = "get_weather"
    description = "Current weather of a city."
    Args = PlaceArgs

    async def run(self, args: Any) -> str:
        if args.city == "Atlantis":
            raise ToolError("No place named 'Atlantis' found.")
        return f"{args.city}: 9.6 °C, overcast"


@pytest.fixture
def gb_tools() -> list[Tool]:
    return [Add(), Weather()]


async def ask(gb: Glassbox, user: int, question: str) -> Message:
    asked = gb.tg.send(user, user, question)
    return await gb.answer_to(user, asked, timeout=20)


def never_untrue(final: Message) -> Sequence[str]:
    versions = final.versions
    assert_never_contradicted(versions)
    for state in versions:
        assert not any(words in state for words in SPECULATIVE), state
    return versions


async def test_text_before_tool_calls_is_neutral_then_becomes_the_thought(
        gb: Glassbox) -> None:
    words = ["I need the current ", "weather in Berlin first, ", "so I will look it up ",
             "instead of guessing."]
    gb.model.push(slow(content=words, calls=[("get_weather", {"city": "Berlin"})]),
                  slow(content=["Berlin is ", "9.6 °C and ", "overcast."]))
    final = await ask(gb, ALICE, "How warm is it in Berlin right now?")

    versions = never_untrue(final)
    drafts = [v for v in versions if "✍️ I need the current" in v]
    assert drafts, "the text before the call showed while it streamed"
    assert all("Answer" not in v and "💭" not in v for v in drafts)  # neither, yet
    assert all("💬 Answer" not in v for v in versions if "🔧 Action" not in v)
    assert read(final.text).thoughts[1] == "".join(words).strip()
    assert read(final.text).answer == "Berlin is 9.6 °C and overcast."


async def test_a_call_written_into_the_text_never_shows_as_text_or_answer(
        gb: Glassbox) -> None:
    call = '<tool_call>\n{"name": "add", "arguments": {"a": 2, "b": 2}}\n</tool_call>'
    gb.model.push(slow(content=["Let me add ", "them.\n", call[:15], call[15:40], call[40:]]),
                  text_reply("2 + 2 = 4."))
    final = await ask(gb, ALICE, "What is 2+2?")

    versions = never_untrue(final)
    assert not any("tool_call" in v or '"name"' in v or "<tool" in v for v in versions)
    assert "💭 Thought: Let me add them." in final.text
    assert "🔧 Action add(a=2, b=2)" in final.text and "💬 Answer\n2 + 2 = 4." in final.text


async def test_an_unreadable_written_call_is_a_failed_step_not_the_answer(
        gb: Glassbox) -> None:
    broken = '<tool_call>{"name": "add", "arguments": {"a": 2,'
    gb.model.push(slow(content=["I will add.", broken]), text_reply("It is 4."))
    final = await ask(gb, ALICE, "What is 2+2?")

    versions = never_untrue(final)
    assert not any("💬 Answer\nI will add." in v for v in versions)
    assert "💭 Thought: I will add." in final.text
    assert "👀 Observation ⚠️" in final.text and "💬 Answer\nIt is 4." in final.text
    assert "not valid JSON" in gb.model.bodies[1]["messages"][-1]["content"]  # and why


async def test_rounds_without_reasoning_get_true_glassbox_notes(gb: Glassbox) -> None:
    gb.model.push(tool_reply(("get_weather", {"city": "Atlantis"})),
                  tool_reply(("get_weather", {"city": "Osaka"})),
                  text_reply("Osaka is 9.6 °C; I could not find Atlantis."))
    final = await ask(gb, ALICE, "Weather in Atlantis and Osaka?")

    never_untrue(final)
    note = "📝 Written by Glassbox: the model wrote no reasoning;"
    assert f"{note} it called get_weather." in final.text
    assert final.text.count(f"{note} it called get_weather.") == 2  # no "first" in round 2
    assert f"{note[:-1]} before answering." in final.text  # the Osaka lookup worked: no verdict
    assert final.text.count("📝") == 3 and "anyway" not in final.text
    assert "💭" not in final.text and "first" not in final.text
    assert "🔎 3 rounds · get_weather ×2 · ⚠️ 1 failed" in final.text


async def test_reasoning_streams_live_into_the_thought(gb: Glassbox) -> None:
    thinking = ["The user wants ", "Berlin's weather; ", "I should call ", "get_weather."]
    gb.model.push(slow(reasoning=thinking, calls=[("get_weather", {"city": "Berlin"})]),
                  text_reply("Berlin: 9.6 °C."))
    final = await ask(gb, ALICE, "Weather in Berlin?")

    versions = never_untrue(final)
    growing = [read(v).thoughts.get(1, "") for v in versions if "🔧" not in v]
    assert any(0 < len(t) < len("".join(thinking)) for t in growing), growing  # part of it
    assert read(final.text).thoughts[1] == "".join(thinking)


@pytest.mark.parametrize(("user", "question", "lang", "foreign"), [
    (ALICE, "柏林现在多少度？", "zh", ("Round", "Answer", "Thought", "Written by", "tool call")),
    (BOB, "How warm is it in Berlin?", "en", ("轮", "回答", "思考", "补写", "工具")),
], ids=["english-ui-chinese-question", "chinese-ui-english-question"])
async def test_glassbox_writes_one_language_per_message(
        gb: Glassbox, user: int, question: str, lang: str, foreign: tuple[str, ...]) -> None:
    gb.model.push(tool_reply(("get_weather", {"city": "Berlin"})), text_reply("9.6 °C."))
    final = await ask(gb, user, question)

    for state in never_untrue(final):
        assert not any(word in state for word in foreign), state
    assert phrase(lang, "chain_answer") in final.text
    assert phrase(lang, "chain_round", n=1) in final.text


async def test_a_finished_run_keeps_its_answer_in_view(gb: Glassbox) -> None:
    gb.model.push(tool_reply(("get_weather", {"city": "Berlin"}), content="Checking."),
                  text_reply("It is **9.6 °C** in Berlin."))
    final = await ask(gb, ALICE, "Weather in Berlin?")

    assert final.text.startswith("❓ Weather in Berlin?\n\n🔎 2 rounds · get_weather\n")
    assert final.raw.count("<blockquote expandable>") == 1  # the chain, one tap away
    chain, answer = final.raw.split("</blockquote>", 1)
    assert "Round 1" in chain and "💬" in answer and "<b>9.6 °C</b>" in answer
    assert final.text.endswith("#1 · /show 1 · /export 1 · ⏱ " + final.text.rsplit("⏱ ", 1)[1])
    assert final.text.rsplit("⏱ ", 1)[1].endswith(" · 2 rounds · 1 tool call")


async def test_a_forced_last_round_says_why_it_is_one_round_more(gb: Glassbox) -> None:
    gb.model.default = lambda body: (text_reply("Best guess: mild.")
                                     if body.get("tool_choice") == "none"
                                     else tool_reply(("add", {"a": len(body["messages"]),
                                                              "b": 1})))
    final = await ask(gb, ALICE, "Keep adding")

    never_untrue(final)
    assert "📝 Written by Glassbox: the model used all 6 tool rounds" in final.text
    assert " · 7 rounds (the last without tools) · 6 tool calls" in final.text
    assert "🔎 7 rounds (the last without tools) · add ×6" in final.text


def test_help_names_the_chain_labels_and_a_real_tool() -> None:
    for lang in ("en", "zh"):
        help_text = text(lang, "help")
        for key in ("chain_thought", "chain_action", "chain_observation", "chain_answer"):
            assert phrase(lang, key) in help_text, (lang, key)
        assert "get_weather(" in help_text and "💬" in help_text and "📝" in help_text


def test_the_rule_catches_a_state_that_a_later_one_contradicts() -> None:
    speculative = "❓ q\n\n— Round 1 —\n💭 Thought: This needs no tool.\n\n💬 Answer\nI need Berlin"
    flipped = "❓ q\n\n— Round 1 —\n💭 Thought: I need Berlin first.\n🔧 Action get_weather()"
    with pytest.raises(AssertionError, match="Thought changed"):
        assert_never_contradicted([speculative, flipped])
    answered = "❓ q\n\n💬 Answer\nIt is 9.6 °C in Berlin.\n\n⏱ 1 s"
    with pytest.raises(AssertionError, match="Answer changed"):
        assert_never_contradicted([answered, answered.replace("9.6", "12")])
    assert_never_contradicted([answered[:20], answered])  # growing is fine
