"""/settings through the real Application against the fakes: the menu edits a chat's settings
in place (admins only), each change says what changed, and the chat's next run uses them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime

import pytest

from agent.tool import Tool
from agent.tools.calculator import Calculate
from agent.tools.clock import GetTime
from bot.store.chat_settings_values import ChatSettings
from bot.store.records import telegram_chat
from testkit.botkit import ADMIN, ALICE, BOB, GROUP, Glassbox
from testkit.dbkit import Target
from testkit.fakes.model import text_reply, tool_reply
from testkit.fakes.telegram import Message

NOON = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


@pytest.fixture
def gb_database(migrated_target: Target) -> Target:
    """These tests run on SQLite and on PostgreSQL."""
    return migrated_target


@pytest.fixture
def gb_tools() -> Sequence[Tool]:
    return [Calculate(), GetTime("Asia/Shanghai", clock=lambda: NOON)]


async def menu(gb: Glassbox, chat: int, user: int) -> Message:
    sent = gb.tg.send(chat, user, "/settings")
    await gb.tg.wait(lambda: bool(gb.replies_to(chat, sent)))
    return gb.replies_to(chat, sent)[0]


async def tap(gb: Glassbox, chat: int, user: int, message: Message, label: str) -> None:
    """Tap the button whose label starts with `label`; wait until the message changed."""
    before = message.text, message.buttons
    data = next(message.button_data(b) for b in message.buttons if b.startswith(label))
    gb.tg.tap(chat, user, message.message_id, data)
    await gb.tg.wait(lambda: (message.text, message.buttons) != before)


def offered(body: dict[str, object]) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools", [])]  # type: ignore[attr-defined]


async def test_a_student_sees_the_settings_read_only_and_cannot_tap(gb: Glassbox) -> None:
    shown = await menu(gb, GROUP, ALICE)
    assert "This chat's settings" in shown.text and "🕒 Time zone: Asia/Shanghai" in shown.text
    assert "Only an admin can change them." in shown.text and shown.buttons == []

    admin_menu = await menu(gb, GROUP, ADMIN)
    assert admin_menu.buttons[0].startswith("🌐 Language")
    gb.tg.tap(GROUP, ALICE, admin_menu.message_id, admin_menu.button_data(admin_menu.buttons[3]))
    await gb.tg.wait(lambda: "answerCallbackQuery" in gb.tg.methods())
    refusal = next(c for c in gb.tg.calls if c.method == "answerCallbackQuery")
    assert refusal.params["text"] == "Only an admin of this chat can change its settings."
    defaults = ChatSettings.defaults(gb.services.settings)
    assert await gb.services.store.chats.get(telegram_chat(GROUP), defaults) == defaults


async def test_a_tool_turned_off_is_not_offered_on_the_next_run(gb: Glassbox) -> None:
    shown = await menu(gb, GROUP, ADMIN)
    await tap(gb, GROUP, ADMIN, shown, "🧰 Tools")
    assert "✅ calculate" in shown.buttons and "◀ Back" in shown.buttons
    await tap(gb, GROUP, ADMIN, shown, "✅ calculate")
    assert "✅ Changed 🧰 Tools: calculate, get_time" in shown.text
    assert "→ get_time" in shown.text and "⬜ calculate" in shown.buttons

    gb.model.push(text_reply("No calculator today."))
    asked = gb.tg.send(GROUP, BOB, "/ask 2+2")
    await gb.answer_to(GROUP, asked)
    assert offered(gb.model.bodies[0]) == ["get_time"]


async def test_the_time_zone_changes_get_time_and_history(gb: Glassbox) -> None:
    shown = await menu(gb, GROUP, ADMIN)
    await tap(gb, GROUP, ADMIN, shown, "🕒 Time zone")
    await tap(gb, GROUP, ADMIN, shown, "Europe/London")
    assert "✅ Changed 🕒 Time zone: Asia/Shanghai → Europe/London" in shown.text
    assert "• Europe/London" in shown.buttons

    gb.model.push(tool_reply(("get_time", {})), text_reply("Noon in London."))
    asked = gb.tg.send(GROUP, ALICE, "/ask what time is it?")
    final = await gb.answer_to(GROUP, asked)
    assert "Europe/London: Monday, 2026-03-02 12:00 (UTC+00:00)" in final.text
    listed = gb.tg.send(GROUP, ALICE, "/history")
    await gb.tg.wait(lambda: bool(gb.replies_to(GROUP, listed)))
    assert "Europe/London" in gb.replies_to(GROUP, listed)[0].text

    typed = gb.tg.send(GROUP, ADMIN, "/settings timezone America/Sao_Paulo")
    await gb.tg.wait(lambda: bool(gb.replies_to(GROUP, typed)))
    assert "Europe/London → America/Sao_Paulo" in gb.replies_to(GROUP, typed)[0].text


async def test_language_mode_and_step_by_default_apply_to_the_next_run(gb: Glassbox) -> None:
    shown = await menu(gb, ALICE, ALICE)  # in a private chat, its user is the admin
    await tap(gb, ALICE, ALICE, shown, "🌐 Language")
    assert "✅ 已修改 🌐 语言：自动（每人的 Telegram 语言） → 中文" in shown.text
    await tap(gb, ALICE, ALICE, shown, "🧠")
    await tap(gb, ALICE, ALICE, shown, "🧠")
    assert "🧠 调用方式：文本 ReAct" in shown.text
    await tap(gb, ALICE, ALICE, shown, "⏸")
    assert "⏸ 默认逐步确认：开" in shown.text

    gb.model.push(text_reply("Thought: I should add.\nAction: calculate[2+2]"),
                  text_reply("Final Answer: 4"))
    asked = gb.tg.send(ALICE, ALICE, "what is 2+2")
    await gb.tg.wait(lambda: bool(gb.replies_to(ALICE, asked))
                     and "▶ 执行" in gb.replies_to(ALICE, asked)[0].buttons)
    live = gb.replies_to(ALICE, asked)[0]
    assert "tools" not in gb.model.bodies[0]  # text ReAct: no function calling
    gb.tg.tap(ALICE, ALICE, live.message_id, live.button_data("▶ 执行"))
    final = await gb.answer_to(ALICE, asked)
    assert "第 1 轮" in final.text and "Alice 确认执行" in final.text and "4" in final.text


async def test_settings_stored_under_earlier_names_still_apply(gb: Glassbox) -> None:
    """A row an earlier Glassbox wrote ({"step": …, "notes": …}) reads as the walkthrough
    and the remarks; the next change writes it again under the names of now."""
    db = gb.services.store.db
    await db.execute("INSERT INTO chat_settings (conversation_kind, chat_id, settings,"
                     " updated_at, updated_by) VALUES (?, ?, ?, ?, ?)",
                     ("telegram", GROUP, '{"step": true, "notes": false}', NOON.isoformat(),
                      ADMIN))
    shown = await menu(gb, GROUP, ADMIN)
    assert "⏸ Step mode by default: on" in shown.text
    assert "📝 Glassbox's notes when a model gives no reasoning: off" in shown.text
    await tap(gb, GROUP, ADMIN, shown, "⏸")
    assert "✅ Changed ⏸ Step mode by default: on → off" in shown.text
    rows = await db.fetch("SELECT settings FROM chat_settings WHERE chat_id = ?", (GROUP,))
    assert json.loads(rows[0][0]) == {"remarks": False}


async def test_glassbox_notes_can_be_hidden_when_a_model_gives_no_reasoning(
        gb: Glassbox) -> None:
    gb.model.push(tool_reply(("calculate", {"expression": "2+2"})), text_reply("4."))
    first = gb.tg.send(GROUP, BOB, "/ask 2+2")
    assert "📝 由 Glassbox 补写：模型没有写出思考过程" in (await gb.answer_to(GROUP, first)).text

    shown = await menu(gb, GROUP, ADMIN)
    await tap(gb, GROUP, ADMIN, shown, "📝")
    assert "✅ Changed 📝 Glassbox's notes when a model gives no reasoning: on → off" in shown.text
    gb.model.push(tool_reply(("calculate", {"expression": "2+2"})), text_reply("4."))
    second = gb.tg.send(GROUP, BOB, "/ask 2+2 again")
    final = await gb.answer_to(GROUP, second)
    assert "补写" not in final.text and "思考" not in final.text
    assert "calculate(expression=" in final.text and "4." in final.text

    # Off hides them wherever the chat sees a run again, the run before the change too.
    for n in (1, 2):
        shown_again = gb.tg.send(GROUP, BOB, f"/show {n}")
        await gb.tg.wait(lambda m=shown_again: bool(gb.replies_to(GROUP, m)))
        replayed = "\n".join(m.text for m in gb.replies_to(GROUP, shown_again))
        assert "calculate(expression=" in replayed and "补写" not in replayed
        exported = gb.tg.send(GROUP, BOB, f"/export {n}")
        await gb.tg.wait(lambda m=exported: bool(gb.replies_to(GROUP, m)))
        document = gb.replies_to(GROUP, exported)[0].document
        assert document is not None
        page = document.content.decode("utf-8")
        assert "calculate(expression=" in page
        assert "补写" not in page and "模型没有写出思考过程" not in page


async def test_a_chat_language_decides_the_bots_words_whoever_asks(gb: Glassbox) -> None:
    """Set to 中文, a group hears Chinese from /help, /history and /show, as from its runs,
    even from a student whose Telegram speaks English."""
    shown = await menu(gb, GROUP, ADMIN)
    await tap(gb, GROUP, ADMIN, shown, "🌐 Language")
    assert "→ 中文" in shown.text

    async def reply(command: str) -> str:
        sent = gb.tg.send(GROUP, ALICE, command)  # Alice's Telegram speaks English
        await gb.tg.wait(lambda: bool(gb.replies_to(GROUP, sent)))
        return gb.replies_to(GROUP, sent)[0].text

    assert "会把它的思考过程一步步摆在你眼前" in await reply("/help")
    assert "这里还没有记录" in await reply("/history")
    gb.model.push(tool_reply(("calculate", {"expression": "2+2"}), content="Add them."),
                  text_reply("4."))
    asked = gb.tg.send(GROUP, ALICE, "/ask what is 2+2")
    assert "第 1 轮" in (await gb.answer_to(GROUP, asked)).text
    listed = await reply("/history")
    assert "📜 记录" in listed and "what is 2+2" in listed
    assert "第 1 轮" in await reply("/show 1")

    examples = gb.tg.send(GROUP, ALICE, "/examples")
    await gb.tg.wait(lambda: bool(gb.replies_to(GROUP, examples)))
    offered = gb.replies_to(GROUP, examples)[0]
    assert "🕒 伦敦现在几点" in offered.buttons
    gb.model.push(text_reply("伦敦现在是中午。"))
    gb.tg.tap(GROUP, ALICE, offered.message_id, offered.button_data("🕒 伦敦现在几点"))
    await gb.answer_to(GROUP, offered.message_id)
    assert gb.model.bodies[-1]["messages"][-1]["content"] == "伦敦现在几点了？"
