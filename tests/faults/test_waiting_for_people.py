"""A run that waits for people computes nothing: with MAX_CONCURRENT_RUNS=2, a /quiz whose
class is voting and a /step paused for a decision leave room for a third student's /ask,
answered at once (it waited for the votes' time to run out); both go on when the people
have decided. Then admission alone: a run back from its wait goes before new questions."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.runs.admission import Admission, Ticket
from bot.store.records import telegram_chat
from testkit.botkit import ALICE, BOB, GROUP
from testkit.class_asking import CAROL
from testkit.fakes.model import Reply, text_reply, tool_reply
from tests.faults.kit import glassbox
from tests.test_bot_quiz import voting
from tests.test_bot_step import paused

PEOPLE_S = 120
"""QUIZ_TIMEOUT_S and PAUSE_TIMEOUT_S: far longer than the test waits."""


def model(body: dict[str, Any]) -> Reply:
    messages = body["messages"]
    if messages[-1]["role"] == "tool":
        return text_reply("It is 6.")
    if "3+3" in str(messages[-1]["content"]):
        return tool_reply(("add", {"a": 3, "b": 3}))
    return text_reply("Here.")


async def test_a_vote_and_a_pause_leave_their_places_to_another_question(
        tmp_path: Path) -> None:
    async with glassbox(tmp_path, max_concurrent_runs=2, quiz_timeout_s=PEOPLE_S,
                        pause_timeout_s=PEOPLE_S) as gb:
        gb.model.default = model
        gb.tg.user(CAROL, "Carol", "en")
        quiz = gb.tg.send(GROUP, ALICE, "/quiz what is 2+2?")
        poll, voting_live = await voting(gb, quiz, 1)
        step = gb.tg.send(BOB, BOB, "/step what is 3+3?")
        pause = await paused(gb, BOB, step)

        asked = gb.tg.send(CAROL, CAROL, "/ask are you there?")
        answer = await gb.answer_to(CAROL, asked, timeout=10)
        assert "Here." in answer.text and "ahead" not in answer.text
        assert not poll.poll.closed
        assert gb.replies_to(BOB, step)[0].buttons == pause.buttons  # still paused

        gb.tg.tap(GROUP, ALICE, voting_live.message_id, voting_live.button_data("👁 Reveal"))
        gb.tg.tap(BOB, BOB, pause.message_id, pause.button_data("▶ Run"))
        assert "Here." in (await gb.answer_to(GROUP, quiz, timeout=10)).text
        assert "It is 6." in (await gb.answer_to(BOB, step, timeout=10)).text
        assert gb.services.runs.admission.running == 0


async def test_a_run_back_from_people_goes_before_new_questions() -> None:
    admission = Admission(1)
    a, b, c, d = (admission.ticket(telegram_chat(n)) for n in (1, 2, 3, 4))
    assert a.admitted and not b.admitted
    people = asyncio.Event()
    a_waits = asyncio.create_task(waits_for(a, people))
    await until(lambda: b.admitted)  # a's place is b's while a's class votes
    assert admission.running == 1 and not c.admitted
    people.set()
    await asyncio.sleep(0)
    assert not a_waits.done()  # back, but b has the place
    b.release()
    await a_waits
    assert a.holding and not c.admitted  # before c, which waited longer
    a.release()
    assert c.admitted

    # Stopped while its people decide: it ends without a place, and d keeps its own.
    c_waits = asyncio.create_task(waits_for(c, asyncio.Event()))
    await until(lambda: d.admitted)
    c_waits.cancel()
    await asyncio.gather(c_waits, return_exceptions=True)
    c.release()
    assert not c.holding and admission.running == 1  # d's

    # Stopped while it waits to come back: it leaves the line, and takes no place.
    e = admission.ticket(telegram_chat(5))
    people = asyncio.Event()
    d_waits = asyncio.create_task(waits_for(d, people))
    await until(lambda: e.admitted)
    people.set()
    await asyncio.sleep(0)
    d_waits.cancel()
    await asyncio.gather(d_waits, return_exceptions=True)
    d.release()
    e.release()
    assert not d.holding and admission.running == 0


async def waits_for(ticket: Ticket, people: asyncio.Event) -> None:
    async with ticket.away():
        await people.wait()


async def until(done: Callable[[], bool]) -> None:
    async with asyncio.timeout(2):
        while not done():
            await asyncio.sleep(0)
