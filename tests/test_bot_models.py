"""Named models through the real Application against the fake Bot API and two fake model
endpoints that behave differently (a "local" one that guesses, a "cloud" one that calls a
tool): a chat's admin chooses the class's model in /settings and the chat's next question
goes to it; `/compare local cloud question` asks both at once, each with tools, and shows
the two answers side by side with the judgement (chat, /show, /history, /export, English
and Chinese); a side whose endpoint is down answers with the error while the other
completes; a name no model has is refused naming the models; `/rerun N NAME` asks again on
another model."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path

import pytest

from agent.tool import Tool
from bot.store.records import Scope
from testkit.botkit import ADMIN, ALICE, BOB, GROUP, Add, Glassbox, running
from testkit.dbkit import Target
from testkit.fakes.model import FakeModel, text_reply, tool_reply
from testkit.fakes.telegram import FakeTelegram, Message
from tests.historykit import reply

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
    # What auto mode learned is kept per endpoint: a bot admin sees each model's.
    assert "qwen2.5-1.5b: function calling, nothing learned" in shown.text
    assert "qwen-plus: function calling, nothing learned" in shown.text
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
    record = await gb.services.store.by_message(GROUP, answer.message_id)
    assert record is not None and record.model == "cloud"

    student = await menu(gb, ALICE)  # a student reads it
    assert "🤖 Model: cloud" in student.text and student.buttons == []
    assert CLOUD_KEY not in "".join(m.text for m in gb.tg.bot_messages(GROUP))


def the_models_answer(local: FakeModel, cloud: FakeModel, local_says: str,
                      cloud_says: str) -> None:
    """`local` guesses without a tool; `cloud` adds with the tool, then answers."""
    local.push(text_reply(local_says))
    cloud.push(tool_reply(("add", {"a": 100, "b": 23})), text_reply(cloud_says))


async def exported(gb: Glassbox, chat: int, user: int, n: int) -> str:
    """The page /export N sends."""
    sent = gb.tg.send(chat, user, f"/export {n}")
    await gb.tg.wait(lambda: bool(gb.replies_to(chat, sent)))
    [document] = gb.replies_to(chat, sent)
    assert document.document is not None
    return document.document.content.decode("utf-8")


async def in_order(text: str, pieces: list[str]) -> None:
    assert all(p in text for p in pieces), [p for p in pieces if p not in text]
    assert [text.index(p) for p in pieces] == sorted(text.index(p) for p in pieces)


async def test_two_models_answer_one_question_side_by_side(gb: Glassbox,
                                                           cloud: FakeModel) -> None:
    the_models_answer(gb.model, cloud, "Roughly 100.", "Exactly 123.")
    sent = gb.tg.send(GROUP, ALICE, "/compare local cloud what is 100+23?")
    shown = await gb.answer_to(GROUP, sent)
    await in_order(shown.text, [
        "❓ what is 100+23?", "🤖 local · with tools", "Roughly 100.",
        "🤖 cloud · with tools", "Exactly 123.",
        "⚖️ ", "They differ: local gave 100 without a tool; cloud calculated 123.",
        "📊 local → cloud: rounds 1 → 2 · tool calls 0 → 1",
        "🔗 Both chains, round by round", "⚡ first differing action", "#1 · /show 1"])
    assert "Roughly 1<u>00</u>." in shown.raw and "Exactly 1<u>23</u>." in shown.raw
    # Each side asked its own endpoint, by the name that endpoint knows its model.
    assert {b["model"] for b in cloud.bodies} == {"qwen-plus"}
    assert "tools" in cloud.bodies[0] and "tools" in gb.model.bodies[0]  # both with tools
    assert CLOUD_KEY not in "".join(m.text for m in gb.tg.bot_messages(GROUP))

    history = await reply(gb, GROUP, ALICE, "/history")
    assert "⚖️ models compared local ↔ cloud" in history.text
    replayed = await reply(gb, GROUP, ALICE, "/show 1")
    await in_order(replayed.text, ["📜 #1 · Alice · ", "🤖 local · with tools", "Roughly 100.",
                                   "🤖 cloud · with tools", "Exactly 123.", "They differ:"])
    # Asked of both again: the new compare is itself side by side, with no third message.
    the_models_answer(gb.model, cloud, "Roughly 100.", "Exactly 123.")
    again = gb.tg.send(GROUP, BOB, "/rerun 1")
    rerun = await gb.answer_to(GROUP, again)
    await in_order(rerun.text, ["🤖 local · with tools", "Roughly 100.", "🤖 cloud · with tools",
                                "Exactly 123.", "#2 · /show 2"])
    assert len(gb.replies_to(GROUP, again)) == 1
    record = await gb.services.store.get(Scope(GROUP), 2)
    assert record is not None and record.model == "local ↔ cloud"

    page = await exported(gb, GROUP, ALICE, 1)
    top = page[:page.index("⚡")]
    await in_order(top, ['class="answers two"', "🤖 local · with tools",
                         'Roughly <span class="figure-backed" title="the question">1<mark '
                         'class="differs">00</mark>', "🤖 cloud · with tools",
                         '1<mark class="differs">23</mark>', "They differ:",
                         "local → cloud"])


async def test_two_models_in_chinese(gb: Glassbox, cloud: FakeModel) -> None:
    the_models_answer(gb.model, cloud, "大约是100。", "正好是123。")
    sent = gb.tg.send(GROUP, BOB, "/compare local vs cloud 100加23等于多少？")
    shown = await gb.answer_to(GROUP, sent)
    await in_order(shown.text, [
        "🤖 local · 使用工具", "大约是100。", "🤖 cloud · 使用工具", "正好是123。",
        "两个回答不同：local 没用工具，给出 100；cloud 计算得到 123。", "📊 local → cloud：",
        "两条过程，逐轮对齐", "⚡ 第一个不同的动作"])
    history = await reply(gb, GROUP, BOB, "/history")
    assert "⚖️ 模型对比 local ↔ cloud" in history.text
    replayed = await reply(gb, GROUP, BOB, "/show 1")
    await in_order(replayed.text, ["📜 #1 · Bob · ", "🤖 local · 使用工具", "大约是100。",
                                   "🤖 cloud · 使用工具", "正好是123。", "两个回答不同"])
    page = await exported(gb, GROUP, BOB, 1)
    await in_order(page, ['<html lang="zh"', 'class="answers two"', "🤖 local · 使用工具",
                          "🤖 cloud · 使用工具", "两个回答不同", "两条过程，逐轮对齐"])


async def test_a_side_whose_endpoint_is_down_answers_with_the_error(
        gb: Glassbox, cloud: FakeModel) -> None:
    gb.model.push(tool_reply(("add", {"a": 100, "b": 23})), text_reply("It is 123."))
    cloud.refuse_connections()
    sent = gb.tg.send(GROUP, ALICE, "/compare cloud local what is 100+23?")
    shown = await gb.answer_to(GROUP, sent)
    await in_order(shown.text, ["🤖 cloud · with tools",
                                "❌ Could not reach the model service",
                                "🤖 local · with tools", "It is 123.", "#1 · /show 1"])
    assert "⚖️" not in shown.text  # nothing to judge: one side has no answer
    record = await gb.services.store.get(Scope(GROUP), 1)
    assert record is not None and record.status == "done" and record.model == "cloud ↔ local"


async def test_unknown_or_repeated_names_are_refused_naming_the_models(
        gb: Glassbox, cloud: FakeModel) -> None:
    said = {}
    for user, command in ((ALICE, "/compare local gpt9 what is 2+2?"),
                          (BOB, "/compare gpt9 vs cloud 2+2"),
                          (ALICE, "/compare cloud CLOUD 2+2"),
                          (ALICE, "/rerun 1 gpt9")):
        said[command] = (await reply(gb, GROUP, user, command)).text
    assert said["/compare local gpt9 what is 2+2?"] == (
        "There is no model called gpt9 here. The models: local, cloud")
    assert said["/compare gpt9 vs cloud 2+2"] == (
        "这里没有叫 gpt9 的模型。可以用的模型：local, cloud")
    assert said["/compare cloud CLOUD 2+2"] == (
        "Please name two different models, e.g. /compare local cloud question "
        "(the models: local, cloud)")
    assert said["/rerun 1 gpt9"] == "There is no run #1 here."  # the run is checked first
    assert gb.model.bodies == [] and cloud.bodies == []


async def test_rerun_on_another_model_sets_it_beside_the_original(
        gb: Glassbox, cloud: FakeModel) -> None:
    gb.model.push(text_reply("Roughly 100."))
    asked = gb.tg.send(GROUP, ALICE, "/ask what is 100+23?")
    await gb.answer_to(GROUP, asked)
    cloud.push(tool_reply(("add", {"a": 100, "b": 23})), text_reply("Exactly 123."))
    sent = gb.tg.send(GROUP, BOB, "/rerun 1 cloud")
    await gb.tg.wait(lambda: len(gb.replies_to(GROUP, sent)) == 2 and not gb.running(GROUP))
    live, side_by_side = gb.replies_to(GROUP, sent)
    assert "Exactly 123." in live.text and len(cloud.bodies) >= 2
    record = await gb.services.store.get(Scope(GROUP), 2)
    assert record is not None and record.model == "cloud"
    await in_order(side_by_side.text, ["#1 · Alice · ", "Roughly 100.", "#2 · Bob · ",
                                       "Exactly 123.", "#3 · /show 3"])
    unknown = await reply(gb, GROUP, BOB, "/rerun 1 gpt9")
    assert unknown.text == "这里没有叫 gpt9 的模型。可以用的模型：local, cloud"


async def test_with_one_model_a_question_may_begin_with_its_name(
        fake_telegram: FakeTelegram, fake_model: FakeModel, tmp_path: Path) -> None:
    """No names set up: `/compare qwen-plus is …` is a question for the model alone beside
    it with tools, as before."""
    fake_model.default = lambda body: text_reply("It is good." if "tools" not in body else
                                                 "It is good, with tools.")
    async with running(fake_telegram, fake_model, tmp_path / "g.sqlite3") as gb:
        sent = gb.tg.send(GROUP, ALICE, "/compare qwen-plus is it good?")
        shown = await gb.answer_to(GROUP, sent)
        assert "🧠 Model alone, no tools" in shown.text and "It is good." in shown.text
        same = await reply(gb, GROUP, ALICE, "/compare qwen-plus qwen-plus is it good?")
        assert same.text == ("Only one model is set up here (qwen-plus): there is no second "
                             "one to compare it with.")
