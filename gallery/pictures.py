"""PNGs of the gallery's screens, taken by Debian's chromium through Playwright (never a
downloaded browser): `{scenario}-{lang}-{phone|desktop}.png`."""

from __future__ import annotations

from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
README_SHOTS = ("phone-ask-en", "phone-ask-zh", "phone-quiz-en", "phone-quiz-zh")
"""The screens of the page README shows: a finished /ask and a /quiz on a phone (beside the
class board's /compare and /quiz on a projector, gallery/board.py)."""


async def take(gallery: Path, out: Path, only: tuple[str, ...] | None) -> list[Path]:
    """Screenshot every phone and projector screen of `gallery` (or those in `only`)."""
    from playwright.async_api import async_playwright

    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = await browser.new_page(viewport={"width": 1400, "height": 900})
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
            await browser.close()
    return written
