"""The embedded OCR on photos the tests draw (testkit/photokit.py): what it reads, what it
refuses before reading, and, on the whole labelled set (slow), its character accuracy and
every receipt figure."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from agent.events import ReadFailure
from agent.inputs.images import KEPT_BYTES, KEPT_SIDE, ImageProblem, ImageRefused, check
from agent.inputs.ocr import OcrLimits, in_lines, read_picture
from testkit.photokit import PAGES, char_errors, labelled, normal, png, sample

PATIENT = OcrLimits(seconds=600, threads=1)
"""Time enough on a machine shared with other test runs, and one core: the suite's workers
share the machine's (two threads each spun waiting for the other). The tests of the limits
set theirs."""


def read_text(segments: tuple) -> str:
    return "\n".join(segment.text for segment in segments)


async def read_page(name: str) -> None:
    page = next(p for p in PAGES if p.name == name)
    reading = await read_picture(sample(page).data, PATIENT)
    assert reading.failure is ReadFailure.NONE
    assert char_errors(page.text, read_text(reading.segments)) == 0
    assert all(figure in read_text(reading.segments) for figure in page.figures)
    assert [s.line for s in reading.segments] == sorted(s.line for s in reading.segments)


async def test_an_english_exercise_is_read() -> None:
    await read_page("exercise-en")


async def test_a_chinese_receipt_is_read_with_its_figures() -> None:
    await read_page("receipt-zh")


async def test_a_picture_without_text_says_so() -> None:
    blank = png(Image.new("RGB", (800, 600), (120, 160, 200)))
    reading = await read_picture(blank, PATIENT)
    assert (reading.segments, reading.failure) == ((), ReadFailure.NO_TEXT)


async def test_a_reading_past_its_time_is_stopped() -> None:
    reading = await read_picture(sample(PAGES[0]).data, OcrLimits(seconds=0.05))
    assert reading.failure is ReadFailure.TIME


async def test_a_reader_without_the_memory_it_needs_fails_cleanly() -> None:
    reading = await read_picture(sample(PAGES[0]).data, OcrLimits(seconds=600, memory_mb=300))
    assert reading.failure is ReadFailure.MEMORY


def test_boxes_on_one_line_are_read_left_to_right() -> None:
    boxes = [("3.50", 0.99, 600, 102, 700, 140), ("Milk", 0.98, 70, 100, 160, 142),
             ("Bread", 0.6, 70, 180, 180, 222), ("TOTAL", 0.97, 70, 20, 200, 60)]
    lines = in_lines(boxes)
    assert [(s.text, s.line) for s in lines] == [("TOTAL", 1), ("Milk", 2), ("3.50", 2),
                                                 ("Bread", 3)]
    assert [s.unsure for s in lines] == [False, False, False, True]


def gif(frames: int) -> bytes:
    out = io.BytesIO()
    images = [Image.new("RGB", (40, 40), (80 * n, 0, 0)) for n in range(frames)]
    images[0].save(out, format="GIF", save_all=True, append_images=images[1:])
    return out.getvalue()


@pytest.mark.parametrize(("data", "problem"), [
    (b"%PDF-1.7 not a picture", ImageProblem.NOT_IMAGE),
    (png(Image.new("1", (4000, 3200))), ImageProblem.TOO_LARGE),  # 12.8 MP in 2 KB
    (gif(3), ImageProblem.ANIMATED),
], ids=["pdf", "12.8MP", "gif"])
def test_what_is_refused_before_reading(data: bytes, problem: ImageProblem) -> None:
    with pytest.raises(ImageRefused) as refused:
        check(data)
    assert refused.value.problem is problem


def test_a_decompression_bomb_is_refused_from_its_header() -> None:
    bomb = png(Image.new("1", (20_000, 20_000)))  # 400 MP, 50 KB
    assert len(bomb) < 100_000
    with pytest.raises(ImageRefused) as refused:
        check(bomb, max_pixels=10**9)  # Pillow's own limit, not ours, stops it
    assert refused.value.problem is ImageProblem.TOO_LARGE


def test_the_copy_kept_is_small() -> None:
    noisy = Image.effect_noise((1600, 1200), 80).convert("RGB")  # the worst case for JPEG
    picture = check(png(noisy))
    kept = Image.open(io.BytesIO(picture.kept))
    assert kept.format == "JPEG" and max(kept.size) <= KEPT_SIDE
    assert len(picture.kept) <= KEPT_BYTES
    assert (picture.width, picture.height) == (1600, 1200)


async def test_the_labelled_set_is_read_right() -> None:
    """24 photos: ≥ 95 % of the characters right, and every figure of every receipt."""
    samples = labelled()
    assert len(samples) >= 20
    errors = total = 0
    missed = []
    for item in samples:
        reading = await read_picture(item.data, PATIENT)
        read = read_text(reading.segments)
        errors += char_errors(item.page.text, read)
        total += len(normal(item.page.text))
        missed += [(item.name, f) for f in item.page.figures if f not in read]
    assert 1 - errors / total >= 0.95
    assert missed == []
