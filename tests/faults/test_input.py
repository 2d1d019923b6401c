"""What a class types (or taps) to poke at the bot: empty and huge text, emoji, markup
that tries to break the message, right-to-left and invisible characters, captions,
edits, channels, anonymous admins, unknown commands, forged buttons. Each gets a sensible
reply or none; nothing is logged as an error (no handler raised, no page was refused);
and the next question is answered."""

from __future__ import annotations

import pytest

from testkit.botkit import ADMIN, ALICE, BOB, GROUP, Glassbox
from testkit.fakes.model import DashScope, sse, text_reply
from testkit.fakes.telegram_faults import ANONYMOUS_ADMIN
from tests.faults.kit import faulty, still_answers

pytestmark = pytest.mark.usefixtures("no_crash")


async def reply_to(gb: Glassbox, chat_id: int, asked: int) -> str:
    """The text of the bot's (final) reply to message `asked`."""
    return (await gb.answer_to(chat_id, asked)).text


async def nothing_for(gb: Glassbox, chat_id: int, asked: int) -> None:
    """The bot leaves message `asked` alone: the next question is answered, this one not."""
    await still_answers(gb, chat_id, ALICE if chat_id != BOB else BOB)
    assert gb.replies_to(chat_id, asked) == []


@pytest.mark.parametrize("typed", ["/ask", "/ask    ", "/ask \u200b\u200d\u2066\u202e"])
async def test_an_empty_question_gets_the_usage_line(gb: Glassbox, typed: str) -> None:
    asked = gb.tg.send(GROUP, ALICE, typed)
    assert "Please put a question after the command" in await reply_to(gb, GROUP, asked)
    assert gb.model.bodies == []
    await still_answers(gb, GROUP)


async def test_ten_thousand_characters_are_refused_politely(gb: Glassbox) -> None:
    asked = gb.tg.send(ALICE, ALICE, "why " * 2500)
    assert "10000 characters long" in await reply_to(gb, ALICE, asked)
    assert gb.model.bodies == []
    await still_answers(gb)


@pytest.mark.parametrize("question, answer", [
    ("🤔🌧️❓", "☔️ Take an umbrella 🌂"),
    ("<b>bold</b> </blockquote> &amp; <i>unclosed `tick", "<b>x</b> </blockquote> &amp; "
     "<i>open **bold *it `code ``` unclosed fence\n<a href='javascript:x'>y"),
    ("مرحبا \u202eevil\u202c zero\u200bwidth \u2066iso\u2069 שלום",
     "\u202eأهلا\u202c \u200f\u200e \ufeffboth ways"),
])
async def test_odd_text_is_shown_as_written(gb: Glassbox, question: str, answer: str) -> None:
    gb.model.push(text_reply(answer))
    asked = gb.tg.send(ALICE, ALICE, question)
    final = await gb.answer_to(ALICE, asked)
    assert question.split()[0] in final.text
    assert gb.model.bodies[0]["messages"][-1]["content"] == question
    for word in answer.replace("*", " ").replace("`", " ").split()[:3]:
        assert word in final.text
    await still_answers(gb)


async def test_a_sticker_or_a_gif_gets_one_line_and_photo_chatter_is_left_alone(
        gb: Glassbox) -> None:
    tg = faulty(gb)
    gif = {"file_id": "CgACAgIAAxkBAAIBs2d1Z2lmAAI", "file_unique_id": "AgADgif",
           "width": 320, "height": 240, "duration": 2, "mime_type": "video/mp4"}
    animated = tg.post(GROUP, tg.users[ALICE], animation=gif, document=gif,
                       caption="/ask what is in this picture?")
    assert "I can't read this kind of message (stickers, GIFs" in await reply_to(
        gb, GROUP, animated)
    sticker = {"file_id": "CAACAgIAAxkBAAIBsmd1c3RpY2tlcgAC", "file_unique_id": "AgADsticker",
               "type": "regular", "width": 512, "height": 512, "is_animated": True,
               "is_video": False, "emoji": "😀"}
    private = tg.post(BOB, tg.users[BOB], sticker=sticker)
    assert "这类消息（贴纸、GIF 动图、其他文件）我读不了" in await reply_to(gb, BOB, private)
    chatter = tg.photo(GROUP, BOB, caption="look at this")
    assert gb.model.bodies == []
    await nothing_for(gb, GROUP, chatter)


async def test_an_edited_question_is_not_run_again(gb: Glassbox) -> None:
    gb.model.push(text_reply("Paris."))
    asked = gb.tg.send(GROUP, ALICE, "/ask capital of France?")
    await gb.answer_to(GROUP, asked)
    faulty(gb).edit_by_user(GROUP, asked, "/ask capital of Italy?")
    private = gb.tg.send(ALICE, ALICE, "hello")
    faulty(gb).edit_by_user(ALICE, private, "hello again")
    gb.model.push(text_reply("Hi."))
    await gb.answer_to(ALICE, private)
    await still_answers(gb, GROUP)
    assert len(gb.model.bodies) == 3  # Paris, Hi, still here: no run for either edit
    assert len(gb.replies_to(GROUP, asked)) == 1


async def test_channel_posts_are_ignored(gb: Glassbox) -> None:
    faulty(gb).channel_post(-1009876543210, "/ask@GlassboxBot what is new?")
    faulty(gb).channel_post(-1009876543210, "Lecture notes are up")
    await still_answers(gb)
    assert gb.tg.bot_messages(-1009876543210) == []
    assert len(gb.model.bodies) == 1


async def test_an_automatic_forward_from_the_linked_channel_is_ignored(gb: Glassbox) -> None:
    channel = {"id": -1009876543210, "title": "Course news", "type": "channel"}
    telegram = {"id": 777000, "is_bot": False, "first_name": "Telegram"}
    forwarded = faulty(gb).post(GROUP, telegram, text="/ask new lecture is up",
                                sender_chat=channel, is_automatic_forward=True)
    await nothing_for(gb, GROUP, forwarded)


async def test_an_anonymous_admin_can_ask(gb: Glassbox) -> None:
    gb.model.push(text_reply("Yes, teacher."))
    asked = faulty(gb).post(GROUP, ANONYMOUS_ADMIN, text="/ask are you ready?",
                            sender_chat=gb.tg.chats[GROUP])
    assert "Yes, teacher." in await reply_to(gb, GROUP, asked)
    await still_answers(gb, GROUP)


async def test_unknown_commands(gb: Glassbox) -> None:
    private = gb.tg.send(ALICE, ALICE, "/frobnicate now")
    assert "I don't know that command" in await reply_to(gb, ALICE, private)
    named = gb.tg.send(GROUP, BOB, "/frobnicate@GlassboxBot")
    assert "我不认识这个命令" in await reply_to(gb, GROUP, named)
    others = [gb.tg.send(GROUP, ALICE, "/frobnicate"),
              gb.tg.send(GROUP, ALICE, "/frobnicate@OtherBot"),
              gb.tg.send(GROUP, ALICE, "/ask@OtherBot hi")]
    await still_answers(gb, GROUP)
    assert all(gb.replies_to(GROUP, m) == [] for m in others)
    assert len(gb.model.bodies) == 1


async def test_forged_callback_data(gb: Glassbox) -> None:
    tg = faulty(gb)
    gb.model.push(sse(DashScope().text("slow answer"), first_delay=0.8))
    asked = gb.tg.send(GROUP, ALICE, "/ask something slow")
    live = await gb.stop_button_on(GROUP, asked)
    key = int(live.button_data("⏹ Stop").split(":")[1])
    taps = [tg.tap(GROUP, BOB, live.message_id, data) for data in (
        f"stop:{key + 100}", f"stop:{key}", "stop:-1", "stop:" + "9" * 40,
        "ex:no-such-example", "💣" * 16, "hist:garbage", "")]
    await tg.wait(lambda: len(tg.answers_to_taps()) == 8)
    answered = {c.params["callback_query_id"]: c.params.get("text", "") for c in tg.calls
                if c.method == "answerCallbackQuery"}  # taps are handled concurrently
    answers = [answered[query] for query in taps]
    assert answers[0] == "这个问题已经结束了。"  # Bob's Telegram is in Chinese
    assert answers[1] == "只有提问的人或管理员可以停止它。"
    assert all(answers[2:]), answers  # each said something; none crashed
    assert gb.running(GROUP)  # nobody stopped Alice's run
    assert "slow answer" in await reply_to(gb, GROUP, asked)
    tg.tap(GROUP, ADMIN, live.message_id, f"stop:{key}")  # too late now: already finished
    await tg.wait(lambda: len(tg.answers_to_taps()) == 9)
    assert tg.answers_to_taps()[-1] == "That question has already finished."
    await still_answers(gb, GROUP)
