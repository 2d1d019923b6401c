"""Speech for the voice tests: sentences spoken by Debian's espeak-ng and encoded by ffmpeg as
Telegram sends a voice note (OGG/Opus, 48 kHz mono, voip at 32 kbit/s), with half a second
of silence around them as a phone records it; the Whisper base model assembled from its
registry packages (bot/voice/model_parts.py, the directory a school's WHISPER_MODEL may name
too); and the error rates the checks are stated in."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from bot.voice.model_parts import assemble
from testkit.photokit import edit_distance

VOICES = {"en": ["-v", "en-us", "-s", "130"],
          "zh": ["-v", "cmn-latn-pinyin+f2", "-s", "110"]}
"""espeak-ng's voices: American English; Mandarin (`cmn`) reading characters through its
pinyin dictionary (the `cmn` voice proper reads the pinyin it looks up as English), the
female variant at a slower pace, which Whisper hears best of those tried."""
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
"""The questions the voice tests and the voice bench speak, in each language."""

_cache = Path(tempfile.gettempdir()) / "glassbox-voice-clips"


def tools_or_skip() -> None:
    """espeak-ng and ffmpeg (.ci/run installs them): skipped where missing, never in CI."""
    missing = [tool for tool in ("espeak-ng", "ffmpeg") if shutil.which(tool) is None]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI needs {' and '.join(missing)} (.ci/run installs them)")
        pytest.skip(f"no {' or '.join(missing)} here")


def whisper_base() -> Path:
    """The model directory, assembled once per machine."""
    return assemble()


def speech(sentence: str, lang: str, *, repeat: int = 1) -> bytes:
    """`sentence` spoken in `lang` ("en" or "zh"), `repeat` times over, as an OGG/Opus voice
    note (made once, then read from the cache)."""
    tools_or_skip()
    _cache.mkdir(exist_ok=True)
    digest = hashlib.sha256(f"{VOICES[lang]} {repeat} {sentence}".encode()).hexdigest()[:16]
    key = f"{lang}_{digest}"
    clip = _cache / f"{key}.ogg"
    if not clip.exists():
        wav = clip.with_suffix(".wav")
        subprocess.run(["espeak-ng", *VOICES[lang], "-w", str(wav),
                        " ".join([sentence] * repeat)], check=True, capture_output=True)
        subprocess.run(
            ["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
             "anullsrc=r=22050:cl=mono", "-i", str(wav), "-filter_complex",
             "[0]atrim=0:0.5[a];[0]atrim=0:0.5[b];[a][1][b]concat=n=3:v=0:a=1",
             "-ac", "1", "-ar", "48000", "-c:a", "libopus", "-b:a", "32k",
             "-application", "voip", str(clip.with_suffix(".part.ogg"))],
            check=True, capture_output=True)
        clip.with_suffix(".part.ogg").replace(clip)
        wav.unlink()
    return clip.read_bytes()


def english_words(text: str) -> list[str]:
    """Lower case, "%" as "percent", digits kept whole ("2,480" is 2480), no punctuation."""
    text = text.lower().replace("%", " percent ")
    text = re.sub(r"(?<=\d),(?=\d)", "", text)
    return re.findall(r"[a-z0-9']+", text)


def chinese_chars(text: str) -> list[str]:
    """The characters, without punctuation or spaces."""
    return [c for c in text if c.isalnum()]


def error_rate(pairs: list[tuple[list[str], list[str]]]) -> float:
    """Edits over the reference's length, summed over every (said, heard) pair (WER over
    words, CER over characters)."""
    return sum(edit_distance(s, h) for s, h in pairs) / sum(len(s) for s, _ in pairs)
