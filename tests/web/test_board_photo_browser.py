"""A photo question on the class board in a real headless Chromium at 1280×720: the photo
as a thumbnail that opens large and the text Glassbox read from it, both on screen above the
first round, a misread figure (a smudged receipt's total: printed 16.50, read 15.50) shown
as read, so the class sees it; the same in /show and /export, and /forget takes the photo
away. Real OCR, the real Application with its HTTP server, the fake Bot API."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path
from typing import Any

from PIL import Image

from testkit.botkit import ALICE, GROUP, Add, people
from testkit.fakes.model import DashScope, FakeModel, Reply, Sight, sse, text_reply
from testkit.fakes.telegram import FakeTelegram
from testkit.photokit import smudged_receipt
from testkit.serving import serving
from tests.web.test_board import board_path
from tests.web.test_board_browser import GALLERY


def checking_model(body: dict[str, Any]) -> Reply:
    """Adds the items up with the tool, then says the total does not match."""
    if body["messages"][-1]["role"] == "tool":
        return sse(DashScope().text("The items add up to 16.50, but the receipt says 15.50."))
    return sse(DashScope().tool_calls([("add", {"a": 3.5 + 2.25, "b": 4.8 + 5.95})],
                                      content="I will add the items up."))


async def test_the_board_shows_the_photo_and_what_was_read_above_the_first_round(
        tmp_path: Path, browser: Any) -> None:
    GALLERY.mkdir(parents=True, exist_ok=True)
    db = tmp_path / "g.sqlite3"
    with FakeTelegram(scale=0.02) as tg, FakeModel(default=checking_model) as model:
        people(tg)
        async with serving(tg, model, db, tools=[Add()], ocr_timeout_s=600) as web:
            path = await board_path(web)
            page = await browser.new_page(viewport={"width": 1280, "height": 720})
            await page.goto(web.base_url + path)
            await page.wait_for_selector(".waiting")
            asked = tg.send_photo(GROUP, ALICE, smudged_receipt(),
                                  caption="/ask does the total add up?")
            final = await web.gb.answer_to(GROUP, asked, timeout=600)
            await page.wait_for_function(
                '() => document.querySelector("article.run")?.dataset.status === "done"',
                timeout=30000)
            await page.wait_for_function(
                '() => document.querySelector("figure.read img")?.naturalWidth > 0')
            await page.evaluate("() => window.scrollTo(0, 0)")  # the run's start, as it began
            boxes = await page.evaluate("""() => ['figure.read img', 'figure.read .text',
                                                  '.lane .round']
                .map(s => { const r = document.querySelector(s).getBoundingClientRect();
                            return [r.top, r.bottom, r.width]; })""")
            (img_top, img_bottom, img_width), (text_top, text_bottom, _), (round_top, *_) = boxes
            assert img_top >= 0 and img_bottom <= 720 and img_width > 100, boxes
            assert text_top >= 0 and text_bottom <= 720, boxes
            assert max(img_bottom, text_bottom) <= round_top, boxes
            read = await page.inner_text("figure.read")
            assert "📷 Read from the photo (Glassbox, OCR)" in read
            assert "TOTAL 15.50" in read and "16.50" not in read  # the misreading, as read
            await page.screenshot(path=str(GALLERY / "board-photo-en.png"))
            href = await page.get_attribute("figure.read a.photo", "href")
            large = await web.http.get(href)
            assert large.headers["content-type"] == "image/jpeg"
            assert Image.open(io.BytesIO(large.content)).width == 1280

            # The chat's own message, /show and /export show the same reading.
            assert "TOTAL 15.50" in final.text
            model.push(text_reply("unused"))
            shown = tg.send(GROUP, ALICE, "/show 1")
            assert "TOTAL 15.50" in (await web.gb.answer_to(GROUP, shown)).text
            exported = tg.send(GROUP, ALICE, "/export 1")
            await web.gb.answer_to(GROUP, exported)
            [doc] = [m.document for m in web.gb.replies_to(GROUP, exported) if m.document]
            html = doc.content.decode()
            assert "TOTAL 15.50" in html and 'src="data:image/jpeg;base64,' in html

            forget = tg.send(GROUP, ALICE, "/forget 1")
            await web.gb.answer_to(GROUP, forget)
            assert (await web.http.get(href)).status_code == 404
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM run_photos").fetchone() == (0,)


async def test_a_photo_the_model_reads_itself_is_the_model_s_step_on_the_board(
        tmp_path: Path, browser: Any) -> None:
    """A model that sees: the board shows the photo large-able and says the model was given
    it, never that Glassbox read it; no text read is shown."""
    with FakeTelegram(scale=0.02) as tg, FakeModel(sight=Sight.SEES) as model:
        people(tg)
        model.default = lambda body: text_reply("The items add up to 16.50; the receipt says "
                                                "15.50.")
        async with serving(tg, model, tmp_path / "g.sqlite3", llm_model="qwen-vl-max") as web:
            path = await board_path(web)
            page = await browser.new_page(viewport={"width": 1280, "height": 720})
            await page.goto(web.base_url + path)
            await page.wait_for_selector(".waiting")
            asked = tg.send_photo(GROUP, ALICE, smudged_receipt(),
                                  caption="/ask does the total add up?")
            await web.gb.answer_to(GROUP, asked)
            await page.wait_for_function(
                '() => document.querySelector("article.run")?.dataset.status === "done"',
                timeout=30000)
            await page.wait_for_function(
                '() => document.querySelector("figure.read img")?.naturalWidth > 0')
            await page.evaluate("() => window.scrollTo(0, 0)")
            read = await page.inner_text("figure.read")
            by = await page.get_attribute("figure.read", "data-by")
            img_bottom, round_top = await page.evaluate("""() => [
                document.querySelector('figure.read img').getBoundingClientRect().bottom,
                document.querySelector('.lane .round').getBoundingClientRect().top]""")
            await page.screenshot(path=str(GALLERY / "board-photo-model-en.png"))
    assert "📷 Photo given to the model (qwen-vl-max)" in read and by == "model"
    assert "The model looks at the photo itself" in read
    assert "Glassbox, OCR" not in read and "TOTAL" not in read
    assert img_bottom <= min(round_top, 720)
