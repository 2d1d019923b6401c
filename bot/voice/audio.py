"""A voice message's sound as Whisper takes it (16 kHz mono float32), decoded by FFmpeg's
libraries (PyAV) from whatever Telegram sends (OGG/Opus voice notes, MP3, M4A, WAV, ...).

Bounded: decoding stops as soon as the sound is longer than the cap, so a small file that
unpacks into hours of sound costs no more than the cap's worth of memory and time; the
Telegram-reported duration is the sender's word, this is the sound's."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from wire.wire_errors import GlassboxError

if TYPE_CHECKING:
    import numpy as np

RATE = 16_000
"""Whisper's sample rate."""
SLACK_S = 1.0
"""Telegram reports whole seconds: a 60.4 s message is "60"."""


class TooLong(GlassboxError):
    """The sound lasts longer than the cap."""


class NotAudio(GlassboxError):
    """No sound could be decoded from the file."""


def decode(data: bytes, most_s: float) -> np.ndarray:
    """The sound of `data`, resampled to 16 kHz mono float32 in [-1, 1]."""
    # Imported here: the bot's process starts without FFmpeg's libraries and numpy, which
    # only a voice message needs.
    import av
    import numpy as np

    most = int((most_s + SLACK_S) * RATE)
    chunks: list[np.ndarray] = []
    size = 0
    try:
        with av.open(io.BytesIO(data), metadata_errors="ignore") as container:
            if not container.streams.audio:
                raise NotAudio
            resampler = av.AudioResampler(format="s16", layout="mono", rate=RATE)
            for frame in container.decode(container.streams.audio[0]):
                for out in resampler.resample(frame):
                    chunk = out.to_ndarray().reshape(-1)
                    chunks.append(chunk)
                    size += chunk.size
                if size > most:
                    raise TooLong
            chunks.extend(out.to_ndarray().reshape(-1) for out in resampler.resample(None))
    except av.FFmpegError:
        raise NotAudio from None
    if not chunks:
        raise NotAudio
    sound = np.concatenate(chunks)
    if sound.size > most:
        raise TooLong
    return sound.astype(np.float32) / 32768.0
