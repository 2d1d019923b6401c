"""The course's pictures: a real PNG of the right size with its Chinese drawn by a CJK font
(the font matplotlib resolved is Noto CJK, and no glyph is missing), the page's SVGs, and
the drawing done in a process of its own, bounded, while the event loop goes on."""

from __future__ import annotations

import asyncio
import io
import time
import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from xml.etree import ElementTree

import pytest
from PIL import Image

from bot.course import chart
from bot.course.course_figures import CourseFigures
from bot.course.drawing import AlreadyDrawing, Drawing, DrawingFailed, TooBusy
from bot.course.service import Course
from bot.store.records import Scope, telegram_chat
from bot.store.transcripts import Store
from tests.coursekit import GROUP, PERIOD, seed_course


@pytest.fixture(scope="module")
def figures(tmp_path_factory: pytest.TempPathFactory) -> CourseFigures:
    async def made() -> CourseFigures:
        store = await Store.open(tmp_path_factory.mktemp("course") / "db.sqlite3")
        try:
            await seed_course(store)
            return await Course(store, 2200).figures(Scope.of(telegram_chat(GROUP)), PERIOD)
        finally:
            await store.close()
    return asyncio.run(made())


@pytest.fixture
async def drawing() -> AsyncIterator[Drawing]:
    d = Drawing()
    yield d
    await d.close()


def test_matplotlib_draws_chinese_with_noto_cjk() -> None:
    path, family = chart.cjk_font()
    assert Path(path).name.startswith("NotoSansCJK") and family == "Noto Sans CJK SC"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_picture_is_a_tall_png_with_no_glyph_missing(figures: CourseFigures,
                                                         lang: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        png = chart.picture(figures, lang)
    assert not [w for w in caught if "missing from" in str(w.message)]
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    assert image.width == 1080 and 1.5 < image.height / image.width < 2.5
    assert len(png) < 10 * 1024 * 1024  # sendPhoto's limit


def test_without_a_cjk_font_chinese_would_be_boxes(figures: CourseFigures,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above can fail: with only DejaVu Sans, matplotlib says glyphs are missing."""
    monkeypatch.setitem(chart.STYLE, "font.sans-serif", ["DejaVu Sans"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        chart.picture(figures, "zh")
    assert [w for w in caught if "missing from" in str(w.message)]


def test_each_chart_is_an_svg_of_paths(figures: CourseFigures) -> None:
    svgs = chart.svgs(figures, "zh")
    assert set(svgs) == set(chart.Chart)
    for svg in svgs.values():
        root = ElementTree.fromstring(svg.encode())
        assert root.tag.endswith("svg") and root.get("viewBox")
        assert "<text" not in svg  # glyphs as paths: the page needs no font


async def test_drawing_runs_in_its_own_process_while_the_loop_goes_on(
        figures: CourseFigures, drawing: Drawing) -> None:
    path, family = await drawing.font()
    assert Path(path).name.startswith("NotoSansCJK") and family == "Noto Sans CJK SC"
    lags: list[float] = []

    async def tick() -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(0.01)
            lags.append(time.perf_counter() - before - 0.01)

    ticking = asyncio.create_task(tick())
    started = time.perf_counter()
    try:
        png = await drawing.picture(figures, "zh")
    finally:
        ticking.cancel()
    took = time.perf_counter() - started
    assert png.startswith(b"\x89PNG")
    # Drawn on the loop, the loop would stall for the whole drawing; a busy machine may hold
    # the loop back a time slice or two, which grows with the drawing's own time.
    assert len(lags) > 10 and max(lags) < max(0.1, took / 4)


async def test_a_chat_draws_one_picture_at_a_time_and_few_wait(figures: CourseFigures) -> None:
    drawing = Drawing(most_waiting=2)

    async def draw(chat: int) -> bytes:
        with drawing.turn(chat):
            return await drawing.picture(figures, "en")

    try:
        waiting = [asyncio.create_task(draw(chat)) for chat in (1, 2)]
        await asyncio.sleep(0)
        with pytest.raises(AlreadyDrawing):
            await draw(1)
        with pytest.raises(TooBusy):
            await draw(3)
        assert all(png.startswith(b"\x89PNG") for png in await asyncio.gather(*waiting))
        assert (await draw(1)).startswith(b"\x89PNG")  # its turn is over
    finally:
        await drawing.close()


async def test_a_picture_past_its_time_is_refused_and_the_next_drawn(
        figures: CourseFigures) -> None:
    drawing = Drawing(timeout_s=0.05)
    try:
        with pytest.raises(DrawingFailed):
            await drawing.picture(figures, "en")
        drawing.timeout_s = 60
        assert (await drawing.picture(figures, "en")).startswith(b"\x89PNG")
    finally:
        await drawing.close()
