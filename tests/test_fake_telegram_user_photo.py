"""The fake Bot API's photos from users, read by python-telegram-bot's own Bot over HTTP as
the bot reads them: updates in the shape of tests/wire/telegram/getUpdates_photo_album.json
(PhotoSize copies smallest first, an album's shared media_group_id, the caption's command
entity on the first), and getFile plus the download of any copy, as getFile_photo_ok.json."""

from __future__ import annotations

import io
import json

from PIL import Image
from telegram import Bot, Update

from testkit.fakes.server import wire
from testkit.fakes.telegram import TOKEN, FakeTelegram

GROUP, ALICE = -1001234567890, 123456789


def jpeg(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 180, 160)).save(out, format="JPEG")
    return out.getvalue()


def keys(value: object) -> object:
    """The shape of a JSON value: its keys all the way down, one list item for a list."""
    if isinstance(value, dict):
        return {k: keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [keys(value[0])] if value else []
    return type(value).__name__


async def test_an_album_arrives_as_telegram_sends_it() -> None:
    sample = json.loads(wire("telegram/getUpdates_photo_album.json"))["result"]
    with FakeTelegram() as tg:
        tg.user(ALICE)
        tg.group(GROUP, "Math Club")
        tg.send_photo(GROUP, ALICE, jpeg(1600, 1200), caption="/ask which exercise is harder?",
                      media_group_id="13887016328413624")
        tg.send_photo(GROUP, ALICE, jpeg(1600, 1200), media_group_id="13887016328413624")
        async with Bot(TOKEN, base_url=tg.base_url,
                       base_file_url=tg.url + "/file/bot") as bot:
            updates = await bot.get_updates(timeout=0)
            raw = [u.to_dict() for u in updates]
            first = updates[0].message
            assert first is not None and first.caption == "/ask which exercise is harder?"
            assert [(p.width, p.height) for p in first.photo] == [
                (90, 68), (320, 240), (800, 600), (1280, 960), (1600, 1200)]
            file = await bot.get_file(first.photo[-2].file_id)
            data = bytes(await file.download_as_bytearray())
    for ours, theirs in zip(raw, sample, strict=True):
        for key in ("photo", "media_group_id", "caption", "caption_entities"):
            assert (key in ours["message"]) == (key in theirs["message"])
        assert keys(ours["message"]["photo"]) == keys(theirs["message"]["photo"])
    assert all(isinstance(Update.de_json(u, None), Update) for u in sample)
    assert file.file_path and "photos/" in file.file_path
    assert file.file_size == len(data)
    with Image.open(io.BytesIO(data)) as copy:
        assert (copy.format, copy.size) == ("JPEG", (1280, 960))
