"""Every notice answered, tried as a newcomer would: the cooldown on notices collapses only
repeats of the same one (a sender who sends the same wrong thing again and again), never a
different notice nor the first of each command."""

from __future__ import annotations

from testkit.botkit import ALICE, BOB, GROUP, Glassbox
from tests.faults.kit import still_answers


async def _reply(gb: Glassbox, chat: int, sent: int) -> str:
    await gb.tg.wait(lambda: bool(gb.replies_to(chat, sent)))
    return gb.replies_to(chat, sent)[0].text


async def test_a_newcomer_gets_an_answer_to_each_first_command(gb: Glassbox) -> None:
    start = gb.tg.send(ALICE, ALICE, "/start")
    assert "/ask" in await _reply(gb, ALICE, start)
    help_ = gb.tg.send(ALICE, ALICE, "/help")
    assert "/ask" in await _reply(gb, ALICE, help_)

    empty = gb.tg.send(ALICE, ALICE, "/ask")
    assert "Please put a question after the command" in await _reply(gb, ALICE, empty)
    long = gb.tg.send(ALICE, ALICE, "/ask " + "why? " * 500)
    assert "characters long. Please keep it under" in await _reply(gb, ALICE, long)
    plan = gb.tg.send(ALICE, ALICE, "/plan")
    assert "/plan What is the weather" in await _reply(gb, ALICE, plan)

    # In a group too: a different notice is answered.
    gb.tg.send(GROUP, BOB, "/stop")
    await gb.tg.wait(lambda: len(gb.tg.bot_messages(GROUP)) == 1)
    empty = gb.tg.send(GROUP, BOB, "/ask")
    assert "/ask" in await _reply(gb, GROUP, empty)
    await still_answers(gb)


async def test_the_same_notice_again_is_collapsed(gb: Glassbox) -> None:
    first = gb.tg.send(GROUP, BOB, "/ask")
    await _reply(gb, GROUP, first)
    again = [gb.tg.send(GROUP, BOB, "/ask") for _ in range(5)]
    other = gb.tg.send(GROUP, BOB, "/help")  # a different one: answered
    await _reply(gb, GROUP, other)
    await gb.settled()
    assert all(not gb.replies_to(GROUP, sent) for sent in again)
    assert len(gb.tg.bot_messages(GROUP)) == 2
