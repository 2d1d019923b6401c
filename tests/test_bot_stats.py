"""/stats through the real Application against the fake Bot API, on SQLite and PostgreSQL:
the picture (a real PNG, sent with sendPhoto as a multipart upload) and its caption's
headline figures in both languages, a student's own numbers sent privately, and the polite
answers to a period it cannot read or a student it cannot write to."""

from __future__ import annotations

import io
import json

import pytest
from PIL import Image

from testkit.botkit import Glassbox
from testkit.dbkit import Target
from testkit.fakes.server import wire
from testkit.fakes.telegram_objects import Message
from tests.coursekit import ALICE, GROUP, NAMES, TEACHER, seed_course
from tests.historykit import reply
from tests.web.test_board_browser import GALLERY

WEEK = "/stats 2026-09-01..2026-09-07"
LAOSHI = 20


@pytest.fixture
def gb_database(migrated_target: Target) -> Target:
    return migrated_target


@pytest.fixture
async def course(gb: Glassbox) -> Glassbox:
    gb.tg.group(GROUP, "Class 3A")
    for user, name in NAMES.items():
        gb.tg.user(user, name, "en")
    gb.tg.user(LAOSHI, "老师", "zh-hans")
    gb.tg.admin(GROUP, TEACHER)
    gb.tg.admin(GROUP, LAOSHI)
    await seed_course(gb.services.store)
    return gb


async def pictured(gb: Glassbox, chat_id: int, user_id: int, text: str) -> Message:
    """The reply to a /stats that draws: it waits for the drawing process, which has its own
    bound (Drawing.timeout_s), and on a loaded machine takes longer than a chat reply."""
    return await reply(gb, chat_id, user_id, text, timeout=gb.services.drawing.timeout_s)


def png_of(message: Message) -> Image.Image:
    assert message.photo is not None
    image = Image.open(io.BytesIO(message.photo.content))
    assert image.format == "PNG" and (image.width, image.height) == (message.photo.width,
                                                                      message.photo.height)
    return image


async def test_an_admin_gets_the_class_s_picture_in_both_languages(course: Glassbox) -> None:
    shown = await pictured(course, GROUP, TEACHER, WEEK)
    assert png_of(shown).width == 1080
    assert shown.text.splitlines() == [
        "📊 Class 3A · 2026-09-01 to 2026-09-07",
        "11 questions · 2 lectures · 4 askers",
        "9 tool calls, 2 failed · /compare differed 1 of 2 · "
        "/quiz top pick right 2 of 4 rounds · 6,600 tokens",
        "⚠️ Where the model alone differed on a figure: #4 What is 6 times 7?",
        "🗳 The rounds the class got most wrong: #9 round 1: 1 of 4 right · "
        "#5 round 2: 1 of 4 right · #5 round 1: 3 of 4 right",
        "The course page (larger, with the lists and a CSV): the board's link (/board) "
        "followed by /course."]
    sent = next(c for c in course.tg.calls if c.method == "sendPhoto")
    assert sent.params["parse_mode"] == "HTML"

    zh = await pictured(course, GROUP, LAOSHI, WEEK)
    png_of(zh)
    GALLERY.mkdir(parents=True, exist_ok=True)  # the pictures as Telegram got them
    for lang, message in (("en", shown), ("zh", zh)):
        assert message.photo is not None
        (GALLERY / f"stats-{lang}.png").write_bytes(message.photo.content)
    assert zh.text.splitlines()[:5] == [
        "📊 Class 3A · 2026-09-01 至 2026-09-07",
        "11 个问题 · 2 次课 · 4 人提问",
        "工具 9 次，失败 2 次 · /compare 数字不同 1/2 · /quiz 首选猜中 2/4 轮 · 6,600 token",
        "⚠️ 仅模型答错数字的问题：#4 What is 6 times 7?",
        "🗳 全班猜得最差的轮次：#9 第 1 轮：1/4 猜中 · #5 第 2 轮：1/4 猜中 · #5 第 1 轮：3/4 猜中"]


async def test_a_student_gets_their_own_numbers_privately(course: Glassbox) -> None:
    said = await pictured(course, GROUP, ALICE, WEEK)
    assert said.text == "📊 I sent you your numbers privately."
    await course.tg.wait(lambda: bool(photos(course, ALICE)))
    [own] = photos(course, ALICE)
    png_of(own)
    assert own.text.splitlines()[1:] == [
        "4 questions · 2 lectures · 1 asker", "3 tool calls, 1 failed · 2,300 tokens",
        "(your own questions only)"]
    assert not photos(course, GROUP)


async def test_a_student_the_bot_cannot_write_to_is_told_how(course: Glassbox) -> None:
    course.tg.errors["sendPhoto"].append(
        json.loads(wire("telegram/error_403_bot_blocked_by_user.json")))
    said = await pictured(course, GROUP, ALICE, WEEK)
    assert said.text.startswith("I can't write to you privately yet")
    assert not photos(course, ALICE) and not photos(course, GROUP)


@pytest.mark.parametrize(("words", "answer"), [
    ("/stats last week", "I can't read that period. Try /stats, /stats 7d or "
                         "/stats 2026-09-01..2026-12-31."),
    ("/stats 400d", "A period is at most 366 days long."),
    ("/stats 2026-12-31..2026-09-01", "The period ends before it starts."),
    ("/stats 2025-01-01..2025-01-31", "No questions in this period."),
])
async def test_what_is_no_period_gets_a_polite_answer(course: Glassbox, words: str,
                                                      answer: str) -> None:
    said = await reply(course, GROUP, TEACHER, words)
    assert said.text == answer


def photos(gb: Glassbox, chat_id: int) -> list[Message]:
    return [m for (chat, _), m in sorted(gb.tg.messages.items()) if chat == chat_id and m.photo]
