"""Commands other than asking: help, menus, examples, stopping, and the checks on questions."""

from __future__ import annotations

from pathlib import Path

from testkit.botkit import ADMIN, ALICE, BOB, GROUP, Glassbox, people, running
from testkit.fakes.model import DashScope, FakeModel, sse, text_reply
from testkit.fakes.server import Reply
from testkit.fakes.telegram import FakeTelegram


def slow(text: str, delay: float = 3.0) -> Reply:
    """A model that takes its time (long enough to be stopped)."""
    return sse(DashScope().text(text), first_delay=delay)


async def test_help_explains_react_in_the_users_language(gb: Glassbox) -> None:
    asked = gb.tg.send(ALICE, ALICE, "/start")
    await gb.tg.wait(lambda: bool(gb.replies_to(ALICE, asked)))
    assert "ReAct" in gb.replies_to(ALICE, asked)[0].text
    assert "/compare" in gb.replies_to(ALICE, asked)[0].text
    zh = gb.tg.send(BOB, BOB, "/help")
    await gb.tg.wait(lambda: bool(gb.replies_to(BOB, zh)))
    assert "思考" in gb.replies_to(BOB, zh)[0].text


async def test_command_menus_are_registered_for_private_and_group_chats(gb: Glassbox) -> None:
    menus = {(c["scope"]["type"], c["language_code"]): [x["command"] for x in c["commands"]]
             for c in gb.tg.commands}
    assert set(menus) == {("all_private_chats", ""), ("all_private_chats", "zh"),
                          ("all_group_chats", ""), ("all_group_chats", "zh")}
    assert "start" in menus["all_private_chats", ""]
    assert "start" not in menus["all_group_chats", "zh"]
    zh = next(c for c in gb.tg.commands if c["language_code"] == "zh")
    assert any("工具" in x["description"] for x in zh["commands"])


async def test_an_empty_or_overlong_question_is_not_run(gb: Glassbox) -> None:
    empty = gb.tg.send(GROUP, ALICE, "/compare@GlassboxBot")
    long = gb.tg.send(GROUP, BOB, "/ask " + "问" * 2001)
    await gb.tg.wait(lambda: bool(gb.replies_to(GROUP, empty) and gb.replies_to(GROUP, long)))
    assert "/compare What is the weather" in gb.replies_to(GROUP, empty)[0].text
    assert "2001" in gb.replies_to(GROUP, long)[0].text
    assert "2000" in gb.replies_to(GROUP, long)[0].text
    assert gb.model.bodies == []


async def test_one_question_at_a_time_per_user(gb: Glassbox) -> None:
    gb.model.push(slow("first", 0.5), text_reply("bob's"))
    first = gb.tg.send(GROUP, ALICE, "/ask one")
    await gb.tg.wait(lambda: bool(gb.replies_to(GROUP, first)))
    second = gb.tg.send(GROUP, ALICE, "/ask two")
    await gb.tg.wait(lambda: bool(gb.replies_to(GROUP, second)))
    assert "Still working on your last question" in gb.replies_to(GROUP, second)[0].text
    other = gb.tg.send(GROUP, BOB, "/ask 三")  # someone else is not blocked
    assert "bob's" in (await gb.answer_to(GROUP, other)).text
    assert "first" in (await gb.answer_to(GROUP, first)).text


async def test_only_the_asker_or_an_admin_can_stop_a_run(gb: Glassbox) -> None:
    gb.model.push(slow("never shown"), slow("never shown either"))
    asked = gb.tg.send(GROUP, ALICE, "/ask something slow")
    live = await gb.stop_button_on(GROUP, asked)
    assert live.buttons == ["⏹ Stop"]
    gb.tg.tap(GROUP, BOB, live.message_id, live.button_data("⏹ Stop"))
    await gb.tg.wait(lambda: "answerCallbackQuery" in gb.tg.methods())
    refusal = next(c for c in gb.tg.calls if c.method == "answerCallbackQuery")
    assert refusal.params["show_alert"] == "true" and "只有提问的人" in refusal.params["text"]
    assert gb.running(GROUP)

    gb.tg.tap(GROUP, ALICE, live.message_id, live.button_data("⏹ Stop"))
    final = await gb.answer_to(GROUP, asked)
    assert "never shown" not in final.text
    assert "Stopped" in final.text

    again = gb.tg.send(GROUP, ALICE, "/ask also slow")
    live = await gb.stop_button_on(GROUP, again)
    gb.tg.tap(GROUP, ADMIN, live.message_id, live.button_data("⏹ Stop"))
    assert "Stopped by Teacher" in (await gb.answer_to(GROUP, again)).text


async def test_stop_command_stops_your_own_run(gb: Glassbox) -> None:
    nothing = gb.tg.send(ALICE, ALICE, "/stop")
    await gb.tg.wait(lambda: bool(gb.replies_to(ALICE, nothing)))
    assert "no question running" in gb.replies_to(ALICE, nothing)[0].text
    gb.model.push(slow("never shown"))
    asked = gb.tg.send(ALICE, ALICE, "slow one")
    await gb.tg.wait(lambda: bool(gb.replies_to(ALICE, asked)))
    gb.tg.send(ALICE, ALICE, "/stop")
    assert "Stopped" in (await gb.answer_to(ALICE, asked)).text


async def test_examples_are_buttons_and_a_tap_runs_one(gb: Glassbox) -> None:
    gb.model.push(text_reply("It is 12:00 in London."))
    asked = gb.tg.send(GROUP, BOB, "/examples")
    await gb.tg.wait(lambda: bool(gb.replies_to(GROUP, asked)))
    menu = gb.replies_to(GROUP, asked)[0]
    assert len(menu.buttons) == 6 and "🕒 伦敦现在几点" in menu.buttons
    gb.tg.tap(GROUP, ALICE, menu.message_id, menu.button_data("🕒 伦敦现在几点"))
    final = await gb.answer_to(GROUP, menu.message_id)
    assert "12:00ⁱ in London" in final.text  # a time from no observation (issue 18)
    assert gb.model.bodies[0]["messages"][-1]["content"] == "What time is it in London right now?"
    assert menu.buttons  # the menu stays for the next tap


async def test_chats_outside_allowed_chat_ids_get_one_line(tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        people(tg)
        async with running(tg, model, tmp_path / "g.sqlite3", allowed_chat_ids={GROUP}) as gb:
            gb.model.push(text_reply("hi class"))
            gb.tg.send(ALICE, ALICE, "/ask hello")
            asked = gb.tg.send(GROUP, ALICE, "/ask hello")
            await gb.answer_to(GROUP, asked)
            [refused] = gb.tg.bot_messages(ALICE)
            assert refused.text == "Glassbox is not enabled in this chat."
            assert len(gb.model.bodies) == 1
