"""Voice questions' figures (docs/voice.md): how long the embedded Whisper base takes to hear
30 s of speech, the hearing process's peak memory, and its word and character error rates
on the tests' espeak-ng questions. `python -m bench --voice` (needs espeak-ng, ffmpeg and the
test extra's whisper-base packages)."""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time

from bench.bench_figures import Figure, table
from bench.stage import children, rss_kib
from bot.voice.transcriber import EmbeddedWhisper
from testkit.voicekit import (
    ENGLISH,
    MANDARIN,
    chinese_chars,
    english_words,
    error_rate,
    speech,
    whisper_base,
)

THIRTY_S = {"en": " ".join(ENGLISH[:8]), "zh": "，".join(MANDARIN[:7])}
"""About 30 s of each language, one message."""


def _peak_mb() -> float:
    """The largest peak resident memory among this process's children (VmHWM)."""
    peaks = [rss_kib(child, "VmHWM") for child in children(os.getpid())]
    return max((kib / 1024 for kib in peaks if kib is not None), default=0.0)


async def hearing_figures(whisper: EmbeddedWhisper, runs: int,
                          said: dict[str, str] = THIRTY_S) -> list[Figure]:
    """`said` (about 30 s of speech in each language) heard `runs` times (the model loaded),
    each as the seconds 30 s of it take, and the hearing process's peak memory."""
    figures = []
    for lang in ("en", "zh"):
        clip = speech(said[lang], lang)
        took, seconds = [], 0.0
        for _ in range(runs):
            started = time.perf_counter()
            seconds = (await whisper.hear(clip, hint=lang)).seconds  # type: ignore[arg-type]
            took.append(time.perf_counter() - started)
        per_30 = [t * 30 / seconds for t in took]
        figures.append(Figure(
            f"30 s of speech heard by Whisper base ({lang}; a {seconds:.1f} s clip)",
            f"{statistics.median(per_30):.1f} s (median of {runs}; "
            f"{min(per_30):.1f}–{max(per_30):.1f})"))
    figures.append(Figure("The hearing process's peak memory (VmHWM)", f"{_peak_mb():.0f} MB"))
    return figures


async def figures(runs: int) -> None:
    whisper = EmbeddedWhisper(str(whisper_base()), max_s=60)
    try:
        started = time.perf_counter()
        await whisper.hear(speech(ENGLISH[0], "en"))
        print(f"model load and first message: {time.perf_counter() - started:.1f} s")
        print(table(await hearing_figures(whisper, runs)))
        en = [(english_words(s), english_words((await whisper.hear(speech(s, "en"))).text))
              for s in ENGLISH]
        zh = [(chinese_chars(s),
               chinese_chars((await whisper.hear(speech(s, "zh"), hint="zh")).text))
              for s in MANDARIN]
        print(f"English WER {error_rate(en):.1%} on {len(en)} questions; "
              f"Mandarin CER {error_rate(zh):.1%} on {len(zh)}")
        print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.1f}")
    finally:
        await whisper.close()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench --voice",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3,
                        help="times the 30 s of each language are heard (default 3)")
    asyncio.run(figures(parser.parse_args(argv).runs))
    return 0
