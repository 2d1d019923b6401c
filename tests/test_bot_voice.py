"""Voice questions in Telegram (bot/telegram/handlers/voice_questions.py), the bot against
the fake Bot API (voice notes, audio files, getFile and the download as Telegram serves
them) and the fake model: what was said is heard by the real embedded Whisper and asked as
if typed, the run speaks the language it was heard in, and every refusal is one line in the
asker's language, with nothing started."""

from __future__ import annotations

from pathlib import Path

from testkit.bot_process import bot_process
from testkit.botkit import ALICE, BOB, GROUP, running
from testkit.fakes.model import FakeModel, text_reply
from testkit.fakes.telegram import FakeTelegram
from testkit.fakes.telegram_objects import Sound, SoundKind
from testkit.fakes.transcriptions import KEY, FakeTranscriptions
from testkit.voicekit import speech, tools_or_skip, whisper_base


def asked(model: FakeModel) -> str:
    """The question the model was asked: the last user message of its first request."""
    users = [m for m in model.bodies[0]["messages"] if m["role"] == "user"]
    return str(users[-1]["content"])


def voice(content: bytes, seconds: int) -> Sound:
    return Sound(SoundKind.VOICE, content, seconds)


async def test_a_voice_question_in_a_private_chat_is_heard_and_answered(
        fake_telegram: FakeTelegram, fake_model: FakeModel, tmp_path: Path) -> None:
    tools_or_skip()
    tg = fake_telegram
    fake_model.push(text_reply("Canberra is the capital of Australia."))
    async with running(tg, fake_model, tmp_path / "g.sqlite3",
                       whisper_model=str(whisper_base())) as gb:
        sent = tg.send_sound(ALICE, ALICE, voice(
            speech("What is the capital city of Australia?", "en"), 4))
        answer = await gb.answer_to(ALICE, sent, timeout=180)
        record = await gb.services.store.by_message(ALICE, answer.message_id)
        assert record is not None
        shown = tg.send(ALICE, ALICE, f"/show {record.n}")
        await tg.wait(lambda: bool(gb.replies_to(ALICE, shown)))
        replay = gb.replies_to(ALICE, shown)[0].text
    heard = "🎤 Heard in the voice message (Glassbox, Whisper)\nWhat is the capital city"
    for chain in (answer.text, replay):  # Glassbox's step, before the model's first round
        assert heard in chain, chain
        assert chain.index(heard) < chain.index("Canberra")
    assert "capital city of Australia" in asked(fake_model)
    assert "Canberra" in answer.text
    assert record is not None and "capital city of Australia" in record.question
    assert [m for m in tg.methods() if m in ("getFile", "download")] == ["getFile", "download"]


async def test_ask_as_a_reply_to_a_mandarin_voice_message_runs_in_chinese(
        fake_telegram: FakeTelegram, fake_model: FakeModel, tmp_path: Path) -> None:
    """Alice's Telegram is in English; the chat set no language; the question was heard in
    Mandarin, so the run's own words are Chinese."""
    tools_or_skip()
    tg = fake_telegram
    fake_model.push(text_reply("不客气！"))
    async with running(tg, fake_model, tmp_path / "g.sqlite3",
                       whisper_model=str(whisper_base())) as gb:
        said = tg.send_sound(GROUP, BOB, voice(speech("我们明天有考试", "zh"), 3))
        ask = tg.send(GROUP, ALICE, "/ask", reply_to=said)
        answer = await gb.answer_to(GROUP, ask, timeout=180)
    assert "明天" in asked(fake_model)
    assert "回答" in answer.text, answer.text


async def test_a_voice_message_over_the_cap_is_refused_before_it_is_downloaded(
        fake_telegram: FakeTelegram, fake_model: FakeModel, tmp_path: Path) -> None:
    tg = fake_telegram
    async with running(tg, fake_model, tmp_path / "g.sqlite3", voice_max_s=60) as gb:
        sent = tg.send_sound(BOB, BOB, voice(b"OggS" * 100, 61))
        await tg.wait(lambda: bool(gb.replies_to(BOB, sent)))
        [refusal] = gb.replies_to(BOB, sent)
    assert "60 秒" in refusal.text, refusal.text
    assert "getFile" not in tg.methods() and not fake_model.bodies


async def test_a_longer_sound_than_telegram_said_is_refused_once_heard(
        fake_telegram: FakeTelegram, fake_model: FakeModel, tmp_path: Path) -> None:
    tools_or_skip()
    tg = fake_telegram
    ten_seconds = speech("What is the weather like in Berlin today?", "en", repeat=4)
    async with running(tg, fake_model, tmp_path / "g.sqlite3", voice_max_s=5,
                       whisper_model=str(whisper_base())) as gb:
        sent = tg.send_sound(ALICE, ALICE, voice(ten_seconds, 3))
        await tg.wait(lambda: bool(gb.replies_to(ALICE, sent)), timeout=60)
        [refusal] = gb.replies_to(ALICE, sent)
    assert "longer than 5 seconds" in refusal.text, refusal.text
    assert "download" in tg.methods() and not fake_model.bodies


async def test_a_file_that_is_no_sound_is_refused_politely(
        fake_telegram: FakeTelegram, fake_model: FakeModel, tmp_path: Path) -> None:
    tg = fake_telegram
    async with running(tg, fake_model, tmp_path / "g.sqlite3") as gb:
        sent = tg.send_sound(ALICE, ALICE, Sound(SoundKind.AUDIO, b"%PDF-1.7" * 500, 5,
                                                 "audio/mpeg", "homework.mp3"))
        await tg.wait(lambda: bool(gb.replies_to(ALICE, sent)), timeout=60)
        [refusal] = gb.replies_to(ALICE, sent)
    assert "could not read any sound" in refusal.text, refusal.text
    assert not fake_model.bodies


async def test_with_voice_off_a_voice_message_gets_the_text_only_line(
        fake_telegram: FakeTelegram, fake_model: FakeModel, tmp_path: Path) -> None:
    tg = fake_telegram
    async with running(tg, fake_model, tmp_path / "g.sqlite3", voice=False) as gb:
        sent = tg.send_sound(ALICE, ALICE, voice(b"OggS" * 100, 4))
        await tg.wait(lambda: bool(gb.replies_to(ALICE, sent)))
        [line] = gb.replies_to(ALICE, sent)
    assert "I can't read this kind of message" in line.text
    assert "getFile" not in tg.methods()


async def test_the_bot_process_answers_a_voice_question_with_what_it_heard(
        fake_telegram: FakeTelegram, fake_model: FakeModel, tmp_path: Path) -> None:
    """`python -m bot` as a school runs it, WHISPER_MODEL naming the model directory."""
    tools_or_skip()
    tg = fake_telegram
    fake_model.push(text_reply("It is about 384,000 km away."))
    clip = speech("How far is the Moon from the Earth?", "en")
    with bot_process(tg, fake_model, tmp_path, WHISPER_MODEL=str(whisper_base())) as bot:
        await tg.wait(lambda: tg.polls > 0, timeout=60)
        sent = tg.send_sound(ALICE, ALICE, voice(clip, 3))
        await tg.wait(lambda: any("384,000" in m.text for m in tg.bot_messages(ALICE)),
                      timeout=240)
        assert bot.terminate() == 0
    assert "moon from the earth" in asked(fake_model).lower()
    [answer] = [m for m in tg.bot_messages(ALICE) if m.reply_to == sent]
    assert "384,000" in answer.text and "moon from the earth" in answer.text.lower()


async def test_a_school_transcription_server_hears_instead_of_the_embedded_whisper(
        fake_telegram: FakeTelegram, fake_model: FakeModel, tmp_path: Path) -> None:
    """WHISPER_API_URL: the voice note goes to its /audio/transcriptions as it came (with the
    key, the model's name, verbose_json); the run speaks the language the server names; the
    cap still holds, measured here, and a refusing server is one polite line."""
    tools_or_skip()
    tg = fake_telegram
    fake_model.push(text_reply("我们明天考数学。"))
    clip = speech("What time is it now in New York?", "en")
    with FakeTranscriptions("明天考什么？", language="chinese") as server:
        async with running(tg, fake_model, tmp_path / "g.sqlite3", voice_max_s=5,
                           whisper_api_url=server.base_url, whisper_api_key=KEY,
                           whisper_api_model="whisper-large-v3") as gb:
            sent = tg.send_sound(ALICE, ALICE, voice(clip, 3))
            answer = await gb.answer_to(ALICE, sent, timeout=60)
            too_long = tg.send_sound(ALICE, ALICE, voice(
                speech("What time is it now in New York?", "en", repeat=4), 3))
            await tg.wait(lambda: bool(gb.replies_to(ALICE, too_long)), timeout=60)
            server.text = ""
            silent = tg.send_sound(ALICE, ALICE, voice(clip, 3))
            await tg.wait(lambda: bool(gb.replies_to(ALICE, silent)), timeout=60)
    assert server.heard[0]["model"] == "whisper-large-v3"
    assert server.heard[0]["response_format"] == "verbose_json"
    assert server.heard[0]["bytes"] == len(clip)
    assert len(server.heard) == 2  # the long one never left the bot
    assert asked(fake_model) == "明天考什么？"
    assert "回答" in answer.text, answer.text
    assert "longer than 5 seconds" in gb.replies_to(ALICE, too_long)[0].text
    assert "heard no words" in gb.replies_to(ALICE, silent)[0].text


async def test_a_transcription_server_that_refuses_gets_one_polite_line(
        fake_telegram: FakeTelegram, fake_model: FakeModel, tmp_path: Path) -> None:
    tools_or_skip()
    tg = fake_telegram
    with FakeTranscriptions("never heard") as server:
        async with running(tg, fake_model, tmp_path / "g.sqlite3",
                           whisper_api_url=server.base_url, whisper_api_key="sk-wrong") as gb:
            sent = tg.send_sound(BOB, BOB, voice(speech("谢谢你的帮助", "zh"), 3))
            await tg.wait(lambda: bool(gb.replies_to(BOB, sent)), timeout=60)
    assert "没法听语音" in gb.replies_to(BOB, sent)[0].text
    assert not fake_model.bodies and "sk-wrong" not in str(tg.calls)


async def test_quiz_as_a_reply_to_a_voice_message_has_the_class_predict_what_was_heard(
        fake_telegram: FakeTelegram, fake_model: FakeModel, tmp_path: Path) -> None:
    """/quiz replying to a voice message in a group: the heard question is the quiz's, the
    class votes before the round, and the chain opens with what was heard. In a private
    chat, where there is no class, /quiz says so and nothing is downloaded."""
    tools_or_skip()
    tg = fake_telegram
    fake_model.push(text_reply("Canberra."))
    with FakeTranscriptions("What is the capital city of Australia?") as server:
        async with running(tg, fake_model, tmp_path / "g.sqlite3",
                           whisper_api_url=server.base_url, whisper_api_key=KEY) as gb:
            said = tg.send_sound(GROUP, BOB, voice(
                speech("What is the capital city of Australia?", "en"), 3))
            quiz = tg.send(GROUP, ALICE, "/quiz", reply_to=said)
            await tg.wait(lambda: any(m.poll is not None for m in tg.bot_messages(GROUP)),
                          timeout=60)
            [poll] = [m for m in tg.bot_messages(GROUP) if m.poll is not None]
            assert "❓ What is the capital city of Australia?" in poll.poll.question
            assert not fake_model.bodies  # the class votes first
            live = gb.replies_to(GROUP, quiz)[0]
            reveal = next(b["callback_data"] for row in live.reply_markup["inline_keyboard"]
                          for b in row if b["callback_data"].startswith("quiz:"))
            tg.tap(GROUP, ALICE, live.message_id, reveal)
            answer = await gb.answer_to(GROUP, quiz, timeout=60)
            private = tg.send_sound(ALICE, ALICE, voice(b"OggS" * 100, 3))
            await tg.wait(lambda: bool(gb.replies_to(ALICE, private)), timeout=60)
            fetched = tg.methods().count("getFile")
            alone = tg.send(ALICE, ALICE, "/quiz", reply_to=private)
            await tg.wait(lambda: bool(gb.replies_to(ALICE, alone)), timeout=60)
    heard = "🎤 Heard in the voice message (Glassbox, whisper-1)\nWhat is the capital city"
    assert heard in answer.text and answer.text.index(heard) < answer.text.index("Canberra.")
    assert "Class prediction" in answer.text
    assert "/quiz" in gb.replies_to(ALICE, alone)[0].text and "group" in \
        gb.replies_to(ALICE, alone)[0].text
    assert tg.methods().count("getFile") == fetched and len(server.heard) == 1
