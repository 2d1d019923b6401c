"""The course page in a real headless Chromium (Debian's, driven by Playwright) at 1280×720
and at a phone's width, in both languages: readable type, every chart and table inside the
width of the screen, no script error and no request that fails (the page works with no
network); and a question's link opens its run on the board, pinned. Screenshots go to
GALLERY (tests/web/test_board_browser.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from testkit.botkit import people
from testkit.fakes.model import FakeModel
from testkit.fakes.telegram import FakeTelegram
from testkit.serving import serving
from tests.coursekit import GROUP, NAMES, seed_course
from tests.web.test_board_browser import GALLERY

SIZES = {"projector": (1280, 720), "phone": (390, 844)}


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_the_course_page_fits_a_projector_and_a_phone(tmp_path: Path, browser: Any,
                                                            lang: str) -> None:
    GALLERY.mkdir(parents=True, exist_ok=True)
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        people(tg)
        tg.group(GROUP, "Class 3A")
        for user, name in NAMES.items():
            tg.user(user, name)
        async with serving(tg, model, tmp_path / "g.sqlite3",
                           chat_daily_token_budget="2200") as web:  # type: ignore[arg-type]
            await seed_course(web.gb.services.store)
            token = await web.gb.services.store.boards.token(GROUP)
            url = f"{web.base_url}/board/{token}/course?from=2026-09-01&to=2026-09-07" + (
                "&lang=zh" if lang == "zh" else "")
            for name, (width, height) in SIZES.items():
                page = await browser.new_page(viewport={"width": width, "height": height})
                errors: list[str] = []
                page.on("pageerror", lambda err, errors=errors: errors.append(str(err)))
                page.on("console", lambda msg, errors=errors: errors.append(msg.text)
                        if msg.type == "error" else None)
                page.on("requestfailed", lambda r, errors=errors: errors.append(r.url))
                await page.goto(url)
                await page.wait_for_function(
                    "() => [...document.images].every(i => i.complete && i.naturalWidth > 0)")
                fits = await page.evaluate("""() => ({
                    page: document.documentElement.scrollWidth <= innerWidth,
                    charts: [...document.querySelectorAll('figure.chart img')].map(
                        i => [i.getBoundingClientRect().left >= 0,
                              i.getBoundingClientRect().right <= innerWidth,
                              i.getBoundingClientRect().width]),
                    text: parseFloat(getComputedStyle(document.body).fontSize),
                })""")
                assert fits["page"], f"{name}: the page is wider than the screen"
                assert len(fits["charts"]) == 6
                wide = 0.4 if name == "projector" else 0.8  # two a row, or one
                assert all(left and right and w > width * wide for left, right, w
                           in fits["charts"]), (name, fits["charts"])
                assert fits["text"] >= (20 if name == "projector" else 16)
                assert not errors, errors
                await page.screenshot(path=str(GALLERY / f"course-{lang}-{name}.png"),
                                      full_page=name == "phone")
                await page.close()

            board = await browser.new_page(viewport={"width": 1280, "height": 720})
            await board.goto(url)
            await board.click('a[href^="course/runs/4"]')
            await board.wait_for_function(
                '() => document.querySelector("article.run")?.dataset.n === "4"')
            assert "What is 6 times 7?" in await board.inner_text("article.run")
            await board.close()
