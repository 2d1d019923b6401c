"""The fake Bot API speaks voice notes and audio files as Telegram does: their Message
fields in the key order of tests/wire/telegram/getUpdates_voice_audio.json, a reply that
carries them, and getFile with the file downloaded by python-telegram-bot's own Bot (and
refused past 20 MB)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from telegram import Bot, Message
from telegram.error import BadRequest

from testkit.fakes.server import wire
from testkit.fakes.telegram import TOKEN, FakeTelegram
from testkit.fakes.telegram_objects import Sound, SoundKind

ALICE, GROUP = 123456789, -1001234567890


def sample() -> list[dict[str, Any]]:
    return [u["message"] for u in json.loads(wire("telegram/getUpdates_voice_audio.json"))[
        "result"]]


def shape(value: Any) -> Any:
    """The keys in order, all the way down, without the values."""
    if isinstance(value, dict):
        return [(k, shape(v)) for k, v in value.items()]
    return type(value).__name__


def test_a_voice_note_an_audio_file_and_a_reply_are_shaped_as_telegram_sends_them() -> None:
    voice, audio, reply = sample()
    with FakeTelegram() as tg:
        tg.user(ALICE, "Alice")
        tg.group(GROUP, "Math Club")
        sent_voice = tg.send_sound(ALICE, ALICE, Sound(SoundKind.VOICE, b"OggS" * 9, 4))
        tg.send_sound(ALICE, ALICE, Sound(SoundKind.AUDIO, b"ID3" * 9, 53, "audio/mpeg",
                                          "question.mp3"))
        in_group = tg.send_sound(GROUP, ALICE, Sound(SoundKind.VOICE, b"OggS", 7))
        tg.send(GROUP, ALICE, "/ask", reply_to=in_group)
        got = [u["message"] for u in tg._updates]
    assert shape(got[0]["voice"]) == shape(voice["voice"])
    assert shape(got[1]["audio"]) == shape(audio["audio"])
    assert shape(got[3]["reply_to_message"]["voice"]) == shape(reply["reply_to_message"]["voice"])
    assert got[3]["text"] == "/ask" and got[3]["entities"][0]["type"] == "bot_command"
    assert got[0]["voice"]["file_id"].startswith("AwACAgIAAx")
    assert got[1]["audio"]["file_id"].startswith("CQACAgIAAx")
    parsed = [Message.de_json(m, None) for m in (*sample(), *got)]  # type: ignore[arg-type]
    assert [m.voice is not None for m in parsed] == [True, False, False, True, False, True, False]
    assert parsed[4].audio is not None and parsed[4].audio.file_name == "question.mp3"
    assert parsed[6].reply_to_message is not None
    assert parsed[6].reply_to_message.voice is not None
    assert sent_voice == got[0]["message_id"]


async def test_get_file_gives_the_path_telegram_gives_and_the_bytes_download() -> None:
    content = b"OggS\x00\x02" + bytes(range(256)) * 40
    with FakeTelegram() as tg:
        tg.user(ALICE, "Alice")
        tg.send_sound(ALICE, ALICE, Sound(SoundKind.VOICE, content, 4))
        tg.send_sound(ALICE, ALICE, Sound(SoundKind.AUDIO, b"ID3", 3, "audio/mpeg", "q.mp3"))
        tg.send_sound(ALICE, ALICE, Sound(SoundKind.VOICE, b"", 600, size=21 * 1024 * 1024))
        voice, audio, huge = (u["message"] for u in tg._updates)
        async with Bot(TOKEN, base_url=tg.base_url,
                       base_file_url=tg.url + "/file/bot") as bot:
            file = await bot.get_file(voice["voice"]["file_id"])
            assert file.file_path is not None
            assert file.file_path.endswith(".oga") and "/voice/file_" in file.file_path
            assert bytes(await file.download_as_bytearray()) == content
            music = await bot.get_file(audio["audio"]["file_id"])
            assert music.file_path is not None and "/music/file_" in music.file_path
            with pytest.raises(BadRequest, match="File is too big"):
                await bot.get_file(huge["voice"]["file_id"])
    sample_file = json.loads(wire("telegram/getFile_voice_ok.json"))["result"]
    assert list(sample_file) == ["file_id", "file_unique_id", "file_size", "file_path"]
