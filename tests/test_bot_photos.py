"""Questions about photos, through the real Application against the fake Bot API (photo
sizes, getFile, downloads as Telegram serves them) and the fake model: the text read from the
photo is a step of the chain, Glassbox's, before the model's first round; the model is given
it; the photo is kept with the run; /show and /export show both. Real OCR throughout."""

from __future__ import annotations

import io
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from PIL import Image

from testkit.botkit import ALICE, BOB, GROUP, Glassbox, running
from testkit.fakes.model import FakeModel, text_reply
from testkit.fakes.telegram import FakeTelegram
from testkit.photokit import PAGES, normal, png, sample

RECEIPT = next(p for p in PAGES if p.name == "receipt-en")
EQUATION = next(p for p in PAGES if p.name == "equation")
READ_S = 600
"""Time enough to read a photo on a machine shared with other test runs."""


@pytest.fixture
async def gb(fake_telegram: FakeTelegram, fake_model: FakeModel,
             tmp_path: Path) -> AsyncIterator[Glassbox]:
    async with running(fake_telegram, fake_model, tmp_path / "g.sqlite3",
                       ocr_timeout_s=READ_S) as glassbox:
        yield glassbox


def sent_to_model(gb: Glassbox) -> str:
    return gb.model.bodies[-1]["messages"][-1]["content"]


def photos_kept(db: Path) -> list[bytes]:
    with sqlite3.connect(db) as conn:
        return [row[0] for row in conn.execute("SELECT jpeg FROM run_photos ORDER BY number")]


async def test_a_photo_with_ask_shows_what_was_read_before_the_answer(
        gb: Glassbox, tmp_path: Path) -> None:
    gb.model.push(text_reply("The total is 16.50."))
    asked = gb.tg.send_photo(GROUP, ALICE, sample(RECEIPT, "photographed").data,
                             caption="/ask is the total right?")
    final = await gb.answer_to(GROUP, asked, timeout=READ_S)
    shown = final.text
    assert "📷 Read from the photo (Glassbox, OCR)" in shown
    read_at, answer_at = shown.index("📷"), shown.index("The total is 16.50.")
    assert shown.index("is the total right?") < read_at < answer_at
    for figure in RECEIPT.figures:
        assert figure in shown[read_at:answer_at]
    told = sent_to_model(gb)
    assert told.startswith("is the total right?")
    assert "[Text read from the photo by OCR; it may contain misreadings]" in told
    assert "16.50" in told
    [kept] = photos_kept(tmp_path / "g.sqlite3")
    assert Image.open(io.BytesIO(kept)).format == "JPEG"


async def test_a_photo_in_a_private_chat_without_a_caption_is_asked_about(gb: Glassbox) -> None:
    gb.model.push(text_reply("x = 6"))
    asked = gb.tg.send_photo(BOB, BOB, sample(EQUATION).data)
    final = await gb.answer_to(BOB, asked, timeout=READ_S)
    assert "这张图片是什么内容？如果是题目，请解答。" in final.text  # Bob's Telegram is Chinese
    assert "📷 从照片中读出的文字（Glassbox，OCR）" in final.text
    assert "3x+7=25" in normal(sent_to_model(gb))


async def test_ask_as_a_reply_to_a_photo_asks_about_it(gb: Glassbox) -> None:
    gb.model.push(text_reply("It is an equation."))
    photo = gb.tg.send_photo(GROUP, BOB, sample(EQUATION).data)
    asked = gb.tg.send(GROUP, ALICE, "/ask what is this?", reply_to=photo)
    final = await gb.answer_to(GROUP, asked, timeout=READ_S)
    assert "📷 Read from the photo" in final.text and "Solve for x" in final.text
    assert sent_to_model(gb).startswith("what is this?")


async def test_quiz_as_a_reply_to_a_photo_has_the_class_predict_first(gb: Glassbox) -> None:
    gb.model.push(text_reply("x = 6"))
    photo = gb.tg.send_photo(GROUP, BOB, sample(EQUATION).data)
    asked = gb.tg.send(GROUP, ALICE, "/quiz solve it", reply_to=photo)
    await gb.tg.wait(lambda: any(m.poll is not None for m in gb.tg.bot_messages(GROUP)),
                     timeout=READ_S)
    [poll] = [m for m in gb.tg.bot_messages(GROUP) if m.poll is not None]
    assert "❓ solve it" in poll.poll.question and not gb.model.bodies
    live = gb.replies_to(GROUP, asked)[0]
    assert "📷 Read from the photo" in live.text and "Solve for x" in live.text
    reveal = next(b["callback_data"] for row in live.reply_markup["inline_keyboard"]
                  for b in row if b["callback_data"].startswith("quiz:"))
    gb.tg.tap(GROUP, ALICE, live.message_id, reveal)
    final = await gb.answer_to(GROUP, asked, timeout=READ_S)
    assert "Class prediction" in final.text and "x = 6" in final.text
    assert sent_to_model(gb).startswith("solve it")


async def test_an_album_is_asked_about_together(gb: Glassbox) -> None:
    gb.model.push(text_reply("Both read."))
    asked = gb.tg.send_photo(GROUP, ALICE, sample(EQUATION).data, caption="/ask compare these",
                             media_group_id="1388701632841")
    gb.tg.send_photo(GROUP, ALICE, sample(RECEIPT).data, media_group_id="1388701632841")
    final = await gb.answer_to(GROUP, asked, timeout=READ_S)
    assert "Read from photo 1 of 2" in final.text and "Read from photo 2 of 2" in final.text
    told = sent_to_model(gb)
    assert told.index("photo 1 of 2") < told.index("Solve for x") < told.index("photo 2 of 2")
    assert len(gb.model.bodies) == 1  # one question, not two


async def test_a_photo_without_text_says_so_and_answers_from_the_caption(gb: Glassbox) -> None:
    gb.model.push(text_reply("A blue sky."))
    sky = png(Image.new("RGB", (900, 600), (110, 160, 220)))
    asked = gb.tg.send_photo(GROUP, ALICE, sky, caption="/ask what colour is this?")
    final = await gb.answer_to(GROUP, asked, timeout=READ_S)
    assert "No text found in the photo: answering from the question alone." in final.text
    assert "A blue sky." in final.text
    assert "no text was found in it" in sent_to_model(gb)


async def test_what_cannot_be_read_gets_one_line_in_the_askers_language(gb: Glassbox) -> None:
    not_picture = gb.tg.send_document(GROUP, ALICE, "scan.png", b"%PDF-1.7 not a picture",
                                      caption="/ask what is this?", mime_type="image/png")
    reply = await gb.answer_to(GROUP, not_picture)
    assert reply.text == "That file is not a picture I can read. Please send a photo (JPEG or PNG)."
    huge = png(Image.new("1", (5000, 4000)))  # 20 MP in a few KB
    big = gb.tg.send_document(BOB, BOB, "big.png", huge, mime_type="image/png")
    reply = await gb.answer_to(BOB, big)
    assert reply.text == "这张图片太大了（超过 12 百万像素），我读不了。请发一张小一点的照片。"
    assert gb.model.bodies == []
