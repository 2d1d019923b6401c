"""The group's send rate (20 a minute) under a flood of notices: a class that types wrong
commands, one student who sends /ask 60 times. A run's final state goes before every
waiting notice, and one sender gets at most one notice per cooldown."""

from __future__ import annotations

import time

import pytest

from testkit.botkit import ALICE, BOB, GROUP, SCALE, Glassbox
from testkit.fakes.model import DashScope, sse
from testkit.fakes.telegram import Message
from tests.faults.kit import still_answers

pytestmark = pytest.mark.usefixtures("no_crash")

COOLDOWN_S = 30 * SCALE
"""The bot's notice cooldown on the tests' clock (Limits.notice_cooldown_s, scaled)."""


def landed_after(gb: Glassbox, final: Message, asked: list[int]) -> list[Message]:
    """The bot's replies to `asked` that reached the chat after `final` took its final form."""
    return [m for m in gb.tg.bot_messages(GROUP)
            if m.reply_to in asked and m.changed_at > final.changed_at]


async def test_a_class_of_wrong_commands_never_holds_back_an_answer(gb: Glassbox) -> None:
    """60 students each send a bare /ask (each is owed one usage hint: three minutes of the
    group's send rate) while Alice's answer is coming. Her final state takes the first free
    slot; the hints wait."""
    students = [gb.tg.user(5000 + n, f"Student {n}", "en") for n in range(60)]
    gb.model.push(sse(DashScope().text("Alice's answer."), first_delay=1.0))
    asked = gb.tg.send(GROUP, ALICE, "/ask something slow")
    await gb.stop_button_on(GROUP, asked)
    hints = [gb.tg.send(GROUP, student, "/ask") for student in students]
    final = await gb.answer_to(GROUP, asked, timeout=30)
    assert "Alice's answer." in final.text
    await gb.tg.wait(lambda: all(gb.replies_to(GROUP, h) for h in hints), timeout=30)
    assert len(landed_after(gb, final, hints)) >= 15  # FIFO: 0, behind every hint
    assert gb.tg.too_many == 0


async def test_one_student_sending_ask_60_times_gets_one_notice_per_cooldown(
        gb: Glassbox) -> None:
    """Bob's question runs; he sends /ask 60 more times. He gets at most one "still working"
    a cooldown (it used to be 60, ahead of everyone's answers); Alice's answer, due while
    he spams, lands at once."""
    gb.model.push(sse(DashScope().text("Bob's answer."), first_delay=2.0),
                  sse(DashScope().text("Alice's answer."), first_delay=0.5))
    bobs = gb.tg.send(GROUP, BOB, "/ask slow one")
    await gb.stop_button_on(GROUP, bobs)
    alices = gb.tg.send(GROUP, ALICE, "/ask quick one")
    began = time.monotonic()
    spam = [gb.tg.send(GROUP, BOB, f"/ask again {n}") for n in range(60)]
    final = await gb.answer_to(GROUP, alices, timeout=30)
    assert "Alice's answer." in final.text
    assert final.changed_at - began < 0.5 + 3 * COOLDOWN_S
    await gb.answer_to(GROUP, bobs, timeout=30)
    spent = time.monotonic() - began
    notices = [m for m in gb.tg.bot_messages(GROUP) if m.reply_to in spam]
    assert notices and len(notices) <= 1 + spent / COOLDOWN_S
    assert len(notices) < 10
    assert notices[0].text.startswith("我还在回答你上一个问题")  # Bob writes in Chinese
    await still_answers(gb, GROUP, BOB)
