"""The class board in a real headless Chromium at 1280×720, its defaults: `/compare 1 2`
puts two stored runs side by side, each answer under its run's label with the differing
digits marked, both inside the viewport with the judgement and the cost line; opened, the
chains are aligned round by round, the first differing action marked on both sides and the
missing round shown as a gap. Screenshots go to GALLERY (as tests/web/test_board_browser.py's
do)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from testkit.botkit import ADMIN, ALICE, BOB, GROUP, Add, people
from testkit.fakes.model import FakeModel, text_reply, tool_reply
from testkit.fakes.telegram import FakeTelegram
from testkit.serving import serving
from tests.web.test_board import board_path
from tests.web.test_board_browser import GALLERY, on_screen


async def test_two_stored_runs_side_by_side_on_the_projector(tmp_path: Path,
                                                             browser: Any) -> None:
    GALLERY.mkdir(parents=True, exist_ok=True)
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        people(tg)
        async with serving(tg, model, tmp_path / "g.sqlite3", tools=[Add()]) as web:
            path = await board_path(web)
            model.push(tool_reply(("add", {"a": 2480 * 0.17, "b": 0})),
                       text_reply("17% of 2,480 is exactly **421.6**."))
            await web.gb.answer_to(GROUP, tg.send(GROUP, ALICE, "/ask What is 17% of 2,480?"))
            model.push(text_reply("17% of 2,480 is roughly 400."))
            await web.gb.answer_to(GROUP, tg.send(GROUP, BOB, "/ask What is 17% of 2,480?"))
            calls = len(model.bodies)
            asked = tg.send(GROUP, ADMIN, "/compare 1 2")
            await tg.wait(lambda: bool(web.gb.replies_to(GROUP, asked)))
            assert len(model.bodies) == calls + 1  # asked nothing again; one judgement

            for lang, labels in (("en", ("#1 · Alice · ", "#2 · Bob · ")),
                                 ("zh", ("#1 · Alice · ", "#2 · Bob · "))):
                page = await browser.new_page(viewport={"width": 1280, "height": 720})
                await page.goto(web.base_url + path + ("?lang=zh" if lang == "zh" else ""))
                await on_screen(page, 3)
                await page.wait_for_selector("article.run .difference")
                await page.wait_for_timeout(300)  # the last frame drawn and scrolled
                await page.evaluate("window.scrollTo(0, 0)")
                boxes = await page.evaluate("""() => [
                    '.answers [data-lane="left"] .step.answer',
                    '.answers [data-lane="right"] .step.answer', '.judgement', '.difference']
                    .map(s => { const r = document.querySelector(s).getBoundingClientRect();
                                return [r.left, r.top, r.bottom]; })""")
                assert all(top >= 0 and bottom <= 720 for _, top, bottom in boxes), boxes
                assert boxes[1][0] > boxes[0][0] + 300  # side by side
                cost = await page.inner_text(".difference")
                assert cost.startswith("📊 #1 → #2") and ("rounds 2 → 1" in cost
                                                          or "轮数 2 → 1" in cost), cost
                heads = await page.inner_text(".answers")
                assert heads.index(labels[0]) < heads.index(labels[1])
                marked = await page.eval_on_selector_all(
                    ".answers mark.differs",
                    "ms => ms.map(m => [m.closest('[data-lane]').dataset.lane, m.textContent])")
                assert marked == [["left", "21"], ["left", "6"], ["right", "00"]]
                await page.screenshot(path=str(GALLERY / f"board-compare-runs-{lang}.png"))

                await page.click("details.chains > summary")
                rounds = await page.eval_on_selector_all(
                    ".aligned-round", "rs => rs.map(r => r.dataset.round)")
                assert rounds == ["1", "2"]
                flagged = await page.eval_on_selector_all(
                    ".first-differs",
                    "fs => fs.map(f => [f.closest('.aligned-round').dataset.round,"
                    " f.closest('[data-lane]').dataset.lane])")
                assert ["1", "left"] in flagged and ["1", "right"] in flagged
                gap = await page.eval_on_selector(
                    '.aligned-round[data-round="2"] [data-lane="right"] .gap',
                    "g => g.textContent")
                assert gap == ("(no such round on this side)" if lang == "en"
                               else "（这一边没有这一轮）")
                await page.eval_on_selector(".step.first-differs",
                                            "e => e.scrollIntoView({block: 'center'})")
                box = await page.eval_on_selector(
                    ".step.first-differs", "e => { const r = e.getBoundingClientRect();"
                    " return [r.top, r.bottom]; }")
                assert box[0] >= 0 and box[1] <= 720
                await page.screenshot(
                    path=str(GALLERY / f"board-compare-runs-chains-{lang}.png"))
                await page.close()
