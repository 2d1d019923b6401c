"""Photos over the HTTP API, real HTTP against the running bot, the fake model server behind
it and the real store: POST /api/v1/chat's `images` (data URLs or bare base64) run as the
chat's photos do, the run's JSON carries the read step as the chat words it, and every image
refused before anything runs: 413 past the count, the bytes or the pixels, 400 what is not
base64 or not a picture."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

from PIL import Image

from bot.store.chat_settings_values import ChatSettings
from testkit.fakes.model import FakeModel, Sight, image_urls, text_reply
from testkit.fakes.telegram import FakeTelegram
from testkit.photokit import PAGES, normal, png, sample
from testkit.serving import serving

TEACHER = {"Authorization": "Bearer teacher-token-1"}
EQUATION = next(p for p in PAGES if p.name == "equation")
READ_S = 600
"""Time enough to read a photo on a machine shared with other test runs."""


def data_url(data: bytes, kind: str = "png") -> str:
    return f"data:image/{kind};base64," + base64.b64encode(data).decode()


async def test_an_image_goes_to_a_model_that_sees_and_the_run_says_so(
        tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel(sight=Sight.SEES) as model:
        model.push(text_reply("It reads 3x + 7 = 25, so x = 6."))
        async with serving(tg, model, tmp_path / "g.sqlite3", api_tokens="teacher-token-1",
                           llm_model="qwen-vl-max") as web:
            answer = await web.http.post("/api/v1/chat", headers=TEACHER, json={
                "message": "solve this", "images": [data_url(sample(EQUATION).data)]})
            assert answer.status_code == 200, answer.text
            run = answer.json()
            stored = (await web.http.get(f"/api/v1/runs/{run['runId']}",
                                         headers=TEACHER)).json()
            model.push(text_reply("x = 6"))
            stream = web.http.stream("POST", "/api/v1/chat/stream", headers=TEACHER, json={
                "message": "and this?", "images": [data_url(sample(EQUATION).data)]})
            async with stream as streamed:
                lines = [line async for line in streamed.aiter_lines()]
    events = [json.loads(line[6:]) for line in lines if line.startswith("data: ")]
    [step] = [e for e in events if e["type"] == "input_read"]
    assert step["by"] == "model" and step["heading"] == "📷 Photo given to the model " \
                                                         "(qwen-vl-max)"
    assert run["answer"] == "It reads 3x + 7 = 25, so x = 6."
    expected = [{"kind": "photo", "by": "model", "engine": "qwen-vl-max", "number": 1, "of": 1,
                 "heading": "📷 Photo given to the model (qwen-vl-max)", "text": None,
                 "note": "The model looks at the photo itself: Glassbox did not read it, so "
                         "no text read is shown here.", "segments": []}]
    assert run["reads"] == stored["reads"] == expected
    [url] = image_urls(model.bodies[0])
    assert url.startswith("data:image/jpeg;base64,")  # the kept copy, not the PNG sent
    assert Image.open(io.BytesIO(model.images[0])).format == "JPEG"


async def test_bare_base64_is_read_by_the_ocr_and_the_run_json_has_the_read_step(
        tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:  # qwen-plus: text only
        model.push(text_reply("x = 6"))
        async with serving(tg, model, tmp_path / "g.sqlite3", api_tokens="teacher-token-1",
                           ocr_timeout_s=READ_S) as web:
            web.http.timeout = READ_S
            answer = await web.http.post("/api/v1/chat", headers=TEACHER, json={
                "message": "solve this",
                "images": [base64.encodebytes(sample(EQUATION).data).decode()]})
            assert answer.status_code == 200, answer.text
            run = answer.json()
            stored = (await web.http.get(f"/api/v1/runs/{run['runId']}",
                                         headers=TEACHER)).json()
    [read] = run["reads"]
    assert stored["reads"] == run["reads"]
    assert read["by"] == "glassbox" and read["heading"] == "📷 Read from the photo (Glassbox, OCR)"
    assert "3x+7=25" in normal(read["text"]) and read["note"] is None
    assert all(set(s) == {"text", "confidence", "line", "unsure"} for s in read["segments"])
    assert not image_urls(model.bodies[0])
    assert "[Text read from the photo by OCR" in model.bodies[0]["messages"][-1]["content"]


async def refused(web: Any, body: dict[str, Any]) -> tuple[int, str, str]:
    answer = await web.http.post("/api/v1/chat", headers=TEACHER, json=body)
    error = answer.json()["error"]
    return answer.status_code, error["code"], error["message"]


async def test_images_past_a_cap_are_413_and_what_is_no_picture_400(tmp_path: Path) -> None:
    photo = data_url(png(Image.new("RGB", (40, 30), "white")))
    huge = png(Image.new("1", (5000, 4000)))  # 20 MP in a few KB
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        async with serving(tg, model, tmp_path / "g.sqlite3", api_tokens="teacher-token-1",
                           album_max_photos=2) as web:
            ask = {"message": "what is this?"}
            assert await refused(web, {**ask, "images": [photo] * 3}) == (
                413, "too_many_images", "images: 3 given; at most 2 may come with one "
                                        "question.")
            over = base64.b64encode(b"\xff" * (5 * 2**20)).decode()
            assert await refused(web, {**ask, "images": [photo, over]}) == (
                413, "image_too_large", "images[1] has about 5.0 MB; at most 4 MB an image.")
            assert await refused(web, {**ask, "images": [data_url(huge)]}) == (
                413, "image_too_large", "images[0] has more than 12 megapixels.")
            body = await web.http.post("/api/v1/chat", headers=TEACHER,
                                       content=b'{"message": "x", "images": ["' + b"A" * (
                                           12 * 2**20) + b'"]}')
            assert body.status_code == 413
            assert body.json()["error"]["message"] == (
                "The body is longer than 10.7 MB; a message may have at most 2,000 characters, "
                "and at most 2 images of 4 MB each.")
            assert await refused(web, {**ask, "images": ["not base64!"]}) == (
                400, "invalid_image", "images[0]: not valid base64.")
            pdf = base64.b64encode(b"%PDF-1.7 not a picture").decode()
            assert await refused(web, {**ask, "images": [photo, pdf]}) == (
                400, "invalid_image", "images[1] is not a picture Glassbox can read (JPEG, "
                                      "PNG, WebP, …).")
            assert await refused(web, {**ask, "images": ["data:text/plain;base64,QUJD"]}) == (
                400, "invalid_image", "images[0]: a data URL must read "
                                      "data:image/<type>;base64,<data>.")
            gif = io.BytesIO()
            frames = [Image.new("RGB", (20, 20), c) for c in ("red", "blue")]
            frames[0].save(gif, format="GIF", save_all=True, append_images=frames[1:])
            assert await refused(web, {**ask, "images": [data_url(gif.getvalue(), "gif")]}) == (
                400, "invalid_image", "images[0] is an animation; send a still picture.")
            code = (await refused(web, {"mode": "compare", "runs": [1, 2],
                                        "images": [photo]}))[:2]
            assert code == (400, "invalid_body")
    assert model.bodies == []  # nothing refused reached the model


async def test_images_without_a_message_ask_what_a_captionless_photo_asks_in_the_chat(
        tmp_path: Path) -> None:
    """As a photo without a caption in a private chat: in the scope's language (English
    unless its settings say Chinese)."""
    photo = data_url(png(Image.new("RGB", (40, 30), "white")))
    with FakeTelegram(scale=0.02) as tg, FakeModel(sight=Sight.SEES) as model:
        model.push(text_reply("A white rectangle."), text_reply("一个白色的长方形。"))
        async with serving(tg, model, tmp_path / "g.sqlite3", api_tokens="teacher-token-1",
                           llm_model="qwen-vl-max") as web:
            answer = await web.http.post("/api/v1/chat", headers=TEACHER,
                                         json={"images": [photo]})
            assert answer.status_code == 200, answer.text
            services = web.gb.services
            defaults = ChatSettings.defaults(services.settings)
            await services.store.chats.put(await services.store.api.scope("teacher-token-1"),
                                           defaults.changed(lang="zh"), defaults, by=None)
            zh = await web.http.post("/api/v1/chat", headers=TEACHER,
                                     json={"message": "  ", "images": [photo]})
            assert zh.status_code == 200, zh.text
            blank = await web.http.post("/api/v1/chat", headers=TEACHER, json={"message": " "})
    assert answer.json()["answer"] == "A white rectangle."
    assert answer.json()["question"] == "What does this show? If it is an exercise, solve it."
    assert zh.json()["question"] == "这张图片是什么内容？如果是题目，请解答。"
    assert zh.json()["answer"] == "一个白色的长方形。"
    asked = [body["messages"][-1]["content"][0]["text"] for body in model.bodies]
    assert asked[0].startswith("What does this show? If it is an exercise, solve it.\n\n")
    assert asked[1].startswith("这张图片是什么内容？如果是题目，请解答。\n\n")
    assert blank.status_code == 400 and blank.json()["error"]["message"] == "message: it is empty."


async def test_with_the_ocr_off_images_go_to_the_model_and_are_refused_only_where_it_alone_read(
        tmp_path: Path) -> None:
    photo = data_url(png(Image.new("RGB", (40, 30), "white")))
    ask = {"message": "what is this?", "images": [photo]}
    with FakeTelegram(scale=0.02) as tg, FakeModel(sight=Sight.SEES) as model:
        model.push(text_reply("A white rectangle."))
        async with serving(tg, model, tmp_path / "g.sqlite3", api_tokens="teacher-token-1",
                           llm_model="qwen-vl-max", photo_ocr=False) as web:
            answer = await web.http.post("/api/v1/chat", headers=TEACHER, json=ask)
        assert answer.status_code == 200, answer.text
        assert answer.json()["answer"] == "A white rectangle."
        assert [r["by"] for r in answer.json()["reads"]] == ["model"]
        assert image_urls(model.bodies[0])
        async with serving(tg, model, tmp_path / "g.sqlite3", api_tokens="teacher-token-1",
                           photo_ocr=False, photo_reading="ocr") as web:
            assert await refused(web, ask) == (
                400, "photos_off", "images: this Glassbox reads no photos (PHOTO_OCR is off and "
                                   "PHOTO_READING=ocr); ask in words.")
    assert len(model.bodies) == 1
