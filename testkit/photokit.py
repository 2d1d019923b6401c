"""Photos the tests draw and the text each shows (a labelled set for the embedded OCR):
printed exercises in English and Chinese, shopping receipts with prices, equations, each
drawn clean, slightly rotated, JPEG-compressed and as a phone photographs it (uneven light,
blur, noise). Debian's Noto CJK and DejaVu fonts; a seeded generator, so every run draws
the same pixels."""

from __future__ import annotations

import io
import random
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw, ImageFilter, ImageFont

from agent.inputs.images import KEPT_SIDE

CJK = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
SANS = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
MONO = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"


@dataclass(frozen=True)
class Page:
    name: str
    lines: tuple[str, ...]
    font: str
    figures: tuple[str, ...] = ()
    """Figures that must be read exactly (a receipt's prices)."""

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


PAGES = (
    Page("exercise-en", ("Exercise 3. A train travels 240 km in 3 hours.",
                         "What is its average speed in km/h?",
                         "Show your working."), SANS),
    Page("exercise-zh", ("练习三：一列火车3小时行驶240千米。", "它的平均速度是多少千米每小时？",
                         "请写出计算过程。"), CJK),
    Page("receipt-en", ("FRESH MART", "Milk 1L        3.50", "Bread          2.25",
                        "Apples 1kg     4.80", "Eggs x12       5.95", "TOTAL         16.50"),
         MONO, ("3.50", "2.25", "4.80", "5.95", "16.50")),
    Page("receipt-zh", ("华联超市", "牛奶 1升      12.50", "面包          8.00",
                        "苹果 1千克    15.80", "鸡蛋 12个     19.90", "合计          56.20"),
         CJK, ("12.50", "8.00", "15.80", "19.90", "56.20")),
    Page("equation", ("Solve for x:", "3x + 7 = 25", "2(x - 4) = 10"), SANS),
    Page("equation-zh", ("解方程：", "5x - 3 = 17", "x 等于多少？"), CJK),
)


MARGIN = 70
"""The room left, right and above the text, as a phone photo cropped to the page has it."""


def draw(page: Page, width: int | None = None) -> Image.Image:
    """The page as printed: dark text on white, 44 px type with room around it; `width`: as
    wide as its longest line and the margins (the OCR's time goes with the pixels it is
    given), and at least as wide as it is tall: the reader enlarges a picture until its
    shorter side is 736 px, and the Chinese receipt, narrower and so enlarged more, had its
    苹 read as 苯."""
    font = ImageFont.truetype(page.font, 44)
    height = 120 + 80 * len(page.lines)
    width = width or max(2 * MARGIN + round(max(map(font.getlength, page.lines))), height)
    image = Image.new("RGB", (width, height), (250, 250, 248))
    pen = ImageDraw.Draw(image)
    for n, line in enumerate(page.lines):
        pen.text((MARGIN, 60 + 80 * n), line, font=font, fill=(25, 25, 30))
    return image


def rotated(image: Image.Image) -> Image.Image:
    return image.rotate(2.5, resample=Image.Resampling.BICUBIC, expand=True,
                        fillcolor=(250, 250, 248))


def jpeg(image: Image.Image, quality: int = 35) -> Image.Image:
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=quality)
    return Image.open(io.BytesIO(out.getvalue())).convert("RGB")


def photographed(image: Image.Image) -> Image.Image:
    """As a phone takes it: light falling off to one side, a little blur, sensor noise."""
    width, height = image.size
    light = Image.linear_gradient("L").rotate(90).resize((width, height))
    shade = Image.new("RGB", (width, height), (150, 140, 120))
    lit = Image.composite(image, Image.blend(image, shade, 0.45), light)
    blurred = lit.filter(ImageFilter.GaussianBlur(1.1))
    noise = random.Random(7)
    pixels = blurred.load()
    for _ in range(width * height // 12):
        x, y = noise.randrange(width), noise.randrange(height)
        r, g, b = pixels[x, y]
        d = noise.randint(-40, 40)
        pixels[x, y] = (max(0, min(255, r + d)), max(0, min(255, g + d)),
                        max(0, min(255, b + d)))
    return jpeg(blurred, 70)


VARIANTS: dict[str, Callable[[Image.Image], Image.Image]] = {
    "clean": lambda image: image,
    "rotated": rotated,
    "jpeg": jpeg,
    "photographed": photographed,
}


@dataclass(frozen=True)
class Sample:
    name: str
    page: Page
    data: bytes


def png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def sample(page: Page, variant: str = "clean", width: int | None = None) -> Sample:
    return Sample(f"{page.name}/{variant}", page, png(VARIANTS[variant](draw(page, width))))


def labelled() -> list[Sample]:
    """Every page in every variant: 24 samples."""
    return [sample(page, variant) for page in PAGES for variant in VARIANTS]


def normal(text: str) -> str:
    """Text as compared: NFKC (a full-width colon is a colon), no spaces (OCR of mixed
    Chinese and digits drops them), '×' read for a printed 'x' counted as an 'x'."""
    return "".join(unicodedata.normalize("NFKC", text).replace("×", "x").split())


def char_errors(expected: str, read: str) -> int:
    """The edit distance between the two, as normalised."""
    return edit_distance(normal(expected), normal(read))


def edit_distance(a: Sequence[object], b: Sequence[object]) -> int:
    """Levenshtein: the insertions, deletions and substitutions that turn `a` into `b`."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def smudged_receipt() -> bytes:
    """The English receipt with the left of its total's '6' rubbed out (a fold, a drop of
    water): printed 16.50, it reads 15.50, with full confidence. As wide as the copy a run
    keeps, which the board's large view shows."""
    page = next(p for p in PAGES if p.name == "receipt-en")
    image = draw(page, KEPT_SIDE)
    pen = ImageDraw.Draw(image)
    font = ImageFont.truetype(page.font, 44)
    total = page.lines[-1]
    left = MARGIN + pen.textlength(total[:total.index("16.50") + 1], font=font)
    width = pen.textlength("1", font=font)
    _, top, _, bottom = pen.textbbox((MARGIN, 60 + 80 * (len(page.lines) - 1)), total, font=font)
    pen.rectangle((left + 2, top + (bottom - top) * 0.45, left + width * 0.45, bottom - 6),
                  fill=(250, 250, 248))
    return png(image)
