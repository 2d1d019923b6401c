"""The fake Bot API's sendPhoto, driven by python-telegram-bot's own Bot over HTTP (its own
multipart upload): a Message with the PhotoSize copies Telegram keeps and the caption as
shown, and Telegram's refusals of a caption too long, a file that is no picture, and a
picture of impossible proportions."""

from __future__ import annotations

import io

import pytest
from PIL import Image
from telegram import Bot
from telegram.error import BadRequest

from testkit.fakes.telegram import TOKEN, FakeTelegram

GROUP = -1001234567890


def png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), "white").save(out, format="PNG")
    return out.getvalue()


async def test_a_photo_is_uploaded_and_shown_with_its_caption() -> None:
    with FakeTelegram() as tg:
        tg.group(GROUP, "Class")
        async with Bot(TOKEN, base_url=tg.base_url) as bot:
            sent = await bot.send_photo(GROUP, png(1080, 2052), caption="<b>11</b> questions",
                                        parse_mode="HTML")
        assert sent.caption == "11 questions"  # as shown: the markup parsed
        sizes = [(p.width, p.height) for p in sent.photo]
        assert sizes == [(47, 90), (168, 320), (421, 800), (674, 1280), (1080, 2052)]
        [shown] = [m for m in tg.messages.values() if m.photo is not None]
        assert shown.photo is not None and (shown.photo.width, shown.photo.height) == (1080, 2052)
        assert shown.text == "11 questions"


@pytest.mark.parametrize(("picture", "caption", "refusal"), [
    (png(100, 100), "x" * 1025, "Message caption is too long"),
    (b"not a picture", "", "Image_process_failed"),
    (png(4000, 100), "", "Photo_invalid_dimensions"),
])
async def test_what_telegram_refuses(picture: bytes, caption: str, refusal: str) -> None:
    with FakeTelegram() as tg:
        tg.group(GROUP, "Class")
        async with Bot(TOKEN, base_url=tg.base_url) as bot:
            with pytest.raises(BadRequest, match=refusal):
                await bot.send_photo(GROUP, picture, caption=caption or None)
