"""/history, /show and /export through the real Application: paging, search in Chinese and
English, a replay that looks as the run did live, and the exported file as Telegram got it."""

from __future__ import annotations

import re
from typing import Any

import pytest
from pydantic import BaseModel

from agent.events import Action, Observation, Thought
from agent.tool import Tool
from testkit.botkit import ALICE, BOB, GROUP, Add, Glassbox
from testkit.dbkit import Target
from testkit.fakes.model import text_reply, tool_reply
from tests.historykit import replies, reply, seed, tap


@pytest.fixture
def gb_database(migrated_target: Target) -> Target:
    """These tests run on SQLite and on PostgreSQL."""
    return migrated_target


class ReciteArgs(BaseModel):
    lines: int


class Recite(Tool):
    """A tool with a long observation (longer than the live view shows)."""

    name = "recite"
    description = "Recite numbered lines."
    Args = ReciteArgs

    async def run(self, args: Any) -> str:
        return "\n".join(f"recited line {i:03d}" for i in range(args.lines))


@pytest.fixture
def gb_tools() -> list[Tool]:
    return [Add(), Recite()]


def listed(text: str) -> list[int]:
    """The run numbers a /history message lists, top to bottom."""
    return [int(n) for n in re.findall(r"^#(\d+) · ", text, re.MULTILINE)]


async def test_history_pages_newest_first_with_buttons(gb: Glassbox) -> None:
    for i in range(1, 26):
        await seed(gb.services.store, GROUP, (ALICE, BOB)[i % 2], ("Alice", "Bob")[i % 2],
                   f"question number {i}")
    page = await reply(gb, GROUP, ALICE, "/history")
    assert "page 1 of 3 · 25 in all (times in Asia/Shanghai)" in page.text
    assert listed(page.text) == list(range(25, 15, -1))
    assert "question number 25" in page.text and "· Bob · ask · 🏁 done" in page.text
    assert page.buttons == [f"#{n} ▶" for n in range(25, 15, -1)] + ["▶"]

    await tap(gb, GROUP, BOB, page, page.button_data("▶"))  # anyone in the class may turn it
    await gb.tg.wait(lambda: "第 2/3 页" in page.text)  # in the language of whoever tapped
    assert listed(page.text) == list(range(15, 5, -1))
    assert page.buttons[-2:] == ["◀", "▶"]
    await tap(gb, GROUP, ALICE, page, page.button_data("▶"))
    await gb.tg.wait(lambda: "page 3 of 3" in page.text)
    assert listed(page.text) == [5, 4, 3, 2, 1]
    assert page.buttons == ["#5 ▶", "#4 ▶", "#3 ▶", "#2 ▶", "#1 ▶", "◀"]

    second = await reply(gb, GROUP, BOB, "/history 2")
    assert "第 2/3 页" in second.text and listed(second.text) == list(range(15, 5, -1))
    assert "提问" in second.text and "完成" in second.text  # Bob reads Chinese

    await tap(gb, GROUP, BOB, page, page.button_data("#4 ▶"))
    await gb.tg.wait(lambda: bool(gb.replies_to(GROUP, page.message_id)))
    [shown] = gb.replies_to(GROUP, page.message_id)
    assert shown.text.startswith("📜 #4 · Alice · ")
    assert "❓ question number 4" in shown.text


@pytest.mark.parametrize(("user", "keyword", "questions", "title"), [
    (BOB, "杭州今天", ["杭州今天的天气怎么样？"], "找到 1 条"),        # Chinese, trigram index
    (BOB, "气温", ["杭州今天的天气怎么样？"], "找到 1 条"),  # two characters, in the answer
    (BOB, "多少人口", ["北京有多少人口？"], "找到 1 条"),
    (ALICE, "capital", ["What is the capital of France?"], "1 found"),
    (ALICE, "PARIS", ["What is the capital of France?"], "1 found"),  # any case, in the answer
    (ALICE, "beijing 人口", ["北京有多少人口？"], "1 found"),          # every word must match
])
async def test_history_searches_questions_and_answers(gb: Glassbox, user: int, keyword: str,
                                                      questions: list[str], title: str) -> None:
    store = gb.services.store
    await seed(store, GROUP, ALICE, "Alice", "杭州今天的天气怎么样？", "杭州今天晴，气温 18 度。")
    await seed(store, GROUP, BOB, "Bob", "What is the capital of France?",
               "Paris is the capital of France.")
    await seed(store, GROUP, BOB, "Bob", "北京有多少人口？", "About 21.9 million in Beijing.")
    found = await reply(gb, GROUP, user, f"/history {keyword}")
    assert f"“{keyword}”" in found.text and title in found.text
    assert [line for line in found.text.splitlines() if line in questions] == questions


async def test_a_search_keeps_its_keyword_across_pages(gb: Glassbox) -> None:
    store = gb.services.store
    await seed(store, GROUP, ALICE, "Alice", "杭州今天的天气怎么样？")
    for i in range(12):
        await seed(store, GROUP, BOB, "Bob", f"天气问题 {i}" if i % 3 else f"other {i}")
    found = await reply(gb, GROUP, BOB, "/history 天气")
    assert "找到 9 条 · 第 1/1 页" in found.text
    for i in range(9):
        await seed(store, GROUP, ALICE, "Alice", f"another weather question 天气 {i}")
    found = await reply(gb, GROUP, ALICE, "/history 天气")
    assert "18 found · page 1 of 2" in found.text
    await tap(gb, GROUP, ALICE, found, found.button_data("▶"))
    await gb.tg.wait(lambda: "page 2 of 2" in found.text)
    assert "18 found" in found.text
    assert listed(found.text) == [12, 10, 9, 7, 6, 4, 3, 1]
    assert "other" not in found.text

    none = await reply(gb, GROUP, ALICE, "/history London")
    assert none.text == "No question or answer contains “London”."
    assert none.buttons == []
    huge = await reply(gb, GROUP, ALICE, "/history " + "天气" * 1500)
    assert huge.text.startswith("No question or answer contains “天气天气") and len(huge.text) < 200


async def test_show_replays_the_chain_as_it_looked_live(gb: Glassbox) -> None:
    gb.model.push(tool_reply(("add", {"a": 2, "b": 2}), content="I should add them."),
                  text_reply("2 + 2 = **4**"))
    asked = gb.tg.send(GROUP, ALICE, "/ask What is 2+2?")
    live = await gb.answer_to(GROUP, asked)

    shown = await reply(gb, GROUP, BOB, "/show 1")
    header, _, body = shown.text.partition("\n\n")
    # One language per message: the question's (English), though Bob's Telegram is Chinese.
    assert re.fullmatch(r"📜 #1 · Alice · \d{4}-\d\d-\d\d \d\d:\d\d \(Asia/Shanghai\) · 🏁 done",
                        header)  # the class's time zone (DEFAULT_TIMEZONE), named
    assert live.text.startswith("❓ What is 2+2?") and "🔧 Action add(a=2, b=2)" in live.text
    assert "🔧 Action add(a=2, b=2)" in body and "💬 Answer\n2 + 2 = 4" in body
    assert "行动" not in body and "完成" not in header
    mine = await reply(gb, GROUP, ALICE, "/show #1")
    # Same renderer, same words: the chain open instead of folded, and the tokens.
    assert mine.text.partition("\n\n")[2] == live.text.replace("🔎 2 rounds · add\n", "") + (
        " · 165 tokens")
    assert "<blockquote expandable>" not in mine.raw and "<b>4</b>" in mine.raw


async def test_show_gives_the_observation_the_live_message_shortened(gb: Glassbox) -> None:
    gb.model.push(tool_reply(("recite", {"lines": 80})), text_reply("Recited."))
    asked = gb.tg.send(ALICE, ALICE, "Recite 80 lines")
    live = await gb.answer_to(ALICE, asked)
    assert "recited line 079" not in live.text and "/show shows every one" in live.text
    shown = await reply(gb, ALICE, ALICE, "/show 1")
    assert all(f"recited line {i:03d}" in shown.text for i in range(80))
    assert "/show shows every one" not in shown.text and "💬 Answer\nRecited." in shown.text


async def test_show_gives_long_observations_whole_over_several_messages(
        gb: Glassbox) -> None:
    observation = "\n".join(f"observation line {i:04d}" for i in range(500))
    await seed(gb.services.store, ALICE, ALICE, "Alice", "Read me the whole file", "Done.", steps=[
        Thought(round=1, text="I need the file."),
        Action(round=1, call_id="c1", tool="read", arguments={"path": "notes.txt"}),
        Observation(round=1, call_id="c1", tool="read", text=observation, ok=True,
                    duration_ms=40)])
    pages = await replies(gb, ALICE, ALICE, "/show 1", 4)
    assert [page.reply_to for page in pages[1:]] == [pages[0].message_id] * 3
    assert re.fullmatch(r"📜 #1 · Alice · .* \(Asia/Shanghai\) · 🏁 done",
                        pages[0].text)  # page 1 was full
    everything = "\n".join(page.text for page in pages)
    assert all(f"observation line {i:04d}" in everything for i in range(500))
    assert "…" not in everything and "/show shows every one" not in everything
    assert pages[-1].text.endswith(
        "💬 Answer\nDone.\n\n#1 · /show 1 · /export 1 · ⏱ 1.2 s · 1 round · 0 tool calls · "
        "15 tokens\n\n(3/3)")


async def test_export_sends_a_self_contained_html_document(gb: Glassbox) -> None:
    await seed(gb.services.store, GROUP, ALICE, "Alice", "What is 2+2? <b>really</b>", "It is 4.",
               steps=[Thought(round=1, text="I should add them."),
                      Action(round=1, call_id="c1", tool="add", arguments={"a": 2, "b": 2}),
                      Observation(round=1, call_id="c1", tool="add", text="4", ok=True,
                                  duration_ms=3)])
    asked = gb.tg.send(GROUP, BOB, "/export 1")
    await gb.tg.wait(lambda: bool(gb.replies_to(GROUP, asked)))
    [sent] = gb.replies_to(GROUP, asked)
    assert sent.document is not None
    assert sent.document.file_name == "glassbox-1.html"
    assert sent.document.mime_type == "text/html"
    # In the run's language (the question's, English), though Bob's Telegram is Chinese.
    assert sent.text == "Glassbox transcript #1: What is 2+2? <b>really</b>"
    page = sent.document.content.decode("utf-8")
    assert page.startswith("<!DOCTYPE html>") and '<html lang="en">' in page
    for part in ("What is 2+2? &lt;b&gt;really&lt;/b&gt;", "Round 1", "I should add them.",
                 "add(a=2, b=2)", "It is 4.", "Alice", "(Asia/Shanghai)"):
        assert part in page
    assert "<script" not in page and "http" not in page  # nothing to fetch: works offline


async def test_show_replays_a_compare_run_with_both_lanes(gb: Glassbox) -> None:
    gb.model.push(text_reply("Four."), text_reply("Four."))
    asked = gb.tg.send(GROUP, ALICE, "/compare What is 2+2?")
    live = await gb.answer_to(GROUP, asked)
    assert "🧠 Model alone, no tools" in live.text and "🔍 ReAct, with tools" in live.text
    shown = await reply(gb, GROUP, ALICE, "/show 1")
    body = shown.text.partition("\n\n")[2]
    assert body.count("Four.") == live.text.count("Four.") == 2
    assert "🧠 Model alone, no tools" in body and "🔍 ReAct, with tools" in body
    assert "tokens" in body and "tokens" not in live.text.partition("📊")[0]
    assert live.text.endswith("\n\n#1 · /show 1 · /export 1")  # the footer names the run
