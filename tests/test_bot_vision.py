"""Photos the model reads itself, through the real Application against the fake Bot API and
the fake model server (which takes images as a vision model decodes them, or refuses them
as OpenAI, DashScope and llama.cpp do), the real store and, where the photo falls back to
it, the real OCR. The chain says whose reading it shows: the model's ('📷 Photo given to the
model (…)'), never as Glassbox's OCR, and the other way round."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from testkit.botkit import ADMIN, ALICE, BOB, GROUP, Glassbox, running
from testkit.fakes.model import FakeModel, Sight, image_urls, text_reply
from testkit.fakes.telegram import FakeTelegram, Message
from testkit.photokit import PAGES, sample
from tests.test_bot_photos import READ_S, photos_kept

EQUATION = next(p for p in PAGES if p.name == "equation")
GIVEN = "📷 Photo given to the model"
READ = "📷 Read from the photo (Glassbox, OCR)"


@pytest.fixture
def vision_model() -> Iterator[FakeModel]:
    with FakeModel(sight=Sight.SEES) as server:
        yield server


async def shown_by(gb: Glassbox, chat: int, command: str, user: int = ALICE) -> Message:
    asked = gb.tg.send(chat, user, command)
    await gb.tg.wait(lambda: bool(gb.replies_to(chat, asked)))
    return gb.replies_to(chat, asked)[0]


def learned(db: Path) -> dict[str, object]:
    with sqlite3.connect(db) as conn:
        return {endpoint: json.loads(value) for endpoint, value in
                conn.execute("SELECT endpoint, learned FROM endpoint_memory")}


async def test_a_model_that_sees_reads_the_photo_itself_and_the_chain_says_so(
        fake_telegram: FakeTelegram, vision_model: FakeModel, tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    vision_model.push(text_reply("The photo shows 3x + 7 = 25, so x = 6."),
                      text_reply("照片上是 3x + 7 = 25，所以 x = 6。"))
    async with running(fake_telegram, vision_model, db, llm_model="qwen-vl-max") as gb:
        asked = gb.tg.send_photo(GROUP, ALICE, sample(EQUATION).data,
                                 caption="/ask solve this")
        final = await gb.answer_to(GROUP, asked)
        run = await gb.services.store.by_message(GROUP, final.message_id)
        assert run is not None
        replay = await shown_by(gb, GROUP, f"/show {run.n}")
        exported = await shown_by(gb, GROUP, f"/export {run.n}")
        private = gb.tg.send_photo(BOB, BOB, sample(EQUATION).data)  # Bob's Telegram: Chinese
        zh = await gb.answer_to(BOB, private)
    for chain in (final.text, replay.text):
        assert f"{GIVEN} (qwen-vl-max)\nThe model looks at the photo itself" in chain, chain
        assert "Glassbox, OCR" not in chain
        assert chain.index(GIVEN) < chain.index("so x = 6.")
    assert exported.document is not None
    page = exported.document.content.decode("utf-8")
    assert f"{GIVEN} (qwen-vl-max)" in page and 'data-by="model"' in page
    assert "📷 照片交给了模型（qwen-vl-max）自己看" in zh.text
    assert "照片由模型自己看：Glassbox 没有读它" in zh.text
    first = vision_model.bodies[0]
    [url] = image_urls(first)
    assert url.startswith("data:image/jpeg;base64,")
    assert first["messages"][-1]["content"][0]["text"].startswith("solve this\n\n[The student "
                                                                  "sent a photo")
    assert vision_model.images[0] == photos_kept(db)[0]  # the kept copy, as decoded
    assert learned(db) == {}


@pytest.mark.parametrize("sight", [Sight.DASHSCOPE, Sight.OPENAI])
async def test_a_refused_photo_is_read_by_glassbox_and_the_refusal_is_remembered(
        sight: Sight, fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    """qwen3.7-max is no model Glassbox knows to be text-only: the first photo is sent, its
    refusal shown and remembered; the second goes straight to the OCR, no image sent."""
    db = tmp_path / "g.sqlite3"
    with FakeModel(sight=sight) as model:
        model.push(text_reply("x = 6"), text_reply("x = 6 again"))
        async with running(fake_telegram, model, db, llm_model="qwen3.7-max",
                           ocr_timeout_s=READ_S) as gb:
            asked = gb.tg.send_photo(GROUP, ALICE, sample(EQUATION).data,
                                     caption="/ask solve this")
            first = await gb.answer_to(GROUP, asked, timeout=READ_S)
            sent = len(model.bodies)
            again = gb.tg.send_photo(GROUP, BOB, sample(EQUATION).data,
                                     caption="/ask and this?")
            second = await gb.answer_to(GROUP, again, timeout=READ_S)
            settings = await shown_by(gb, GROUP, "/settings", ADMIN)
    assert "qwen3.7-max: the endpoint refused a photo, so Glassbox's OCR reads its photos" \
        in settings.text
    assert READ in first.text and GIVEN not in first.text
    assert "qwen3.7-max takes no images (its service refused the photo), so Glassbox read " \
           "the photo with OCR" in first.text
    assert first.text.index(READ) < first.text.index("x = 6")
    refused, asked_again = model.bodies[:sent]
    assert image_urls(refused)
    assert "[Text read from the photo by OCR" in asked_again["messages"][-1]["content"]
    [memory] = learned(db).values()
    assert memory == {"takes_images": False}
    assert READ in second.text and "takes no images" not in second.text
    assert len(model.bodies) == sent + 1
    assert not image_urls(model.bodies[-1])  # the second photo: no image request


async def test_photo_reading_model_gives_the_photo_even_to_a_text_model_and_says_so_when_refused(
        fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    with FakeModel(sight=Sight.OPENAI) as model:
        async with running(fake_telegram, model, tmp_path / "g.sqlite3",
                           llm_model="gpt-3.5-turbo", photo_reading="model") as gb:
            asked = gb.tg.send_photo(GROUP, ALICE, sample(EQUATION).data,
                                     caption="/ask solve this")
            final = await gb.answer_to(GROUP, asked)
    assert "This model takes no images (its service refused the photo), and photos go to " \
           "the model only here (PHOTO_READING=model or PHOTO_OCR=off): please type the " \
           "question." in final.text
    assert f"{GIVEN} (gpt-3.5-turbo)" in final.text and "Glassbox, OCR" not in final.text
    [body] = model.bodies
    assert image_urls(body)


async def test_with_the_ocr_off_a_photo_still_goes_to_a_model_that_sees(
        fake_telegram: FakeTelegram, vision_model: FakeModel, tmp_path: Path) -> None:
    vision_model.push(text_reply("The photo shows 3x + 7 = 25, so x = 6."))
    async with running(fake_telegram, vision_model, tmp_path / "g.sqlite3",
                       llm_model="qwen-vl-max", photo_ocr=False) as gb:
        asked = gb.tg.send_photo(GROUP, ALICE, sample(EQUATION).data,
                                 caption="/ask solve this")
        final = await gb.answer_to(GROUP, asked)
    assert f"{GIVEN} (qwen-vl-max)" in final.text and "so x = 6." in final.text
    assert "Glassbox, OCR" not in final.text
    [body] = vision_model.bodies
    assert image_urls(body)


async def test_with_the_ocr_off_a_refused_photo_gets_one_line_in_the_askers_language(
        fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    """No OCR to fall back on: the run ends with the refusal said in Chinese to Bob."""
    with FakeModel(sight=Sight.OPENAI) as model:
        async with running(fake_telegram, model, tmp_path / "g.sqlite3",
                           llm_model="qwen3.7-max", photo_ocr=False) as gb:
            asked = gb.tg.send_photo(BOB, BOB, sample(EQUATION).data)  # Telegram in Chinese
            final = await gb.answer_to(BOB, asked)
    assert "这个模型不接收图片（模型服务拒绝了照片），而这里照片只交给模型" \
           "（PHOTO_READING=model 或 PHOTO_OCR=off），请用文字提问。" in final.text
    assert "Glassbox, OCR" not in final.text and "OCR 读" not in final.text
    [body] = model.bodies
    assert image_urls(body)


async def test_with_the_ocr_off_and_only_the_ocr_to_read_a_photo_is_refused_in_one_line(
        fake_telegram: FakeTelegram, vision_model: FakeModel, tmp_path: Path) -> None:
    async with running(fake_telegram, vision_model, tmp_path / "g.sqlite3",
                       llm_model="qwen-vl-max", photo_ocr=False, photo_reading="ocr") as gb:
        asked = gb.tg.send_photo(GROUP, ALICE, sample(EQUATION).data,
                                 caption="/ask solve this")
        await gb.tg.wait(lambda: bool(gb.replies_to(GROUP, asked)))
        [refused] = gb.replies_to(GROUP, asked)
    assert refused.text == "Reading photos is turned off here: please type the question."
    assert not vision_model.bodies


async def test_photo_reading_ocr_reads_the_photo_even_for_a_model_that_sees(
        fake_telegram: FakeTelegram, vision_model: FakeModel, tmp_path: Path) -> None:
    vision_model.push(text_reply("x = 6"))
    async with running(fake_telegram, vision_model, tmp_path / "g.sqlite3",
                       llm_model="qwen-vl-max", photo_reading="ocr",
                       ocr_timeout_s=READ_S) as gb:
        asked = gb.tg.send_photo(GROUP, ALICE, sample(EQUATION).data,
                                 caption="/ask solve this")
        final = await gb.answer_to(GROUP, asked, timeout=READ_S)
    assert READ in final.text and GIVEN not in final.text
    [body] = vision_model.bodies
    assert not image_urls(body)
    assert "[Text read from the photo by OCR" in body["messages"][-1]["content"]


async def test_an_album_goes_to_the_model_in_one_request_and_a_compare_gives_it_both_lanes(
        fake_telegram: FakeTelegram, vision_model: FakeModel, tmp_path: Path) -> None:
    receipt = next(p for p in PAGES if p.name == "receipt-en")
    vision_model.default = lambda body: text_reply("Both: x = 6 and 16.50.")
    async with running(fake_telegram, vision_model, tmp_path / "g.sqlite3",
                       llm_model="qwen-vl-max") as gb:
        album = gb.tg.send_photo(GROUP, ALICE, sample(EQUATION).data,
                                 caption="/ask compare these", media_group_id="1388701632841")
        gb.tg.send_photo(GROUP, ALICE, sample(receipt).data, media_group_id="1388701632841")
        final = await gb.answer_to(GROUP, album)
        asked = len(vision_model.bodies)
        compared = gb.tg.send_photo(GROUP, BOB, sample(EQUATION).data,
                                    caption="/compare solve this")
        both = await gb.answer_to(GROUP, compared)
    assert f"{GIVEN.replace('Photo', 'Photo 1 of 2')} (qwen-vl-max)" in final.text
    assert f"{GIVEN.replace('Photo', 'Photo 2 of 2')} (qwen-vl-max)" in final.text
    assert asked == 1 and len(image_urls(vision_model.bodies[0])) == 2
    lanes = [b for b in vision_model.bodies[asked:] if image_urls(b)]
    assert len(lanes) == 2  # the model alone and the model with tools each see the photo
    assert both.text.count("📷 照片交给了模型") + both.text.count(GIVEN) == 1, both.text


async def test_a_figure_the_model_read_off_the_photo_is_marked_but_not_sent_back(
        fake_telegram: FakeTelegram, vision_model: FakeModel, tmp_path: Path) -> None:
    """No tool gives what a photo says: the figure keeps its mark, and the model is not
    asked to look it up (convert_currency is offered)."""
    vision_model.default = lambda body: text_reply("The total is ¥16.50.")
    async with running(fake_telegram, vision_model, tmp_path / "g.sqlite3",
                       llm_model="qwen-vl-max", tools=None) as gb:
        asked = gb.tg.send_photo(GROUP, ALICE, sample(EQUATION).data,
                                 caption="/ask what is the total?")
        final = await gb.answer_to(GROUP, asked)
    assert "The total is ¥16.50ⁱ." in final.text
    assert "asked the model to look it up" not in final.text
    assert len(vision_model.bodies) == 1
