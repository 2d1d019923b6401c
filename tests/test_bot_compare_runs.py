"""`/compare N M` through the real Application against the fake Bot API: two stored runs of
the chat side by side, asked nothing again, each labelled, the differing digits marked, the
judgement naming the figures that differ and how each side got its own (a false one not
shown), the chains aligned round by round with the first differing action flagged; stored, so /show,
/export and /history have it; refused politely (English and Chinese) for a run that is not
this chat's."""

from __future__ import annotations

from typing import Any

import pytest

from agent.events import Thought
from agent.tool import Tool
from bot.store.records import Scope
from testkit.botkit import ALICE, BOB, GROUP, Add, Glassbox
from testkit.dbkit import Target
from testkit.fakes.model import is_judge_call, text_reply, tool_reply
from tests.historykit import OTHER_GROUP, reply, seed


@pytest.fixture
def gb_database(db_target: Target) -> Target:
    """These tests run on SQLite and on PostgreSQL."""
    return db_target


@pytest.fixture
def gb_tools() -> list[Tool]:
    return [Add()]


async def asked(gb: Glassbox, user: int, question: str, *replies: Any) -> None:
    """`user` asks `question` in the group; the model answers with `replies`, in order."""
    gb.model.push(*replies)
    sent = gb.tg.send(GROUP, user, f"/ask {question}")
    await gb.answer_to(GROUP, sent)


async def two_runs(gb: Glassbox, question: str, tools_answer: str, guess: str) -> None:
    """Run 1 (Alice): the model adds with the tool, then answers; run 2 (Bob): it guesses."""
    await asked(gb, ALICE, question, tool_reply(("add", {"a": 100, "b": 23})),
                text_reply(tools_answer))
    await asked(gb, BOB, question, text_reply(guess))


async def test_two_stored_runs_side_by_side_with_no_model_called(gb: Glassbox) -> None:
    await two_runs(gb, "what is 100+23?", "Exactly 123.", "Roughly 100.")
    calls = len(gb.model.bodies)
    shown = await reply(gb, GROUP, ALICE, "/compare 1 2")
    # Nothing asked again: one call judges the two answers.
    assert [is_judge_call(body) for body in gb.model.bodies[calls:]] == [True]
    judge_prompt = gb.model.bodies[-1]["messages"][1]["content"]
    assert "Tool calls that worked, #1: add(a=100, b=23): calculated" in judge_prompt
    assert "Tool calls that worked, #2: none" in judge_prompt
    text = shown.text
    order = ["❓ what is 100+23?", "#1 · Alice · ", " · ask\nExactly 123.",
             "#2 · Bob · ", " · ask\nRoughly 100.",
             "⚖️ The model's judgement: They differ: #1 calculated 123; #2 gave 100 without "
             "a tool.", "📊 #1 → #2: rounds 2 → 1 · tool calls 1 → 0",
             "🔗 Both chains, round by round",
             "— Round 1 —", "▸ #1", "⚡ first differing action", "add(a=100, b=23)",
             "▸ #2", "— Round 2 —", "(no such round on this side)", "#3 · /show 3 · /export 3"]
    assert [text.index(piece) for piece in order] == sorted(text.index(p) for p in order)
    html = shown.raw
    assert "Exactly 1<u>23</u>." in html and "Roughly 1<u>00</u>." in html  # in both
    assert "<blockquote expandable>" in html  # the aligned chains folded
    # The first differing action is flagged in round 1, before #1's call and on #2's answer.
    round_one = text[text.index("— Round 1 —"):text.index("— Round 2 —")]
    assert round_one.count("⚡ first differing action") == 2
    assert "⚡ first differing action · answered in this round" in round_one

    history = await reply(gb, GROUP, ALICE, "/history")
    assert "⚖️ runs compared #1 Alice ↔ #2 Bob" in history.text

    replayed = await reply(gb, GROUP, ALICE, "/show 3")
    assert "📜 #3 · Alice · " in replayed.text
    assert "#1 · Alice · " in replayed.text and "#2 · Bob · " in replayed.text
    assert "⚡ first differing action" in replayed.text

    sent = gb.tg.send(GROUP, ALICE, "/export 3")
    await gb.tg.wait(lambda: bool(gb.replies_to(GROUP, sent)))
    [document] = gb.replies_to(GROUP, sent)
    assert document.document is not None
    page = document.document.content.decode("utf-8")
    for part in ("Runs compared", "#1 Alice ↔ #2 Bob", "Both chains, round by round",
                 "They differ: #1 calculated 123; #2 gave 100 without a tool.",
                 '1<mark class="differs">23</mark>', '1<mark class="differs">00</mark>',
                 "⚡ first differing action", "#1 add(a=100, b=23) · #2 answer",
                 "(no such round on this side)"):
        assert part in page, part


async def test_a_judgement_that_says_what_is_not_so_is_not_shown(gb: Glassbox) -> None:
    await two_runs(gb, "what is 100+23?", "Exactly 123.", "Roughly 100.")
    gb.model.judge = lambda body: text_reply("They differ: #2 looked up 999.")
    shown = await reply(gb, GROUP, ALICE, "/compare 1 2")
    assert "⚖️" not in shown.text and "999" not in shown.text  # neither answer says 999
    assert "📊 #1 → #2: rounds 2 → 1" in shown.text  # the cost line stands


async def test_a_comparison_in_chinese(gb: Glassbox) -> None:
    await two_runs(gb, "100加23等于多少？", "正好是123。", "大约是100。")
    shown = await reply(gb, GROUP, BOB, "/compare 2 1")
    text = shown.text
    assert text.index("#2 · Bob · ") < text.index("大约是100。") < text.index("#1 · Alice · ")
    assert "提问\n正好是123。" in text
    assert "两个回答不同：#2 没用工具，给出 100；#1 计算得到 123。" in text
    assert "两条过程，逐轮对齐" in text and "⚡ 第一个不同的动作" in text
    assert "（这一边没有这一轮）" in text and "📊 #2 → #1：" in text
    history = await reply(gb, GROUP, BOB, "/history")
    assert "⚖️ 对比记录 #2 Bob ↔ #1 Alice" in history.text


async def test_runs_of_another_chat_or_unfit_are_refused_politely(gb: Glassbox) -> None:
    store = gb.services.store
    for i in range(3):
        await seed(store, OTHER_GROUP, ALICE, "Alice", f"elsewhere {i}", "There.")
    await seed(store, GROUP, ALICE, "Alice", "here", "Here.")
    said = {}
    for user, command in ((ALICE, "/compare 1 3"), (BOB, "/compare 1 3"),
                          (ALICE, "/compare 1 1"), (BOB, "/compare #1 #1")):
        said[(user, command)] = (await reply(gb, GROUP, user, command)).text
    assert said[(ALICE, "/compare 1 3")] == "There is no run #3 here."
    assert said[(BOB, "/compare 1 3")] == "这里没有 #3 这条记录。"
    assert said[(ALICE, "/compare 1 1")].startswith("Please name two different runs")
    assert said[(BOB, "/compare #1 #1")].startswith("请写两条不同的记录")
    await seed(store, GROUP, BOB, "Bob", "here too", "Here too.")
    made = await reply(gb, GROUP, ALICE, "/compare 1 2")
    assert "#3 · /show 3" in made.text
    again = await reply(gb, GROUP, BOB, "/compare 3 1")
    assert again.text == "#3 本身就是一次对比，请选两条问过模型的记录。"
    history = await store.history(Scope(OTHER_GROUP))
    assert history.total == 3  # nothing was made in the other chat


async def test_forgetting_a_run_forgets_the_comparisons_made_from_it(gb: Glassbox) -> None:
    store = gb.services.store
    for user, name in ((ALICE, "Alice"), (BOB, "Bob"), (ALICE, "Alice")):
        await seed(store, GROUP, user, name, "what is 2+2?", "4.")
    for command in ("/compare 1 2", "/compare 1 3"):
        await reply(gb, GROUP, ALICE, command)
    await reply(gb, GROUP, BOB, "/forget 2")  # Bob's own run, and #4 made from it
    assert (await reply(gb, GROUP, ALICE, "/show 4")).text == "There is no run #4 here."
    assert "#1 · Alice · " in (await reply(gb, GROUP, ALICE, "/show 5")).text
    assert [r.n for r in (await store.history(Scope(GROUP))).runs] == [5, 3, 1]


async def test_rerun_asks_again_and_sets_the_new_run_beside_the_original(gb: Glassbox) -> None:
    await asked(gb, ALICE, "what is 100+23?", tool_reply(("add", {"a": 100, "b": 23})),
                text_reply("Exactly 123."))
    # Today the model gets there the same way: reproducible.
    gb.model.push(tool_reply(("add", {"a": 100, "b": 23})), text_reply("Exactly 123."))
    sent = gb.tg.send(GROUP, BOB, "/rerun 1")
    await gb.tg.wait(lambda: len(gb.replies_to(GROUP, sent)) == 2 and not gb.running(GROUP))
    live, side_by_side = gb.replies_to(GROUP, sent)
    assert "Exactly 123." in live.text and "#2 · /show 2" in live.text  # asked again, live
    text = side_by_side.text
    assert text.index("#1 · Alice · ") < text.index("#2 · Bob · ") < text.index("📊 #1 → #2")
    assert "Both chains made the same moves, round by round." in text
    assert "⚡" not in text and "<u>" not in side_by_side.raw
    # Another day it guesses: where the two part is marked.
    gb.model.push(text_reply("About 120."))
    sent = gb.tg.send(GROUP, BOB, "/rerun 1")
    await gb.tg.wait(lambda: len(gb.replies_to(GROUP, sent)) == 2 and not gb.running(GROUP))
    text = gb.replies_to(GROUP, sent)[1].text
    assert "#1 · Alice · " in text and "#4 · Bob · " in text and "⚡ 第一个不同的动作" not in text
    assert "⚡ first differing action" in text and "#5 · /show 5" in text
    for command, said in (("/rerun", "Please give a run number, e.g. /rerun 12"),
                          ("/rerun 9", "There is no run #9 here."),
                          ("/rerun 3", "Run #3 compares stored runs and asked no question")):
        assert (await reply(gb, GROUP, ALICE, command)).text.startswith(said)
    assert (await reply(gb, GROUP, BOB, "/rerun 9")).text == "这里没有 #9 这条记录。"


async def test_a_run_of_thousands_of_steps_is_copied_whole(gb: Glassbox) -> None:
    store = gb.services.store
    long = await seed(store, GROUP, ALICE, "Alice", "count up", "Done.")
    steps = [("main", Thought(round=i, text=f"step {i}")) for i in range(2, 5002)]
    for start in range(0, len(steps), 500):
        await store.append_steps(long.id, steps[start:start + 500])
    await seed(store, GROUP, BOB, "Bob", "count up", "Done.")
    made = await reply(gb, GROUP, ALICE, "/compare 1 2")
    # The chat draws the first rounds, one message, and says where the rest are.
    assert "— Round 13 —" in made.text and "— Round 14 —" not in made.text  # 2 to 13
    assert "… 4988 more rounds are not shown here: /export has them all." in made.text
    assert "#3 · /show 3" in made.text and not gb.replies_to(GROUP, made.message_id)
    record = await store.get(Scope(GROUP), 3)
    assert record is not None
    lanes = await store.events(record.id)
    assert len(lanes["left"]) == 1 + len((await store.events(long.id))["main"])  # and Origin
    assert [e.text for e in lanes["left"] if isinstance(e, Thought)][-1] == "step 5001"
