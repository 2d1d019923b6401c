"""A /quiz on the class board in Debian's chromium at 1280×720 and the board's defaults: the
vote shows while the group polls, then its counts (anonymous) beside the action the model
took, in English and in Chinese. Screenshots go to GALLERY (BOARD_GALLERY=docs/gallery)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from testkit.botkit import ADMIN, ALICE, BOB, GROUP, Add, people
from testkit.fakes.model import DashScope, FakeModel, sse
from testkit.fakes.telegram import FakeTelegram
from testkit.serving import serving
from tests.test_bot_quiz import counted, voting
from tests.web.test_board import board_path
from tests.web.test_board_browser import GALLERY, slow_text

CAROL, DAVE = 333, 444
IN_VIEW = """([selector, h]) => [...document.querySelectorAll(selector)].map(e => {
    const r = e.getBoundingClientRect(); return r.top >= 0 && r.bottom <= h; })"""


async def shown(page: Any, selector: str) -> list[bool]:
    """For each element `selector` picks: whether it is wholly on the 720-pixel screen."""
    return await page.evaluate(IN_VIEW, [selector, 720])


async def test_the_class_votes_beside_what_the_model_did(tmp_path: Path, browser: Any) -> None:
    GALLERY.mkdir(parents=True, exist_ok=True)
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        people(tg)
        tg.user(CAROL, "Carol", "en")
        tg.user(DAVE, "Dave", "en")
        model.push(sse(DashScope().tool_calls([("add", {"a": 1234, "b": 5678})],
                                              content="I should add them exactly."),
                       first_delay=0.3),
                   slow_text("1,234 + 5,678 = **6,912**.", 0.05))
        async with serving(tg, model, tmp_path / "g.sqlite3", tools=[Add()]) as web:
            path = await board_path(web)
            pages = {}
            for lang in ("en", "zh"):
                pages[lang] = await browser.new_page(viewport={"width": 1280, "height": 720})
                await pages[lang].goto(f"{web.base_url}{path}?lead={ADMIN}&lang={lang}")
                await pages[lang].wait_for_selector(".waiting")
            en = pages["en"]

            asked = tg.send(GROUP, ADMIN, "/quiz What is 1,234 + 5,678?")
            poll, live = await voting(web.gb, asked, 1)
            await en.wait_for_selector(".step.vote ul.votes.open", timeout=15000)
            assert "Class prediction · voting in the group" in await en.inner_text(".step.vote")
            assert "Waiting for the reveal" in await en.inner_text("article.run")
            assert await en.query_selector(".step.action") is None
            for voter, choice in ((ALICE, 0), (BOB, 0), (CAROL, 1), (DAVE, 0)):
                assert tg.vote(GROUP, voter, poll.message_id, [choice])
            reveal = next(b["callback_data"] for row in live.reply_markup["inline_keyboard"]
                          for b in row if b["callback_data"].startswith("quiz:"))
            await tg.wait(lambda: sum(counted(web.gb, poll) or ()) == 4)
            await en.wait_for_function(  # the teacher sees the class voting
                '() => document.querySelector(".step.vote").textContent'
                '.includes("voting in the group · 4 voted so far")', timeout=10000)
            tg.tap(GROUP, ADMIN, live.message_id, reveal)

            second, live = await voting(web.gb, asked, 2)
            for page in pages.values():
                await page.wait_for_selector(".step.observation", timeout=15000)
                await page.wait_for_function(
                    '() => document.querySelectorAll(".step.vote").length === 2')
                await page.wait_for_timeout(300)  # the last frame drawn and scrolled
            # The first round's vote, its counts and the model's choice, beside its action.
            votes = await en.inner_text(".step.vote")
            assert "Class prediction · 4 votes · revealed by Teacher" in votes
            assert await en.query_selector(".step.vote li.taken") is None  # told by the action
            action = await en.inner_text(".step.action .label")
            assert "🗳 3 of 4 predicted it" in action
            assert "Alice" not in await en.inner_text("article.run")  # counts, never names
            assert all(await shown(en, ".step.vote:first-of-type, .step.action"))
            await en.screenshot(path=str(GALLERY / "board-quiz.png"))
            zh = await pages["zh"].inner_text(".step.vote")
            assert "全班预测" in zh and "4 票 · Teacher 揭晓" in zh
            assert "全班 3/4 猜中" in await pages["zh"].inner_text(".step.action .label")
            await pages["zh"].screenshot(path=str(GALLERY / "board-quiz-zh.png"))

            for voter in (ALICE, BOB, CAROL):
                assert tg.vote(GROUP, voter, second.message_id, [1])
            await tg.wait(lambda: sum(counted(web.gb, second) or ()) == 3)
            reveal = next(b["callback_data"] for row in live.reply_markup["inline_keyboard"]
                          for b in row if b["callback_data"].startswith("quiz:"))
            tg.tap(GROUP, ADMIN, live.message_id, reveal)
            await web.gb.answer_to(GROUP, asked)
            await en.wait_for_function(
                '() => document.querySelector("article.run").dataset.status === "done"')
            await en.wait_for_timeout(300)
            last = (await en.query_selector_all(".step.vote"))[-1]
            assert "answer directly (no tool)\n3" in await last.inner_text()
            assert "🗳 3 of 3 predicted it" in await en.inner_text(".step.answer .label")
            assert all(await shown(en, ".step.answer"))
            size = await en.eval_on_selector(
                ".step.vote ul.votes", "e => parseFloat(getComputedStyle(e).fontSize)")
            assert size >= 20  # a vote is read from the back of the room too
            footer = await en.inner_text("article.run .footer")
            assert "the class's top pick was right in 2 of 2 rounds" in footer
            await en.screenshot(path=str(GALLERY / "board-quiz-end.png"))
