"""A picture's text, read by the embedded OCR (agent/inputs/ocr_process.py) in a process of
its own: killed at a time limit, its address space capped, so the event loop only waits.
The text boxes it finds are put back into lines (a receipt's item and its price are two
boxes on one line), each box keeping the recogniser's confidence so that the chain can mark
what it is unsure of."""

from __future__ import annotations

import asyncio
import json
import logging
import math
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from agent.events import ReadFailure, ReadSegment

log = logging.getLogger(__name__)
_ROOT = Path(__file__).resolve().parents[2]
"""Where the `agent` package lives, for the reading process's import path."""
_PASSED_ON = frozenset({"PATH", "PYTHONPATH", "PYTHONHOME", "LANG", "LC_ALL", "LC_CTYPE",
                        "TMPDIR"})
"""The environment the reading process gets: none of the bot's settings or keys."""
_OUT_BYTES = 4 * 1024 * 1024
"""The most the reading process may write (its one line of JSON)."""


@dataclass(frozen=True, slots=True)
class OcrLimits:
    seconds: float = 60.0
    """The reading process is killed after this long."""
    memory_mb: int = 1536
    """Its address space: ONNX Runtime maps about 1.2 GB of it for a phone photo."""
    threads: int = 2
    """ONNX Runtime's threads for one picture."""


@dataclass(frozen=True, slots=True)
class Reading:
    segments: tuple[ReadSegment, ...]
    """What was read, line by line (a segment's `line` says which)."""
    failure: ReadFailure = ReadFailure.NONE
    seconds: float = 0.0


def in_lines(boxes: list[tuple[str, float, int, int, int, int]]) -> tuple[ReadSegment, ...]:
    """Text boxes (text, confidence, left, top, right, bottom) as segments in reading order:
    boxes whose vertical middles lie within half a box's height of a line's are on that line,
    left to right."""
    lines: list[list[tuple[str, float, int, int, int, int]]] = []
    for box in sorted(boxes, key=lambda b: (b[3] + b[5]) / 2):
        middle, height = (box[3] + box[5]) / 2, max(1, box[5] - box[3])
        if lines:
            last = lines[-1][-1]
            if abs((last[3] + last[5]) / 2 - middle) <= height / 2:
                lines[-1].append(box)
                continue
        lines.append([box])
    return tuple(ReadSegment(text=b[0].strip(), confidence=b[1], line=n)
                 for n, line in enumerate(lines, 1)
                 for b in sorted(line, key=lambda b: b[2]) if b[0].strip())


async def read_picture(data: bytes, limits: OcrLimits = OcrLimits()) -> Reading:
    """The text of the picture in `data` (checked by agent.inputs.images first)."""
    env = {name: value for name, value in os.environ.items() if name in _PASSED_ON}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(_ROOT), env.get("PYTHONPATH"))))
    env["OMP_NUM_THREADS"] = str(limits.threads)
    # glibc gives each thread that allocates at once an arena of 64 MB of address space, so
    # under a busy CPU the same picture needed more of the capped space than on an idle one
    env["MALLOC_ARENA_MAX"] = "2"
    started = asyncio.get_running_loop().time()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "agent.inputs.ocr_process", str(limits.memory_mb),
        str(math.ceil(limits.seconds) + 1), str(limits.threads),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL, env=env, limit=_OUT_BYTES)
    out = b""
    try:
        async with asyncio.timeout(limits.seconds):
            out, _ = await proc.communicate(data)
    except TimeoutError:
        return Reading((), ReadFailure.TIME, limits.seconds)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    seconds = asyncio.get_running_loop().time() - started
    try:
        said = json.loads(out[:_OUT_BYTES])
    except ValueError:  # it died without a word: the memory cap is the likely cause
        log.info("the OCR process ended without a word (exit %s)", proc.returncode)
        return Reading((), ReadFailure.MEMORY, seconds)
    if "error" in said:
        return Reading((), ReadFailure(said["error"]), seconds)
    segments = in_lines([tuple(box) for box in said["segments"]])
    return Reading(segments, ReadFailure.NONE if segments else ReadFailure.NO_TEXT, seconds)
