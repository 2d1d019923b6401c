"""Huge runs: a model reply with a thousand tool calls, and /show and /export of a stored run
of 10,000 steps. Only AGENT_MAX_CALLS_PER_ROUND calls run and the model still gets a result
for every call id; /show sends a few messages and points to /export; and while either is
built, other chats keep moving (the event loop never stalls long)."""

from __future__ import annotations

import asyncio

from bot.store.records import Scope
from bot.view.history_view import SHOW_PAGES, show_pages
from bot.view.render import render_view
from bot.view.transcript import replay
from testkit.botkit import ALICE, BOB, GROUP, Glassbox
from testkit.fakes.model import text_reply, tool_reply
from testkit.huge_run import longest_stall, store_huge_run
from tests.faults.kit import runs_of, still_answers
from tests.historykit import replies, reply

CAP = 8
"""AGENT_MAX_CALLS_PER_ROUND's default."""
STALL_S = 0.5
"""The longest the loop may stall while a huge run is shown or exported. Built on the loop,
/show of this run stalled it for seconds (and more on a loaded machine)."""


async def test_a_reply_with_a_thousand_tool_calls_runs_only_the_first_eight(
        gb: Glassbox) -> None:
    calls = [("add", {"a": n, "b": 1}) for n in range(1000)]
    gb.model.push(tool_reply(*calls), text_reply("Enough adding."))
    asked = gb.tg.send(GROUP, ALICE, "/ask add every number up to a thousand to one")
    final = await gb.answer_to(GROUP, asked, timeout=30)

    assert "⏭ 992 more calls not run: at most 8 per round" in final.text
    assert final.text.count("🔧 Action add(") == CAP
    assert "Enough adding." in final.text

    sent = gb.model.bodies[1]["messages"]
    [asked_for] = [m for m in sent if m["role"] == "assistant" and m.get("tool_calls")]
    ids = [c["id"] for c in asked_for["tool_calls"]]
    results = {m["tool_call_id"]: m["content"] for m in sent if m["role"] == "tool"}
    assert len(ids) == 1000 and set(results) == set(ids)  # every call id has its result
    assert [results[i] for i in ids[:CAP]] == [f"{n + 1}" for n in range(CAP)]
    assert all(results[i].startswith("Not run: at most 8 tool calls run per round")
               for i in ids[CAP:])

    [run] = await runs_of(gb, GROUP)
    steps = (await gb.services.store.events(run.id))["main"]
    assert len(steps) < 30  # it was 2,005
    assert [e.type for e in steps].count("action") == CAP
    shown = await reply(gb, GROUP, ALICE, f"/show {run.n}")
    assert "⏭ 992 more calls not run: at most 8 per round" in shown.text
    exported = await reply(gb, GROUP, ALICE, f"/export {run.n}")
    assert exported.document is not None
    assert "⏭ 992 more calls not run: at most 8 per round" in exported.document.content.decode()
    await still_answers(gb, GROUP)


async def test_show_of_a_ten_thousand_step_run_sends_a_few_messages_and_points_to_export(
        gb: Glassbox) -> None:
    n = await store_huge_run(gb.services.store, GROUP, ALICE)
    pages = [m.text for m in await replies(gb, GROUP, BOB, f"/show {n}", SHOW_PAGES)]
    await gb.settled()  # nothing more comes (it would have been 114 messages)
    assert len(gb.tg.bot_messages(GROUP)) == SHOW_PAGES
    assert pages[0].startswith(f"📜 #{n} · Alice")
    assert "add(a=0, b=1)" in pages[1] and "add(a=1, b=1)" in pages[1]
    # In the run's one language (its question's, English), though Bob's Telegram is Chinese.
    assert pages[-1] == f"… This run is too long to show here in full: the rest is in /export {n}."


async def test_other_chats_keep_moving_while_a_huge_run_is_shown_and_exported(
        gb: Glassbox) -> None:
    n = await store_huge_run(gb.services.store, GROUP, ALICE)
    await still_answers(gb, ALICE)  # the first model call imports much of openai, on the loop
    for command in (f"/show {n}", f"/export {n}"):
        async with longest_stall() as stall:
            asked = gb.tg.send(GROUP, BOB, command)
            await asyncio.sleep(0.05)  # the build has begun when Alice asks
            await still_answers(gb, ALICE)
            await gb.tg.wait(lambda a=asked: bool(gb.replies_to(GROUP, a)), timeout=30)
        assert stall.longest < STALL_S, f"{command} stalled the loop {stall.longest:.3f} s"
    [exported] = gb.replies_to(GROUP, asked)
    assert exported.document is not None
    assert b"The sums are all above." in exported.document.content


async def test_show_of_a_huge_run_begins_exactly_as_the_whole_run_drawn(gb: Glassbox) -> None:
    """/show draws only the first steps of a huge run; its pages are the whole drawing's."""
    n = await store_huge_run(gb.services.store, GROUP, ALICE)
    record = await gb.services.store.get(Scope(GROUP), n)
    assert record is not None
    lanes = await gb.services.store.events(record.id)
    shown = show_pages(record, lanes, "en", "UTC")
    whole = render_view(replay(record, lanes, "en"), live=False, marks=False)
    assert len(whole) > 60
    assert shown[0].startswith(f"📜 #{n} · Alice") and "❓" not in shown[0]  # a full first page
    assert shown[1:SHOW_PAGES - 1] == whole[:SHOW_PAGES - 2]
