"""The live message and the per-chat pacer against the fake Bot API (pages as plain lists)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import pytest
from telegram import Bot

from bot.telegram.delivery.live_message import LiveMessage
from bot.telegram.delivery.outbox import Outbox
from bot.telegram.delivery.pacer import Limits, Pacer
from bot.view.buttons import Button
from testkit.fakes.telegram import TOKEN, FakeTelegram
from testkit.fakes.telegram_faults import FaultyTelegram

SCALE = 0.05
STOP = ((Button("⏹ Stop", "stop:1"),),)
GROUP, ALICE = -1001234567890, 123456789


@pytest.fixture
def tg() -> Iterator[FakeTelegram]:
    with FakeTelegram(scale=SCALE) as fake:
        fake.user(ALICE)
        fake.group(GROUP)
        yield fake


@pytest.fixture
async def bot(tg: FakeTelegram) -> AsyncIterator[Bot]:
    async with Bot(TOKEN, base_url=tg.base_url) as b:
        yield b


@pytest.fixture
def pacer() -> Pacer:
    return Pacer(Limits().scaled(SCALE))


def live(bot: Bot, pacer: Pacer, chat: int = ALICE, reply_to: int | None = None) -> LiveMessage:
    return LiveMessage(bot, pacer, chat, reply_to, button=STOP)


async def test_edits_are_coalesced_and_the_final_state_lands(tg: FakeTelegram, bot: Bot,
                                                             pacer: Pacer) -> None:
    asked = tg.send(ALICE, ALICE, "hello")
    msg = live(bot, pacer, reply_to=asked)
    for n in range(60):
        msg.show([f"<b>Round 1</b> step {n}"])
        await asyncio.sleep(0.002)  # paces the run on purpose: 60 states, 2 ms apart
    ids = await msg.finish(["<b>Round 1</b> ✅ <i>done</i> &amp; dusted"])

    [shown] = tg.bot_messages(ALICE)
    assert ids == [shown.message_id]
    assert shown.reply_to == asked
    assert shown.text == "Round 1 ✅ done & dusted"
    assert shown.buttons == []
    assert shown.versions[0].startswith("Round 1 step")
    assert len(shown.versions) < 20  # newest state wins, not one edit per state
    assert tg.methods(ALICE)[0] == "sendMessage"
    assert tg.too_many == 0


async def test_the_stop_button_is_under_the_running_message(tg: FakeTelegram, bot: Bot,
                                                            pacer: Pacer) -> None:
    """It comes with the edit after the send: a send whose reply is lost leaves no ⏹."""
    msg = live(bot, pacer)
    msg.show(["working"])
    await msg.first_sent()
    [shown] = tg.bot_messages(ALICE)
    await tg.wait(lambda: shown.buttons == ["⏹ Stop"])
    assert tg.methods(ALICE) == ["sendMessage", "editMessageText"]
    assert "reply_markup" not in tg.calls[-2].params
    await msg.finish(["done"])
    assert shown.buttons == []


async def test_a_long_chain_continues_in_a_reply_to_the_first_message(
        tg: FakeTelegram, bot: Bot, pacer: Pacer) -> None:
    msg = live(bot, pacer)
    msg.show(["page one, growing"])
    await msg.first_sent()
    msg.show(["page one, full", "page two"])
    await tg.wait(lambda: [m.text for m in tg.bot_messages(ALICE)]
                  == ["page one, full", "page two"])  # page two came while running
    ids = await msg.finish(["page one, full", "page two", "page three with the answer"])

    first, second, third = tg.bot_messages(ALICE)
    assert ids == [first.message_id, second.message_id, third.message_id]
    assert [first.text, second.text, third.text] == [
        "page one, full", "page two", "page three with the answer"]
    assert second.reply_to == first.message_id == third.reply_to
    assert [m.buttons for m in (first, second, third)] == [[], [], []]


async def test_unparsable_entities_are_sent_again_as_plain_text(tg: FakeTelegram, bot: Bot,
                                                               pacer: Pacer) -> None:
    tg.fail("sendMessage", "error_400_cant_parse_entities.json")
    msg = live(bot, pacer)
    await msg.finish(["<b>bold</b> &lt;tag&gt;"])
    [shown] = tg.bot_messages(ALICE)
    assert shown.text == "bold <tag>"
    assert shown.parse_mode == ""


async def test_not_modified_is_ignored_and_a_deleted_message_is_sent_again(
        tg: FakeTelegram, bot: Bot, pacer: Pacer) -> None:
    msg = live(bot, pacer)
    msg.show(["one"])
    await msg.first_sent()
    tg.fail("editMessageText", "error_400_message_not_modified.json")
    msg.show(["two"])
    await tg.wait(lambda: "editMessageText" in tg.methods(ALICE))  # "two" tried: not modified
    tg.fail("editMessageText", "error_400_message_to_edit_not_found.json")
    await msg.finish(["three"])
    assert [m.text for m in tg.bot_messages(ALICE)] == ["one", "three"]


async def test_flood_control_waits_and_still_delivers_the_final_state(
        tg: FakeTelegram, bot: Bot, pacer: Pacer) -> None:
    msg = live(bot, pacer)
    msg.show(["one"])
    await msg.first_sent()
    tg.fail("editMessageText", {"ok": False, "error_code": 429, "parameters": {"retry_after": 1},
                                "description": "Too Many Requests: retry after 1"})
    await msg.finish(["final"])
    assert tg.bot_messages(ALICE)[0].text == "final"
    assert tg.methods(ALICE).count("editMessageText") == 2


async def test_network_errors_are_retried(tg: FakeTelegram, bot: Bot, pacer: Pacer) -> None:
    tg.fail("sendMessage", {"ok": False, "error_code": 502, "description": "Bad Gateway"}, 2)
    await live(bot, pacer).finish(["made it"])
    assert [m.text for m in tg.bot_messages(ALICE)] == ["made it"]
    assert tg.methods(ALICE) == ["sendMessage"] * 3


async def test_a_final_send_or_a_document_whose_reply_is_lost_is_not_sent_again(
        pacer: Pacer) -> None:
    """Telegram showed them but the replies were lost: each counts as delivered, once."""
    with FaultyTelegram(scale=SCALE) as tg:
        tg.user(ALICE)
        tg.break_next("sendMessage", "reset-after")
        tg.break_next("sendDocument", "reset-after")
        async with Bot(TOKEN, base_url=tg.base_url) as bot:
            outbox = Outbox(bot, pacer)
            assert await outbox.say(ALICE, None, "said once") == []  # its id is unknown
            await outbox.send_document(ALICE, None, b"<html></html>", "run.html", "sent once")
        assert [m.text for m in tg.bot_messages(ALICE)] == ["said once", "sent once"]
        assert tg.methods(ALICE) == ["sendMessage", "sendDocument"]
        assert tg.broken == ["sendMessage", "sendDocument"]


async def test_a_blocked_bot_gives_up_quietly(tg: FakeTelegram, bot: Bot, pacer: Pacer) -> None:
    tg.fail("sendMessage", "error_403_bot_blocked_by_user.json")
    msg = live(bot, pacer)
    assert await msg.finish(["nobody reads this"]) == []
    assert msg.gone


async def test_a_chat_telegram_does_not_know_is_given_up_after_one_try(
        tg: FakeTelegram, bot: Bot, pacer: Pacer) -> None:
    """A 400 "chat not found" is no page's fault: nothing more is sent there, and the run
    hears the chat is gone (a page refused would be tried again when it changes)."""
    gone: list[bool] = []
    msg = LiveMessage(bot, pacer, ALICE, None, button=STOP, on_gone=lambda: gone.append(True))
    msg.show(["a draft"])
    await msg.first_sent()
    tg.fail("editMessageText", {"ok": False, "error_code": 400,
                                "description": "Bad Request: chat not found"})
    await msg.finish(["nobody reads this", "nor this"])
    assert msg.gone and gone == [True]
    assert tg.methods(ALICE) == ["sendMessage", "editMessageText"]
    assert [m.text for m in tg.bot_messages(ALICE)] == ["a draft"]


async def test_live_messages_in_one_group_share_its_budget(tg: FakeTelegram, bot: Bot,
                                                           pacer: Pacer) -> None:
    messages = [live(bot, pacer, chat=GROUP) for _ in range(4)]

    async def run(n: int, msg: LiveMessage) -> None:
        for step in range(8):
            msg.show([f"run {n} step {step}"])
            await asyncio.sleep(0.01)  # paces the runs on purpose: a step every 10 ms
        await msg.finish([f"run {n} answer"])

    await asyncio.gather(*(run(n, m) for n, m in enumerate(messages)))
    assert sorted(m.text for m in tg.bot_messages(GROUP)) == [f"run {n} answer" for n in range(4)]
    assert tg.too_many == 0


async def test_the_fake_refuses_what_telegram_refuses() -> None:
    """On Telegram's real clock, so a busy machine cannot make the second send 'late'."""
    from telegram.error import BadRequest, RetryAfter
    with FakeTelegram(scale=1.0) as tg:
        tg.user(ALICE)
        tg.group(GROUP)
        async with Bot(TOKEN, base_url=tg.base_url) as bot:
            await bot.send_message(GROUP, "one")
            await bot.send_message(GROUP, "two, in Telegram's short burst")
            with pytest.raises(RetryAfter):
                await bot.send_message(GROUP, "three, too soon")
            with pytest.raises(BadRequest, match="parse entities"):
                await bot.send_message(ALICE, "<b>unclosed", parse_mode="HTML")
            with pytest.raises(BadRequest, match="too long"):
                await bot.send_message(ALICE, "😀" * 2049)
        assert tg.too_many == 1


async def test_a_rendering_function_is_called_only_when_a_turn_comes(
        tg: FakeTelegram, bot: Bot, pacer: Pacer) -> None:
    renders = 0
    state = {"step": 0}

    def render() -> list[str]:
        nonlocal renders
        renders += 1
        return [f"step {state['step']}"]

    msg = live(bot, pacer)
    for step in range(200):
        state["step"] = step
        msg.show(render)
        await asyncio.sleep(0.001)  # paces the run on purpose: 200 changes, 1 ms apart
    await msg.finish(["done"])
    edits = len([m for m in tg.methods(ALICE) if m in ("sendMessage", "editMessageText")])
    assert renders <= edits < 200
    assert tg.bot_messages(ALICE)[0].text == "done"


async def test_a_final_state_uses_telegrams_short_burst_and_drafts_do_not() -> None:
    """On a slow clock (a chat's interval is 10 s, so a loaded machine cannot make the
    draft's turn come meanwhile): a draft waits out the interval after the first message,
    but the final state goes at once (Telegram allows a short burst), with no 429, and
    replaces the draft that was waiting."""
    interval = 10.0
    with FakeTelegram(scale=interval) as tg:
        tg.user(ALICE)
        async with Bot(TOKEN, base_url=tg.base_url) as bot:
            msg = live(bot, Pacer(Limits().scaled(interval)))
            msg.show(["thinking"])
            await msg.first_sent()
            msg.show(["thinking harder"])  # a draft: it waits for the chat's next slot
            await asyncio.sleep(0.05)
            assert tg.methods(ALICE) == ["sendMessage"]
            await msg.finish(["the answer"])

        first, final = tg.calls[-2:]
        assert [first.method, final.method] == ["sendMessage", "editMessageText"]
        assert final.at - first.at < interval / 2  # it did not wait for the next slot
        [shown] = tg.bot_messages(ALICE)
        assert shown.versions == ["thinking", "the answer"]  # the waiting draft never went
        assert shown.buttons == []
        assert tg.too_many == 0


async def test_drafts_keep_to_one_a_second() -> None:
    """Only a final state bursts: a draft goes no sooner than the chat's interval after the
    call before it."""
    interval = 3.0
    with FakeTelegram(scale=interval) as tg:
        tg.user(ALICE)
        async with Bot(TOKEN, base_url=tg.base_url) as bot:
            msg = live(bot, Pacer(Limits().scaled(interval)))
            msg.show(["thinking"])
            await msg.first_sent()
            msg.show(["thinking harder"])
            await tg.wait(lambda: len(tg.methods(ALICE)) == 2, timeout=3 * interval)
            first, draft = tg.calls[-2:]
            assert draft.method == "editMessageText"
            assert draft.params["text"] == "thinking harder"
            assert draft.at - first.at >= interval * 0.9  # the fake's clock, not ours
            await msg.finish(["the answer"])
        assert tg.bot_messages(ALICE)[0].text == "the answer"
        assert tg.too_many == 0
