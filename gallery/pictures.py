"""PNGs of the gallery's screens, taken by Debian's chromium through Playwright (never a
downloaded browser): `{scenario}-{lang}-{phone|desktop}.png`."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
README_SHOTS = ("phone-ask-en", "phone-ask-zh", "phone-quiz-en", "phone-quiz-zh",
                "phone-stats-en", "phone-stats-zh", "phone-photo-en", "phone-photo-zh",
                "phone-voice-en", "phone-voice-zh")
"""The screens of the page README shows: a finished /ask, a /quiz, /stats and a question
about a photo and a voice message on a phone (beside the class board's pictures on a
projector, gallery/board_picture.py)."""


@contextlib.asynccontextmanager
async def chromium() -> AsyncIterator[Any]:
    """Debian's chromium, headless, as Playwright's Browser; closed after."""
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield browser
        finally:
            await browser.close()


@contextlib.asynccontextmanager
async def browser_for(browser: Any | None) -> AsyncIterator[Any]:
    """`browser` if one is open already (the tests keep one for the session), else
    chromium launched for the block."""
    if browser is not None:
        yield browser
        return
    async with chromium() as launched:
        yield launched


async def take(gallery: Path, out: Path, only: tuple[str, ...] | None,
               browser: Any | None = None) -> list[Path]:
    """Screenshot every phone and projector screen of `gallery` (or those in `only`), in
    `browser` (or a chromium of its own)."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    async with browser_for(browser) as opened:
        page = await opened.new_page(viewport={"width": 1400, "height": 900})
        try:
            await page.goto(gallery.resolve().as_uri())
            ids = await page.eval_on_selector_all(
                ".screen", "nodes => nodes.map(n => n.id)")
            for screen in ids:
                if only is not None and screen not in only:
                    continue
                kind, rest = screen.split("-", 1)
                path = out / f"{rest}-{kind}.png"
                await page.locator(f"#{screen}").screenshot(path=str(path))
                written.append(path)
        finally:
            await page.close()
    return written
