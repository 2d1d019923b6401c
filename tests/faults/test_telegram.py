"""Telegram misbehaving: flood control again and again, 5xx, resets, timeouts, a send whose
reply is lost, a connection refused, a deleted message, being kicked. Every run still ends
in a visible final state (or, kicked, quietly and stored), and the next question is
answered."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from telegram.warnings import PTBDeprecationWarning

from testkit.bot_process import bot_process
from testkit.botkit import ALICE, GROUP, Glassbox, people
from testkit.fakes.model import DashScope, FakeModel, sse, text_reply, tool_reply
from testkit.fakes.server import Reply
from testkit.fakes.telegram_faults import FaultyTelegram
from tests.faults.kit import faulty, runs_of, still_answers


def api_error(code: int, description: str, **parameters: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"ok": False, "error_code": code, "description": description}
    if parameters:
        body["parameters"] = parameters
    return body


def two_rounds(answer: str = "2 + 2 = 4") -> tuple[Reply, Reply]:
    """A tool round, then the answer a little later (so the message is edited)."""
    return (tool_reply(("add", {"a": 2, "b": 2})),
            sse(DashScope().text(answer), first_delay=0.2))


async def test_429_three_times_in_a_row_then_the_final_state_lands(gb: Glassbox) -> None:
    gb.model.push(*two_rounds())
    gb.tg.fail("editMessageText", api_error(429, "Too Many Requests: retry after 1",
                                            retry_after=1), times=3)
    asked = gb.tg.send(ALICE, ALICE, "What is 2+2?")
    final = await gb.answer_to(ALICE, asked, timeout=15)
    assert "2 + 2 = 4" in final.text and final.buttons == []
    assert gb.tg.too_many >= 3
    await still_answers(gb)


async def test_a_429_raises_no_deprecation_warning(gb: Glassbox,
                                                   recwarn: pytest.WarningsRecorder) -> None:
    """PTB warned on every 429 that `retry_after` becomes a timedelta: the bot opts in now."""
    gb.model.push(*two_rounds())
    gb.tg.fail("editMessageText", api_error(429, "Too Many Requests: retry after 1",
                                            retry_after=1))
    asked = gb.tg.send(ALICE, ALICE, "What is 2+2?")
    final = await gb.answer_to(ALICE, asked, timeout=15)
    assert "2 + 2 = 4" in final.text and gb.tg.too_many >= 1
    assert [w.message for w in recwarn if issubclass(w.category, PTBDeprecationWarning)] == []


async def test_5xx_json_and_html_are_retried(gb: Glassbox) -> None:
    gb.model.push(*two_rounds())
    gb.tg.fail("sendMessage", api_error(502, "Bad Gateway"))
    faulty(gb).break_next("editMessageText", Reply(
        502, b"<html><body><h1>502 Bad Gateway</h1></body></html>",
        {"Content-Type": "text/html"}), times=2)
    asked = gb.tg.send(ALICE, ALICE, "What is 2+2?")
    final = await gb.answer_to(ALICE, asked)
    assert "2 + 2 = 4" in final.text
    assert len(gb.tg.bot_messages(ALICE)) == 1
    assert faulty(gb).broken == ["editMessageText"] * 2
    await still_answers(gb)


async def test_a_connection_reset_is_retried_without_a_duplicate(gb: Glassbox) -> None:
    gb.model.push(*two_rounds())
    faulty(gb).break_next("editMessageText", "reset", times=2)
    asked = gb.tg.send(ALICE, ALICE, "What is 2+2?")
    final = await gb.answer_to(ALICE, asked)
    assert "2 + 2 = 4" in final.text
    assert len(gb.tg.bot_messages(ALICE)) == 1
    assert faulty(gb).broken == ["editMessageText"] * 2
    await still_answers(gb)


@pytest.mark.parametrize("fault", ["reset-after", "stall-after", "reset"])
async def test_a_send_whose_reply_is_lost_is_not_sent_again(gb: Glassbox, fault: str) -> None:
    """Telegram may show page 1, but its reply (with the message's id) never arrives: with
    `-after` it did show it, with `reset` it did not, and the bot cannot tell which. It does
    not send that page again; the final state follows as a new message."""
    gb.model.push(*two_rounds())
    faulty(gb).break_next("sendMessage", fault)
    asked = gb.tg.send(ALICE, ALICE, "What is 2+2?")
    await gb.tg.wait(lambda: not gb.running(ALICE) and any(
        "2 + 2 = 4" in m.text for m in gb.replies_to(ALICE, asked)))
    *drafts, final = gb.replies_to(ALICE, asked)
    assert len(drafts) == (0 if fault == "reset" else 1)  # what Telegram showed stays
    assert all("2 + 2 = 4" not in m.text and m.versions == [m.text] for m in drafts)
    assert final.versions == [final.text]  # sent once, as the final state: not a retried copy
    assert [m.buttons for m in gb.tg.bot_messages(ALICE)] == [[]] * (len(drafts) + 1)
    sends = [c.params["text"] for c in gb.tg.calls if c.method == "sendMessage"]
    assert len(sends) == len(drafts) + 1 and len(set(sends)) == len(sends)
    [run] = await runs_of(gb, ALICE)
    assert run.status == "done" and run.message_ids == (final.message_id,)
    await still_answers(gb)


async def test_a_send_that_could_not_connect_is_retried_and_lands_once(
        gb: Glassbox, caplog: pytest.LogCaptureFixture) -> None:
    """A refused connection means the request was never written: the send is made again,
    and the live message goes on as usual (sent once, then edited)."""
    caplog.set_level(logging.WARNING, logger="bot.telegram.delivery.live_message")
    gb.model.push(*two_rounds())
    await gb.tg.wait(lambda: gb.tg.polls > 0)  # the long poll is open: updates still come
    faulty(gb).refuse()
    asked = gb.tg.send(ALICE, ALICE, "What is 2+2?")
    await gb.tg.wait(lambda: "sendMessage failed" in caplog.text)
    faulty(gb).admit()
    final = await gb.answer_to(ALICE, asked)
    assert "2 + 2 = 4" in final.text and len(final.versions) > 1
    assert len(gb.tg.bot_messages(ALICE)) == 1
    assert "surely not sent" in caplog.text and "reply was lost" not in caplog.text
    await still_answers(gb)


async def test_a_call_that_times_out_is_retried(gb: Glassbox) -> None:
    gb.model.push(*two_rounds())
    faulty(gb).break_next("editMessageText", "stall")
    asked = gb.tg.send(ALICE, ALICE, "What is 2+2?")
    final = await gb.answer_to(ALICE, asked)
    assert "2 + 2 = 4" in final.text
    assert faulty(gb).broken == ["editMessageText"]
    await still_answers(gb)


async def test_a_deleted_message_is_sent_again(gb: Glassbox) -> None:
    gb.model.push(tool_reply(("add", {"a": 2, "b": 2})),
                  sse(DashScope().text("2 + 2 = 4"), first_delay=0.5))
    asked = gb.tg.send(GROUP, ALICE, "/ask What is 2+2?")
    await gb.tg.wait(lambda: bool(gb.replies_to(GROUP, asked)))
    first = gb.replies_to(GROUP, asked)[0]
    faulty(gb).delete(GROUP, first.message_id)
    final = await gb.answer_to(GROUP, asked)
    assert final.message_id != first.message_id
    assert "2 + 2 = 4" in final.text and "Round 1" in final.text
    assert "message to edit not found" in " ".join(c.error for c in gb.tg.calls)
    record = await gb.services.store.by_message(GROUP, final.message_id)
    assert record is not None and record.status == "done"  # a reply to it follows up
    await still_answers(gb, GROUP)


async def test_kicked_from_the_group_the_run_ends_quietly_and_is_stored(gb: Glassbox) -> None:
    gb.model.push(tool_reply(("add", {"a": 2, "b": 2})),
                  sse(DashScope().text("nobody reads this"), first_delay=1.0))
    gb.tg.fail("sendMessage", "error_403_bot_kicked_from_supergroup.json")
    gb.tg.send(GROUP, ALICE, "/ask What is 2+2?")
    await gb.tg.wait(lambda: gb.tg.methods(GROUP).count("sendMessage") == 1)
    await gb.tg.wait(lambda: not gb.running(GROUP))
    assert gb.tg.bot_messages(GROUP) == []
    [run] = await runs_of(gb, GROUP)
    assert run.status == "cancelled"  # stopped: no one could see the rest
    kinds = [e.type for e in (await gb.services.store.events(run.id))["main"]]
    assert kinds[0] == "run_started" and kinds[-1] == "run_finished"
    assert len(gb.model.bodies) <= 2
    gb.model.script.clear()  # the answer if the run stopped before asking for it
    await still_answers(gb, GROUP)  # added back: it answers again


async def test_blocked_mid_answer_the_run_stops_and_is_stored(gb: Glassbox) -> None:
    gb.model.push(tool_reply(("add", {"a": 2, "b": 2})),
                  sse(DashScope().text("nobody reads this"), first_delay=0.5))
    asked = gb.tg.send(ALICE, ALICE, "What is 2+2?")
    await gb.tg.wait(lambda: bool(gb.replies_to(ALICE, asked)))
    gb.tg.fail("editMessageText", "error_403_bot_blocked_by_user.json", times=50)
    await gb.tg.wait(lambda: not gb.running(ALICE))
    gb.tg.errors["editMessageText"].clear()  # unblocked
    [run] = await runs_of(gb, ALICE)
    assert run.status in ("cancelled", "done")
    assert "nobody reads this" not in gb.replies_to(ALICE, asked)[0].text
    await still_answers(gb)


async def test_409_conflict_at_start_up_logs_a_clear_line_and_polling_goes_on(
        tmp_path: Path) -> None:
    with FaultyTelegram() as tg, FakeModel() as model:
        people(tg)
        tg.conflict(times=2)
        model.push(text_reply("Still here."))
        with bot_process(tg, model, tmp_path) as bot:
            # Its start (as long as any process test's wait for it on a loaded machine),
            # then the back-off after each 409 (python-telegram-bot's: 1 s, then 1.5 s).
            await tg.wait(lambda: bool(tg.broken), timeout=30)
            await tg.wait(lambda: tg.polls > 0 and len(tg.broken) == 2, timeout=10)
            asked = tg.send(ALICE, ALICE, "are you still there?")
            await tg.wait(lambda: any(m.reply_to == asked and "Still here." in m.text
                                      and not m.buttons for m in tg.bot_messages(ALICE)),
                          timeout=15)
            assert bot.terminate() == 0
            log = bot.output()
    assert log.count("409 Conflict: another bot instance is fetching updates") == 2
    assert "Traceback" not in log
