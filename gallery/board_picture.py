"""The class board as a projector shows it: the board page of the class group, opened from
the teacher's link in Debian's chromium at 1280×720 with the board's defaults (dark, text at
32 px), once the teacher's run has ended. `{scenario}-{lang}-board.png`."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gallery.pictures import browser_for

WIDTH, HEIGHT = 1280, 720
ANSWERS = ('.answers [data-lane="plain"] .step.answer',
           '.answers [data-lane="react"] .step.answer', ".judgement",
           '.answers [data-lane="left"] .step.answer',
           '.answers [data-lane="right"] .step.answer')
"""What a /compare's end must show on the one screen (two stored runs: both answers)."""
READS = ("section.reads",)
"""What the board at a run's top must show on the one screen: what was read or heard."""


@dataclass(frozen=True)
class BoardShot:
    path: Path
    text: str
    """The page's text as the browser lays it out (what is hidden is not in it)."""
    marked: tuple[tuple[str, str], ...]
    """The differing digits marked: (lane, digits), in page order."""
    outside: tuple[str, ...]
    """Of a /compare's answers and judgement (or, at a run's top, what was read or heard),
    those not wholly inside the screen."""


class Camera:
    """A browser pointed at one board link, for a picture after each scenario it is told."""

    def __init__(self, browser: Any, out: Path) -> None:
        self._browser, self.out = browser, out

    async def shoot(self, url: str, name: str, top: bool = False) -> BoardShot:
        """The board at `url` once its run on screen is over (and a /compare judged);
        `top`: scrolled back to the run's top, as a teacher shows what was asked, where the
        board keeps to the run's newest step."""
        page = await self._browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
        try:
            await page.goto(url)
            await page.wait_for_function(
                """() => { const run = document.querySelector("article.run");
                           return run && run.dataset.status !== "running"
                               && (run.dataset.mode !== "compare"
                                   || document.querySelector(".judgement")); }""",
                timeout=20000)
            await page.wait_for_timeout(300)  # the last frame drawn and scrolled
            if top:
                await page.evaluate("window.scrollTo(0, 0)")
            path = self.out / f"{name}-board.png"
            await page.screenshot(path=str(path))
            outside = await page.evaluate(
                """([selectors, h]) => selectors.filter(s => {
                       const e = document.querySelector(s);
                       if (!e) return false;
                       const r = e.getBoundingClientRect();
                       return r.top < 0 || r.bottom > h; })""",
                [list(ANSWERS) if await page.query_selector(".answers")
                 else list(READS) if top else [], HEIGHT])
            marked = await page.eval_on_selector_all(
                ".answers mark.differs",
                "ms => ms.map(m => [m.closest('[data-lane]').dataset.lane, m.textContent])")
            return BoardShot(path, await page.inner_text("body"),
                             tuple((lane, digits) for lane, digits in marked), tuple(outside))
        finally:
            await page.close()


    async def shoot_course(self, board_url: str, name: str) -> BoardShot:
        """The course page of the board at `board_url` (in its language), at 1280×720."""
        base, _, query = board_url.partition("?")
        url = f"{base}/course" + ("?lang=zh" if "lang=zh" in query else "")
        page = await self._browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
        try:
            await page.goto(url)
            await page.wait_for_function(
                "() => [...document.images].every(i => i.complete && i.naturalWidth > 0)")
            path = self.out / f"{name}-course.png"
            await page.screenshot(path=str(path))
            return BoardShot(path, await page.inner_text("body"), (), ())
        finally:
            await page.close()


@contextlib.asynccontextmanager
async def camera(out: Path, browser: Any | None = None) -> AsyncIterator[Camera]:
    """A camera in `browser` (or a chromium of its own) writing into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    async with browser_for(browser) as opened:
        yield Camera(opened, out)
