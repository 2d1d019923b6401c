"""Real transcription (bot/voice/): class questions spoken by espeak-ng, sent as Telegram
sends a voice note, heard by the embedded Whisper base in its own process, loaded from the
model directory its registry packages assemble into (as WHISPER_MODEL names it). English
within 15 % word errors; Mandarin in simplified characters, within the character error rate
base reaches on espeak-ng's Mandarin (docs/voice.md: not the 20 % a person's speech would
be held to); a message over the cap refused; a file that is no sound refused."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.voice.transcriber import EmbeddedWhisper, NotHeard, Unheard
from tests.voicekit import (
    chinese_chars,
    english_words,
    error_rate,
    speech,
    tools_or_skip,
    whisper_base,
)

ENGLISH = (
    "What is the weather like in Berlin today?",
    "How many hours is Beijing ahead of London?",
    "Please explain how photosynthesis works.",
    "Who proposed the Turing test?",
    "What is 17 percent of 2480?",
    "How much is 100 US dollars in Chinese yuan?",
    "Why is the sky blue during the day?",
    "Can you summarize my notes about the French revolution?",
    "What time is it now in New York?",
    "Is it going to rain in Shanghai tomorrow?",
    "What is the capital city of Australia?",
    "How far is the Moon from the Earth?",
)
MANDARIN = (
    "今天天气怎么样", "北京现在几点了", "一百美元等于多少人民币", "请帮我计算这道数学题",
    "图灵测试是谁提出的", "我们明天有考试", "老师这个问题我不懂", "上海明天会下雨吗",
    "中国的首都是北京", "请解释一下光合作用", "谢谢你的帮助", "学生们正在图书馆学习",
)
MOST_WER, MOST_CER = 0.15, 0.50


@pytest.fixture
async def whisper() -> AsyncIterator[EmbeddedWhisper]:
    tools_or_skip()
    hearing = EmbeddedWhisper(str(whisper_base()), max_s=60)
    yield hearing
    await hearing.close()


async def test_english_questions_are_heard_within_15_percent_word_errors(
        whisper: EmbeddedWhisper) -> None:
    pairs = []
    for sentence in ENGLISH:
        heard = await whisper.hear(speech(sentence, "en"))
        assert heard.lang == "en", (sentence, heard)
        pairs.append((english_words(sentence), english_words(heard.text)))
    wer = error_rate(pairs)
    assert wer <= MOST_WER, (wer, pairs)


async def test_mandarin_questions_are_heard_in_simplified_characters(
        whisper: EmbeddedWhisper) -> None:
    """As a student whose Telegram is in Chinese sends them (the hint a chat gives)."""
    pairs = []
    for sentence in MANDARIN:
        heard = await whisper.hear(speech(sentence, "zh"), hint="zh")
        assert heard.lang == "zh", (sentence, heard)
        pairs.append((chinese_chars(sentence), chinese_chars(heard.text)))
    cer = error_rate(pairs)
    assert cer <= MOST_CER, (cer, pairs)
    heard_chars = {c for _, h in pairs for c in h}
    assert not heard_chars & set("們這請題會嗎幫學"), pairs  # traditional forms, converted


async def test_a_message_over_the_cap_is_refused_and_a_file_of_no_sound_too() -> None:
    tools_or_skip()
    short = EmbeddedWhisper(str(whisper_base()), max_s=5)
    try:
        long_clip = speech(ENGLISH[0], "en", repeat=4)  # about 10 s
        with pytest.raises(NotHeard) as refused:
            await short.hear(long_clip)
        assert refused.value.reason is Unheard.TOO_LONG
        with pytest.raises(NotHeard) as refused:
            await short.hear(b"%PDF-1.7 not a sound at all" * 100)
        assert refused.value.reason is Unheard.NOT_AUDIO
        assert (await short.hear(speech(ENGLISH[3], "en"))).text  # and it still hears
    finally:
        await short.close()
