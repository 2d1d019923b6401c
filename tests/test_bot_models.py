"""Named models through the real Application against the fake Bot API and two fake model
endpoints that behave differently (a "local" one that guesses, a "cloud" one that looks
things up): a chat's admin chooses the class's model in /settings, and the chat's next
question goes to it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence

import pytest

from agent.tool import Tool
from tests.botkit import ADMIN, ALICE, BOB, GROUP, Add, Glassbox, running
from tests.dbkit import Target
from tests.fakes.model import FakeModel, text_reply
from tests.fakes.telegram import FakeTelegram, Message

CLOUD_KEY = "sk-cloud-secret-4242"


@pytest.fixture
def gb_database(db_target: Target) -> Target:
    """These tests run on SQLite and on PostgreSQL."""
    return db_target


@pytest.fixture
def cloud() -> Iterator[FakeModel]:
    """The second endpoint, with a key of its own."""
    with FakeModel() as server:
        yield server


@pytest.fixture
def gb_tools() -> Sequence[Tool]:
    return [Add()]


@pytest.fixture
async def gb(fake_telegram: FakeTelegram, fake_model: FakeModel, cloud: FakeModel,
             gb_tools: Sequence[Tool], gb_database: Target) -> AsyncIterator[Glassbox]:
    """Glassbox with two named models: `local` (the default, at `fake_model`) and `cloud`."""
    models = {"local": {"base_url": fake_model.base_url, "model": "qwen2.5-1.5b"},
              "cloud": {"base_url": cloud.base_url, "model": "qwen-plus",
                        "api_key": CLOUD_KEY}}
    async with running(fake_telegram, fake_model, gb_database, tools=gb_tools,
                       llm_model="local", llm_models=models) as glassbox:
        yield glassbox


async def menu(gb: Glassbox, user: int) -> Message:
    sent = gb.tg.send(GROUP, user, "/settings")
    await gb.tg.wait(lambda: bool(gb.replies_to(GROUP, sent)))
    return gb.replies_to(GROUP, sent)[0]


async def tap(gb: Glassbox, user: int, message: Message, label: str) -> None:
    before = message.text, message.buttons
    data = next(message.button_data(b) for b in message.buttons if b.startswith(label))
    gb.tg.tap(GROUP, user, message.message_id, data)
    await gb.tg.wait(lambda: (message.text, message.buttons) != before)


async def test_an_admin_chooses_the_class_model_and_the_next_question_goes_to_it(
        gb: Glassbox, cloud: FakeModel) -> None:
    shown = await menu(gb, ADMIN)
    assert "🤖 Model: local" in shown.text
    await tap(gb, ADMIN, shown, "🤖 Model")
    assert shown.buttons[:2] == ["• local", "cloud"] and "◀ Back" in shown.buttons
    await tap(gb, ADMIN, shown, "cloud")
    assert "✅ Changed 🤖 Model: local → cloud" in shown.text
    assert "• cloud" in shown.buttons

    cloud.push(text_reply("From the cloud."))
    asked = gb.tg.send(GROUP, BOB, "/ask hello")
    answer = await gb.answer_to(GROUP, asked)
    assert "From the cloud." in answer.text
    assert [b["model"] for b in cloud.bodies] == ["qwen-plus"] and gb.model.bodies == []
    record = await gb.parts.store.by_message(GROUP, answer.message_id)
    assert record is not None and record.model == "cloud"

    student = await menu(gb, ALICE)  # a student reads it
    assert "🤖 Model: cloud" in student.text and student.buttons == []
    assert CLOUD_KEY not in "".join(m.text for m in gb.tg.bot_messages(GROUP))
