"""Many chats at once against the fake Bot API with its flood limits: Telegram's global
send rate goes to final states first, bunched sends draw no 429, and a busy group gets fewer
drafts rather than later answers."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from telegram import Bot

from bot.telegram.delivery.live_message import LiveMessage
from bot.telegram.delivery.pacer import Limits, Pacer
from bot.view.buttons import Button
from testkit.botkit import ALICE, GROUP, people, running
from testkit.botkit import SCALE as BOT_SCALE
from testkit.fakes.model import DashScope, FakeModel, sse
from testkit.fakes.server import Reply
from testkit.fakes.telegram import LIMITED, TOKEN, FakeTelegram

SCALE = 0.05
STOP = ((Button("⏹ Stop", "stop:1"),),)
USERS = 3000


@pytest.fixture
def tg() -> Iterator[FakeTelegram]:
    with FakeTelegram(scale=SCALE) as fake:
        fake.group(GROUP)
        yield fake


@pytest.fixture
async def bot(tg: FakeTelegram) -> AsyncIterator[Bot]:
    async with Bot(TOKEN, base_url=tg.base_url) as b:
        yield b


def messages_sent(tg: FakeTelegram, chat_id: int | None = None) -> list[tuple[int, str]]:
    """(chat, text) of each accepted message call, in the order Telegram took them."""
    with tg.lock:
        return [(int(c.params["chat_id"]), c.params.get("text", "")) for c in tg.calls
                if c.method in LIMITED and c.ok
                and (chat_id is None or int(c.params["chat_id"]) == chat_id)]


async def test_a_final_state_goes_before_other_chats_drafts(tg: FakeTelegram,
                                                            bot: Bot) -> None:
    """Twelve runs wait for the global send rate with their first drafts; a run that ends
    meanwhile is delivered next, not twelfth."""
    pacer = Pacer(replace(Limits(), global_per_window=1).scaled(SCALE))
    chats = [tg.user(USERS + n) for n in range(13)]
    drafts = [LiveMessage(bot, pacer, chat, None, button=STOP) for chat in chats[:12]]
    for n, live in enumerate(drafts):
        live.show([f"draft {n}"])
    await asyncio.sleep(0.01)  # they all wait for their place now
    ender = LiveMessage(bot, pacer, chats[12], None, button=STOP)
    await ender.finish(["the answer"])

    order = [text for _, text in messages_sent(tg)]
    assert order.index("the answer") <= 2  # one draft held the place, one may be in flight
    await asyncio.gather(*(live.finish([f"final {n}"]) for n, live in enumerate(drafts)))
    assert tg.too_many == 0


async def test_a_call_arriving_when_the_window_is_full_goes_once_it_slides(
        tg: FakeTelegram, bot: Bot) -> None:
    """The window is full of calls that have ended, none is in flight and no one waits: the
    next call still goes when the oldest leaves the window (it used to wait for a call to
    end that never came, and every later run waited behind it)."""
    pacer = Pacer(replace(Limits().scaled(SCALE), global_per_window=2, global_window_s=0.5))
    chats = [tg.user(USERS + n) for n in range(3)]
    for n, chat in enumerate(chats[:2]):
        await LiveMessage(bot, pacer, chat, None, button=STOP).finish([f"answer {n}"])
    late = LiveMessage(bot, pacer, chats[2], None, button=STOP)
    await asyncio.wait_for(late.finish(["answer 2"]), 5)
    assert [m.text for m in tg.bot_messages(chats[2])] == ["answer 2"]


async def test_three_hundred_chats_ending_at_once_draw_no_429(tg: FakeTelegram,
                                                              bot: Bot) -> None:
    """Telegram counts a message when it arrives; bunched arrivals never exceed its 30 a
    second, because a call holds its place until a window after it ended."""
    pacer = Pacer(Limits().scaled(SCALE))
    chats = [tg.user(USERS + n) for n in range(300)]
    lives = [LiveMessage(bot, pacer, chat, None, button=STOP) for chat in chats]
    ids = await asyncio.gather(*(live.finish([f"answer {n}"]) for n, live in enumerate(lives)))

    assert all(len(one) == 1 for one in ids)
    assert tg.too_many == 0
    assert sorted(text for _, text in messages_sent(tg)) == sorted(f"answer {n}"
                                                                   for n in range(300))


async def test_a_busy_group_gets_fewer_drafts_not_later_answers(tg: FakeTelegram,
                                                                bot: Bot) -> None:
    """Thirty runs in one group keep changing: a class asking together, so no first
    message or draft goes there at all and each answer costs the group one message."""
    pacer = Pacer(Limits().scaled(SCALE))
    lives = [LiveMessage(bot, pacer, GROUP, None, button=STOP) for _ in range(30)]
    for step in range(40):  # 0.8 s of changes: old pacing sent a draft a turn
        for n, live in enumerate(lives):
            live.show([f"run {n} step {step}"])
        await asyncio.sleep(0.02)
    await asyncio.gather(*(live.finish([f"answer {n}"]) for n, live in enumerate(lives)))

    shown = [m.text for m in tg.bot_messages(GROUP)]
    assert sorted(shown) == sorted(f"answer {n}" for n in range(30))
    sent = messages_sent(tg, GROUP)
    assert sorted(text for _, text in sent) == sorted(f"answer {n}" for n in range(30))
    assert tg.too_many == 0


async def test_a_lone_run_in_a_group_shows_its_first_message_after_a_short_wait(
        tg: FakeTelegram, bot: Bot) -> None:
    """A group's first message waits `group_first_delay_s` (a class would be arriving
    meanwhile), then goes without any further change; two runs at once still show theirs."""
    limits = Limits().scaled(SCALE)
    pacer = Pacer(limits)
    lives = [LiveMessage(bot, pacer, GROUP, None, button=STOP) for _ in range(2)]
    opened = time.monotonic()
    for n, live in enumerate(lives):
        live.show([f"run {n} working"])  # once: nothing changes after
    await asyncio.wait_for(asyncio.gather(*(live.first_sent() for live in lives)), 10)

    with tg.lock:
        sends = [c for c in tg.calls if c.method == "sendMessage"]
    assert sorted(c.params["text"] for c in sends) == ["run 0 working", "run 1 working"]
    assert min(c.at for c in sends) - opened >= limits.group_first_delay_s
    await asyncio.gather(*(live.finish([f"answer {n}"]) for n, live in enumerate(lives)))
    assert sorted(m.text for m in tg.bot_messages(GROUP)) == ["answer 0", "answer 1"]
    assert tg.too_many == 0


async def test_walkthrough_choice_shows_in_a_busy_group(tg: FakeTelegram, bot: Bot) -> None:
    """Buttons a run waits on the asker for are not a draft: in a group where drafts are
    off, they still reach the screen."""
    pacer = Pacer(Limits().scaled(SCALE))
    lives = [LiveMessage(bot, pacer, GROUP, None, button=STOP) for _ in range(3)]
    for n, live in enumerate(lives):
        live.show([f"run {n} working"])
    lives[0].show(["run 0 proposes get_weather(Berlin)"])
    lives[0].set_button(((Button("▶️ Run it", "go:1"), Button("⏭ Skip", "skip:1")),))
    await tg.wait(lambda: any(m.buttons == ["▶️ Run it", "⏭ Skip"]
                              for m in tg.bot_messages(GROUP)), timeout=10)
    assert [m.text for m in tg.bot_messages(GROUP)] == ["run 0 proposes get_weather(Berlin)"]
    await asyncio.gather(*(live.finish([f"answer {n}"]) for n, live in enumerate(lives)))
    assert tg.too_many == 0


async def test_first_sent_wakes_when_page_one_is_on_screen(tg: FakeTelegram,
                                                           bot: Bot) -> None:
    pacer = Pacer(Limits().scaled(SCALE))
    live = LiveMessage(bot, pacer, tg.user(USERS), None, button=STOP)
    waiting = asyncio.create_task(live.first_sent())
    await asyncio.sleep(0.05)
    assert not waiting.done()  # nothing shown yet: it waits (on an event, not a poll)
    live.show(["working"])
    first = await asyncio.wait_for(waiting, 5)
    assert first == tg.bot_messages(USERS)[0].message_id
    await live.finish(["done"])


def slow_echo(body: dict[str, Any]) -> Reply:
    """Answers each question by name, taking about half a second."""
    question = body["messages"][-1]["content"]
    return sse(DashScope().text(f"Answer to {question}.", pieces=5), delay=0.1)


async def test_past_the_limit_questions_queue_fairly_across_chats(tmp_path: Path) -> None:
    """One run at a time: a class's three questions and one private question. The private
    chat's question goes after the class's second, not after all of them, and its message
    says how many are ahead until it starts."""
    with FakeTelegram(scale=BOT_SCALE) as tg, FakeModel(default=slow_echo) as model:
        people(tg)
        students = [tg.user(4000 + n, f"S{n}") for n in range(3)]
        async with running(tg, model, tmp_path / "q.sqlite3", max_concurrent_runs=1) as gb:
            asked = [(GROUP, tg.send(GROUP, s, f"/ask class question {n}"))
                     for n, s in enumerate(students)]
            await tg.wait(lambda: len(model.served) == 1)  # the first one runs
            await asyncio.sleep(0.1)  # the other two are queued by now
            asked.append((ALICE, tg.send(ALICE, ALICE, "private question")))
            finals = [await gb.answer_to(chat, message, timeout=30) for chat, message in asked]

    order = [body_question(s.body) for s in model.served]
    assert order == ["class question 0", "class question 1", "private question",
                     "class question 2"]
    for final, question in zip(finals, [*(f"class question {n}" for n in range(3)),
                                        "private question"], strict=True):
        assert f"Answer to {question}." in final.text
    [private] = tg.bot_messages(ALICE)
    assert private.versions[0] == ("⏳ Queued: 1 ahead of you. Your question starts when "
                                   "there is room.")
    assert tg.too_many == 0


def body_question(body: dict[str, Any]) -> str:
    return next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")

