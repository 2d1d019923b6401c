"""/step through the real Application against the fakes: each button by the asker, by an
admin and by someone else; edits with valid and invalid arguments; the timeout; /show."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from agent.tool import Tool
from agent.tools.calculator import Calculate
from testkit.botkit import ADMIN, ALICE, BOB, GROUP, Add, Glassbox, running
from testkit.fakes.model import FakeModel, text_reply, tool_reply
from testkit.fakes.telegram import FakeTelegram, Message

BUTTONS = ["▶ Run", "✏️ Edit", "⏭ Skip", "⏹ Stop"]


@pytest.fixture
def gb_tools() -> Sequence[Tool]:
    return [Add()]


async def paused(gb: Glassbox, chat: int, asked: int, pause: int = 1) -> Message:
    """The run's message once its `pause`-th proposal waits with the step buttons."""
    def waiting() -> bool:
        found = gb.replies_to(chat, asked)
        return bool(found) and found[0].buttons == BUTTONS and (
            f":{pause}:run" in found[0].button_data("▶ Run"))
    await gb.tg.wait(waiting)
    return gb.replies_to(chat, asked)[0]


async def asking(gb: Glassbox, chat: int, prompt: Message) -> None:
    """Wait until the bot has learnt the id of its question (a person takes longer)."""
    await gb.tg.wait(lambda: gb.services.runs.pauses.asking(chat, prompt.message_id) is not None)


def tap_answers(tg: FakeTelegram) -> list[tuple[str, str]]:
    return [(c.params.get("text", ""), c.params.get("show_alert", "")) for c in tg.calls
            if c.method == "answerCallbackQuery"]


async def test_run_then_an_invalid_and_a_valid_edit_by_the_asker(gb: Glassbox) -> None:
    gb.model.push(tool_reply(("add", {"a": 2, "b": 2}), content="Add them."),
                  tool_reply(("add", {"a": 4, "b": 1}), content="Now add one."),
                  text_reply("It is 14."))
    asked = gb.tg.send(GROUP, ALICE, "/step what is 2+2, plus one?")
    live = await paused(gb, GROUP, asked)
    await gb.tg.wait(lambda: "Waiting for a decision" in gb.replies_to(GROUP, asked)[0].text)
    text = gb.replies_to(GROUP, asked)[0].text
    assert "Add them." in text and "add(a=2, b=2)" in text and "👀" not in text
    assert len(gb.model.bodies) == 1  # nothing ran yet

    gb.tg.tap(GROUP, ALICE, live.message_id, live.button_data("▶ Run"))
    live = await paused(gb, GROUP, asked, pause=2)
    gb.tg.tap(GROUP, ALICE, live.message_id, live.button_data("✏️ Edit"))
    await gb.tg.wait(lambda: any("New arguments for" in m.text
                                 for m in gb.replies_to(GROUP, live.message_id)))
    prompt = next(m for m in gb.replies_to(GROUP, live.message_id) if "New arguments" in m.text)
    assert "add(a=4, b=1)" in prompt.text

    await asking(gb, GROUP, prompt)
    wrong = gb.tg.send(GROUP, ALICE, "a=ten b=1", reply_to=prompt.message_id)
    await gb.tg.wait(lambda: bool(gb.replies_to(GROUP, wrong)))
    again = gb.replies_to(GROUP, wrong)[0]
    assert "Invalid arguments for add: a: Input should be a valid number" in again.text
    assert "New arguments for" in again.text
    await asking(gb, GROUP, again)
    bobs = gb.tg.send(GROUP, BOB, "a=0 b=0", reply_to=again.message_id)  # not Bob's to edit
    await gb.tg.wait(lambda: bool(gb.replies_to(GROUP, bobs)))
    assert "只有 Alice 或管理员可以修改这一步。" in gb.replies_to(GROUP, bobs)[0].text
    gb.tg.send(GROUP, ALICE, '{"a": 13, "b": 1}', reply_to=again.message_id)

    final = await gb.answer_to(GROUP, asked)
    assert "It is 14." in final.text
    assert "Run by Alice" in final.text
    assert "Edited by Alice; the model proposed add(a=4, b=1)" in final.text
    assert "add(a=13, b=1)" in final.text
    assert gb.model.bodies[2]["messages"][-1]["content"] == "14"
    assert len([m for m in gb.tg.bot_messages(GROUP) if "It is 14." in m.text]) == 1


async def test_someone_else_is_refused_and_an_admin_may_skip(gb: Glassbox) -> None:
    gb.model.push(tool_reply(("add", {"a": 2, "b": 2})), text_reply("I skipped it."))
    asked = gb.tg.send(GROUP, ALICE, "/step add 2 and 2")
    live = await paused(gb, GROUP, asked)
    run = live.button_data("▶ Run")
    gb.tg.tap(GROUP, BOB, live.message_id, live.button_data("⏭ Skip"))
    await gb.tg.wait(lambda: bool(tap_answers(gb.tg)))
    assert tap_answers(gb.tg)[0] == ("只有 Alice 或管理员可以决定。", "true")
    assert gb.running(GROUP) and len(gb.model.bodies) == 1

    gb.tg.tap(GROUP, ADMIN, live.message_id, live.button_data("⏭ Skip"))
    final = await gb.answer_to(GROUP, asked)
    assert "Skipped by Teacher" in final.text and "I skipped it." in final.text
    assert gb.model.bodies[1]["messages"][-1]["content"] == "skipped by Teacher"
    gb.tg.tap(GROUP, ALICE, live.message_id, run)  # too late
    await gb.tg.wait(lambda: len(tap_answers(gb.tg)) == 3)
    assert tap_answers(gb.tg)[2][0] == "This step has already been decided."


async def test_stop_by_the_asker_ends_the_run_as_stopped_and_show_replays_it(
        gb: Glassbox) -> None:
    gb.model.push(tool_reply(("add", {"a": 2, "b": 2})))
    asked = gb.tg.send(ALICE, ALICE, "/step add 2 and 2")
    live = await paused(gb, ALICE, asked)
    gb.tg.tap(ALICE, ALICE, live.message_id, live.button_data("⏹ Stop"))
    final = await gb.answer_to(ALICE, asked)
    assert "Stopped here by Alice" in final.text and "⏹ Stopped by Alice." in final.text
    assert final.buttons == []
    run = await gb.services.store.by_message(ALICE, final.message_id)
    assert run is not None and run.status == "cancelled"
    types = [e.type for e in (await gb.services.store.events(run.id))["main"]]
    assert types[-3:] == ["proposed", "decided", "run_finished"]

    show = gb.tg.send(ALICE, ALICE, "/show 1")
    await gb.tg.wait(lambda: bool(gb.replies_to(ALICE, show)))
    assert "Stopped here by Alice" in "".join(m.text for m in gb.replies_to(ALICE, show))


async def test_a_pause_nobody_answers_stops_the_run_saying_why(
        fake_telegram: FakeTelegram, fake_model: FakeModel, tmp_path: Path) -> None:
    fake_model.push(tool_reply(("add", {"a": 2, "b": 2})))
    async with running(fake_telegram, fake_model, tmp_path / "g.sqlite3", tools=[Add()],
                       pause_timeout_s=0.3) as gb:
        asked = gb.tg.send(GROUP, BOB, "/step 2+2")
        final = await gb.answer_to(GROUP, asked)
    assert "0.3 秒内无人决定，运行已停止。" in final.text
    assert "无人决定，运行在这里停止" in final.text
    assert len(fake_model.bodies) == 1


async def test_confirm_tools_pause_a_plain_ask(
        fake_telegram: FakeTelegram, fake_model: FakeModel, tmp_path: Path) -> None:
    fake_model.push(tool_reply(("add", {"a": 1, "b": 1}), ("calculate", {"expression": "1+1"})),
                    text_reply("Two."))
    async with running(fake_telegram, fake_model, tmp_path / "g.sqlite3",
                       tools=[Add(), Calculate()], agent_confirm_tools="calculate") as gb:
        asked = gb.tg.send(GROUP, ALICE, "/ask 1+1")
        live = await paused(gb, GROUP, asked)
        gb.tg.tap(GROUP, ALICE, live.message_id, live.button_data("▶ Run"))
        final = await gb.answer_to(GROUP, asked)
    assert "Run by Alice" in final.text and "Two." in final.text
    assert final.text.count("Run by") == 1  # add needed no confirmation
