"""The process Whisper hears voice messages in (`python -m bot.voice.whisper_worker MODEL
LANGUAGES`, started by bot/voice/transcriber.py): faster-whisper (CTranslate2, int8 on
the CPU) with the model MODEL, a name faster-whisper downloads on first use ("base":
Systran's conversion, into the Hugging Face cache) or a directory holding model.bin,
config.json, tokenizer.json and vocabulary.json. Loaded at the first request and kept.
LANGUAGES: the codes (`zh,en`) a message is heard in, the likeliest of them; empty: any
Whisper knows.

It runs at a lower priority than the bot, so the other chats' answers keep their pace
while a message is heard."""

from __future__ import annotations

import math
import os
import sys
from typing import Any

from bot.voice.audio import RATE, decode
from bot.worker_process import serve

NICENESS = 10
BEAM_SIZE = 5
SURE = 0.5
"""Whisper's probability of the language it detects, from which its word is taken over the
hint: espeak-ng's English is heard at 0.59 and more, its Mandarin at 0.33 to 0.99."""


class Hearing:
    def __init__(self, model: str, languages: frozenset[str]) -> None:
        self.name, self.languages = model, languages
        self._model: Any = None
        self._simplified: Any = None

    def model(self) -> Any:
        if self._model is None:
            from faster_whisper import WhisperModel  # the bot's process never loads it

            threads = min(4, os.cpu_count() or 1)
            self._model = WhisperModel(self.name, device="cpu", compute_type="int8",
                                       cpu_threads=threads)
        return self._model

    def load(self) -> bool:
        self.model()
        return True

    def hear(self, data: bytes, most_s: float, hint: str | None
             ) -> tuple[list[tuple[str, float]], str, float]:
        """(what was said, segment by segment with Whisper's confidence in it (the mean
        probability of its tokens), the language it was heard in (ISO 639-1), seconds of
        sound).
        TooLong past `most_s`; NotAudio for a file that is not sound. `hint`: the language
        the speaker likely speaks (language)."""
        sound = decode(data, most_s)
        model = self.model()
        lang = self.language(sound, hint)
        segments, info = model.transcribe(
            sound, language=lang, beam_size=BEAM_SIZE, condition_on_previous_text=False,
            vad_filter=False)
        said = [(self.simplified(s.text) if info.language == "zh" else s.text,
                 math.exp(s.avg_logprob)) for s in segments]
        return said, info.language, sound.size / RATE

    def language(self, sound: Any, hint: str | None) -> str:
        """The language to hear `sound` in: the one Whisper hears when it is one of the
        class's and Whisper is sure of it; else `hint` (the chat's language, or the
        speaker's Telegram's), when it is one of the class's; else the likeliest of them.
        Base hears a short or accented Mandarin question as Thai, German or Latin about
        one time in three, and writes its words in that language."""
        lang, sure, likely = self.model().detect_language(sound)
        if not self.languages:
            return str(lang)
        if lang in self.languages and sure >= SURE:
            return str(lang)
        if hint in self.languages:
            return str(hint)
        return str(max((p, code) for code, p in likely if code in self.languages)[1])

    def simplified(self, words: str) -> str:
        """Mandarin in simplified characters: Whisper writes traditional ones as often, and
        a class's Chinese here is simplified (the bot's own words and prompts are)."""
        if self._simplified is None:
            import opencc

            self._simplified = opencc.OpenCC("t2s")
        return self._simplified.convert(words)


def main() -> None:
    os.nice(NICENESS)
    hearing = Hearing(sys.argv[1], frozenset(filter(None, sys.argv[2].split(","))))
    serve({"hear": hearing.hear, "load": hearing.load})


if __name__ == "__main__":
    main()
