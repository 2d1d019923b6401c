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
from testkit.voicekit import (
    ENGLISH,
    MANDARIN,
    chinese_chars,
    english_words,
    error_rate,
    speech,
    tools_or_skip,
    whisper_base,
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
