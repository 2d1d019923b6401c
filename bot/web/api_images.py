"""The photos a POST /api/v1/chat body carries (`images`: data URLs or bare base64), decoded
and checked as a photo sent in the chat is (agent/inputs/images.py), each refusal an
ApiError naming the image: 413 past the count or the bytes, or a picture over the pixel cap;
400 what is not base64 or not a still picture."""

from __future__ import annotations

import asyncio
import base64
import binascii
from collections.abc import Sequence

from agent.inputs.images import MAX_PIXELS, ImageProblem, ImageRefused, Picture, check
from bot.web.bodies import MAX_IMAGE_BYTES, ApiError

_DATA_URL = "data:image/"


async def pictures_of(images: Sequence[str], most: int) -> tuple[Picture, ...]:
    """`images` decoded and checked, in order; at most `most` of them."""
    if len(images) > most:
        raise ApiError(413, "too_many_images", f"images: {len(images)} given; at most {most} "
                       "may come with one question.")
    raw = [_decoded(n, image) for n, image in enumerate(images)]
    return tuple([await asyncio.to_thread(_checked, n, data) for n, data in enumerate(raw)])


def _decoded(n: int, image: str) -> bytes:
    """One image's bytes from a `data:image/…;base64,…` URL or bare base64 (line breaks and
    spaces allowed, as encoders wrap it)."""
    data = image
    if image.startswith("data:"):
        head, comma, data = image.partition(",")
        if not (comma and head.startswith(_DATA_URL) and head.endswith(";base64")):
            raise ApiError(400, "invalid_image", f"images[{n}]: a data URL must read "
                           "data:image/<type>;base64,<data>.")
    data = "".join(data.split())
    if len(data) // 4 * 3 > MAX_IMAGE_BYTES:
        raise ApiError(413, "image_too_large", f"images[{n}] has about "
                       f"{len(data) // 4 * 3 / 2**20:.1f} MB; at most "
                       f"{MAX_IMAGE_BYTES // 2**20} MB an image.")
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise ApiError(400, "invalid_image", f"images[{n}]: not valid base64.") from None


def _checked(n: int, data: bytes) -> Picture:
    try:
        return check(data)
    except ImageRefused as refused:
        match refused.problem:
            case ImageProblem.TOO_LARGE:
                raise ApiError(413, "image_too_large", f"images[{n}] has more than "
                               f"{MAX_PIXELS // 1_000_000} megapixels.") from None
            case ImageProblem.ANIMATED:
                raise ApiError(400, "invalid_image", f"images[{n}] is an animation; send a "
                               "still picture.") from None
            case ImageProblem.NOT_IMAGE:
                raise ApiError(400, "invalid_image", f"images[{n}] is not a picture Glassbox "
                               "can read (JPEG, PNG, WebP, …).") from None
