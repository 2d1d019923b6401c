"""The fake Bot API's polls, driven by python-telegram-bot's own Bot over HTTP: sendPoll answers
a Message with the poll, votes arrive as `poll_answer` updates, stopPoll closes it with the
final counts, all in the shapes of the wire samples (tests/wire/telegram/)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from telegram import Bot, Poll
from telegram.error import BadRequest

from testkit.fakes.server import wire
from testkit.fakes.telegram import TOKEN, FakeTelegram

GROUP, ALICE, BOB = -1001234567890, 123456789, 123456790
OPTIONS = ["calculate", "search_wikipedia", "get_weather", "answer directly"]


def shape(value: Any) -> Any:
    """The keys of every object, recursively (values differ between a sample and the fake)."""
    if isinstance(value, dict):
        return {key: shape(v) for key, v in value.items()}
    if isinstance(value, list):
        return [shape(v) for v in value[:1]]
    return type(value).__name__


async def test_a_quiz_is_sent_voted_on_and_stopped_as_the_bot_api_does() -> None:
    with FakeTelegram() as tg:
        tg.group(GROUP, "Math Club")
        tg.user(ALICE, "Alice")
        tg.user(BOB, "Bob", "zh-hans")
        async with Bot(TOKEN, base_url=tg.base_url) as bot:
            sent = await bot.send_poll(GROUP, "Which tool will it call next?", OPTIONS,
                                       is_anonymous=False, type=Poll.QUIZ,
                                       correct_option_ids=[0])
            assert sent.poll is not None and sent.poll.type == Poll.QUIZ
            assert [o.text for o in sent.poll.options] == OPTIONS
            assert sent.poll.correct_option_ids == (0,) and not sent.poll.is_closed
            sample = json.loads(wire("telegram/sendPoll_quiz_ok.json"))["result"]
            assert shape(json.loads(sent.to_json())["poll"]) == shape(sample["poll"])

            assert tg.vote(GROUP, ALICE, sent.message_id, [0])
            assert tg.vote(GROUP, BOB, sent.message_id, [2])
            assert not tg.vote(GROUP, BOB, sent.message_id, [0])  # no revoting in a quiz
            updates = await bot.get_updates(timeout=0)
            answers = [u.poll_answer for u in updates if u.poll_answer is not None]
            assert [(a.user.first_name, a.option_ids) for a in answers if a.user] == [
                ("Alice", (0,)), ("Bob", (2,))]
            assert all(a.poll_id == sent.poll.id for a in answers)
            sample = json.loads(wire("telegram/getUpdates_poll_answer.json"))["result"][0]
            got = json.loads(updates[0].to_json())
            assert set(got) == set(sample) and set(got["poll_answer"]) == set(
                sample["poll_answer"])

            stopped = await bot.stop_poll(GROUP, sent.message_id)
            with pytest.raises(BadRequest, match="Poll has already been closed"):
                await bot.stop_poll(GROUP, sent.message_id)
            assert stopped.is_closed and stopped.total_voter_count == 2
            assert [o.voter_count for o in stopped.options] == [1, 0, 1, 0]
            assert shape(json.loads(stopped.to_json())) == shape(
                json.loads(wire("telegram/stopPoll_ok.json"))["result"])
            assert not tg.vote(GROUP, ALICE, sent.message_id, [1])  # closed
            assert await bot.delete_message(GROUP, sent.message_id) is True  # the bot's own
            assert sent.message_id not in [m.message_id for m in tg.bot_messages(GROUP)]
            with pytest.raises(BadRequest, match="Message to delete not found"):
                await bot.delete_message(GROUP, sent.message_id)
            with pytest.raises(BadRequest, match="Message is not a poll"):
                text = await bot.send_message(GROUP, "hello")
                await bot.stop_poll(GROUP, text.message_id)


async def test_an_anonymous_poll_sends_no_poll_answer_and_bad_polls_are_refused() -> None:
    with FakeTelegram() as tg:
        tg.group(GROUP)
        tg.user(ALICE)
        async with Bot(TOKEN, base_url=tg.base_url) as bot:
            sent = await bot.send_poll(GROUP, "Which?", ["a", "b"])
            assert tg.vote(GROUP, ALICE, sent.message_id, [1])
            assert await bot.get_updates(timeout=0) == ()
            assert tg.poll(GROUP, sent.message_id).counts() == [0, 1]
            with pytest.raises(BadRequest, match="can't have more than 12 options"):
                await bot.send_poll(GROUP, "Too many?", [str(i) for i in range(13)])
            with pytest.raises(BadRequest, match="Poll question length must not exceed"):
                await bot.send_poll(GROUP, "x" * 301, ["a", "b"])


async def test_the_admins_are_listed_as_the_bot_api_lists_them() -> None:
    """getChatAdministrators (the board follows a group's admins): an array of ChatMember
    objects in the sample's shape, which python-telegram-bot reads as administrators."""
    sample = json.loads(wire("telegram/getChatAdministrators_ok.json"))["result"]
    admin = next(m for m in sample if m["status"] == "administrator")
    with FakeTelegram() as tg:
        tg.group(GROUP, "Math Club")
        tg.user(ALICE, "Alice")
        tg.user(BOB, "Bob", "zh-hans")
        tg.admin(GROUP, ALICE)
        async with Bot(TOKEN, base_url=tg.base_url) as bot:
            listed = await bot.get_chat_administrators(GROUP)
            assert [m.user.id for m in listed] == [ALICE] and listed[0].status == "administrator"
            with pytest.raises(BadRequest, match="Chat not found"):
                await bot.get_chat_administrators(-100999)
        raw = [m.to_dict() for m in listed]
    assert set(raw[0]) == set(admin)  # the administrator's fields, each of its rights
