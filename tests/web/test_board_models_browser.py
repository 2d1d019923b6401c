"""The class board in a real headless Chromium at 1280×720, its defaults: `/compare local cloud
question` grows each side on its own (the cloud's answer is there while the local model is
still working), and ends with both answers side by side under their models' names, the
differing digits marked, and the judgement, all inside the viewport. Screenshots go to
GALLERY (as tests/web/test_board_browser.py's do)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from testkit.botkit import ADMIN, GROUP, Add, people
from testkit.fakes.model import FakeModel, Reply, text_reply, tool_reply
from testkit.fakes.telegram import FakeTelegram
from testkit.serving import serving
from tests.web.test_board import board_path
from tests.web.test_board_browser import GALLERY, on_screen

IN_VIEW = """() => ['.answers [data-lane="left"] .step.answer',
                    '.answers [data-lane="right"] .step.answer', '.judgement', '.difference']
    .map(s => { const e = document.querySelector(s); if (!e) return null;
                const r = e.getBoundingClientRect(); return [r.left, r.top, r.bottom]; })"""


async def test_two_models_side_by_side_on_the_projector(tmp_path: Path, browser: Any) -> None:
    GALLERY.mkdir(parents=True, exist_ok=True)
    local_may_answer = threading.Event()

    def slow_local(body: dict[str, Any]) -> Reply:
        """The local model thinks for as long as the test holds it."""
        local_may_answer.wait(30)
        return text_reply("17% of 2,480 is roughly 400.")

    with FakeTelegram(scale=0.02) as tg, FakeModel() as local, FakeModel() as cloud:
        people(tg)
        models = {"local": {"base_url": local.base_url, "model": "qwen2.5-1.5b"},
                  "cloud": {"base_url": cloud.base_url, "model": "qwen-plus"}}
        async with serving(tg, local, tmp_path / "g.sqlite3", tools=[Add()],
                           llm_model="local", llm_models=models,
                           llm_timeout_s=30) as web:  # the held reply may outlast 5 s
            path = await board_path(web)
            local.push(slow_local)
            cloud.push(tool_reply(("add", {"a": 2480 * 0.17, "b": 0})),
                       text_reply("17% of 2,480 is exactly **421.6**."))
            asked = tg.send(GROUP, ADMIN, "/compare local cloud What is 17% of 2,480?")

            page = await browser.new_page(viewport={"width": 1280, "height": 720})
            await page.goto(web.base_url + path)
            await on_screen(page, 1)
            # Each side shows its own progress: the cloud answered, the local one works on.
            await page.wait_for_selector('.answers [data-lane="right"] .step.answer')
            left = await page.inner_text('.answers [data-lane="left"]')
            assert "421.6" not in left and "400" not in left
            assert await page.query_selector('.answers [data-lane="left"] .working')
            local_may_answer.set()
            await web.gb.answer_to(GROUP, asked)

            for lang, with_tools in (("en", "with tools"), ("zh", "使用工具")):
                if lang == "zh":
                    page = await browser.new_page(viewport={"width": 1280, "height": 720})
                    await page.goto(web.base_url + path + "?lang=zh")
                    await on_screen(page, 1)
                await page.wait_for_selector("article.run .judgement:not(.working)")
                await page.wait_for_selector("article.run .difference")
                # The board scrolls a comparison's end to its top by itself.
                await page.wait_for_function("() => window.scrollY === 0")
                boxes = await page.evaluate(IN_VIEW)
                assert all(box is not None and box[1] >= 0 and box[2] <= 720
                           for box in boxes), boxes
                assert boxes[1][0] > boxes[0][0] + 300  # side by side
                heads = await page.inner_text(".answers")
                assert heads.index(f"🤖 local · {with_tools}") < heads.index(
                    f"🤖 cloud · {with_tools}")
                judgement = await page.inner_text(".judgement")
                assert "local" in judgement and "421.6" in judgement, judgement
                marked = await page.eval_on_selector_all(
                    ".answers mark.differs",
                    "ms => ms.map(m => m.closest('[data-lane]').dataset.lane)")
                assert "left" in marked and "right" in marked
                cost = await page.inner_text(".difference")
                assert cost.startswith("📊 local → cloud"), cost
                await page.screenshot(path=str(GALLERY / f"board-compare-models-{lang}.png"))
                await page.close()
