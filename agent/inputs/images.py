"""A picture as a student sends it, checked before anything reads it: Pillow's
decompression-bomb guard and our own pixel cap, one still picture only, and the copy kept
with the run (downscaled JPEG, a few hundred KB at most).

Only the header is read to check the size, so a 30,000 × 30,000 PNG of a few kilobytes is
refused before its pixels are decoded."""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass
from enum import StrEnum

from PIL import Image, ImageOps

from wire.wire_errors import GlassboxError

MAX_PIXELS = 12_000_000
"""The most pixels a picture may have (Telegram keeps photos at 2560 px a side at most:
2560 × 1920 is 4.9 MP; a 12 MP phone camera's original, sent as a file, still fits)."""
KEPT_SIDE = 1280
"""The longest side of the copy kept with the run (the board's large view)."""
KEPT_BYTES = 300 * 1024
"""The most bytes that copy may take."""


class ImageProblem(StrEnum):
    """Why a picture is refused before it is read; each has a line in the asker's language."""

    NOT_IMAGE = "not_image"
    TOO_LARGE = "too_large"
    ANIMATED = "animated"


class ImageRefused(GlassboxError):
    """A picture refused before it is read; `problem` says why."""

    def __init__(self, problem: ImageProblem) -> None:
        super().__init__(problem.value)
        self.problem = problem


@dataclass(frozen=True, slots=True)
class Picture:
    """A checked picture: the bytes to read and the copy to keep."""

    data: bytes
    """As received (OCR reads the full resolution)."""
    width: int
    height: int
    kept: bytes
    """JPEG, at most KEPT_SIDE a side and KEPT_BYTES."""


def check(data: bytes, max_pixels: int = MAX_PIXELS) -> Picture:
    """`data` as a Picture; ImageRefused when it is no picture, an animation (a GIF, an
    animated sticker) or larger than `max_pixels`. Decodes the pixels once, for the kept
    copy: call it off the event loop."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                width, height = image.size
                if width * height > max_pixels:
                    raise ImageRefused(ImageProblem.TOO_LARGE)
                if getattr(image, "is_animated", False):
                    raise ImageRefused(ImageProblem.ANIMATED)
                kept = keep_copy(image)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise ImageRefused(ImageProblem.TOO_LARGE) from None
    except (OSError, SyntaxError, ValueError):
        raise ImageRefused(ImageProblem.NOT_IMAGE) from None
    return Picture(data, width, height, kept)


def keep_copy(image: Image.Image) -> bytes:
    """The copy kept with the run: upright (EXIF), RGB, at most KEPT_SIDE a side, as a JPEG
    of at most KEPT_BYTES (the quality lowered, then the size, until it fits)."""
    picture = ImageOps.exif_transpose(image).convert("RGB")
    picture.thumbnail((KEPT_SIDE, KEPT_SIDE))
    while True:
        for quality in (85, 70, 55):
            out = io.BytesIO()
            picture.save(out, format="JPEG", quality=quality, optimize=True)
            if out.tell() <= KEPT_BYTES:
                return out.getvalue()
        picture.thumbnail((picture.width * 3 // 4, picture.height * 3 // 4))
