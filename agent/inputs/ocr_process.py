"""Reading a picture's text in a process of its own, so a hostile or huge picture costs that
process, never the bot: `python -m agent.inputs.ocr_process MEMORY_MB CPU_S THREADS` reads
the picture from stdin and writes one JSON object to stdout:

    {"segments": [[text, confidence, left, top, right, bottom], ...]}   what it read
    {"error": "unreadable"}                                            no picture it can read
    {"error": "memory"}                                                MEMORY_MB was not enough

It caps its own address space and CPU time (in case its parent is gone and cannot kill it)
and runs at a lower priority than the bot. The engine is RapidOCR on ONNX Runtime, whose
wheel carries the PP-OCRv4 detection and recognition models (Chinese and English): nothing
is downloaded, a school machine reads offline.
"""

from __future__ import annotations

import io
import json
import os
import resource
import sys
from typing import Any


def read(data: bytes, threads: int) -> list[list[Any]]:
    """Each text box found: its text, the recogniser's confidence (0–1) and its bounds."""
    import numpy as np
    from PIL import Image, ImageOps
    from rapidocr_onnxruntime import RapidOCR

    with Image.open(io.BytesIO(data)) as image:
        pixels = np.asarray(ImageOps.exif_transpose(image).convert("RGB"))[:, :, ::-1]
    engine = RapidOCR(intra_op_num_threads=threads, inter_op_num_threads=1)
    found, _ = engine(np.ascontiguousarray(pixels))
    segments = []
    for box, text, score in found or ():
        xs, ys = [p[0] for p in box], [p[1] for p in box]
        segments.append([text, round(float(score), 4), round(min(xs)), round(min(ys)),
                         round(max(xs)), round(max(ys))])
    return segments


def _out_of_memory(err: Exception) -> bool:
    """Whether `err` is the address-space cap's doing: ONNX Runtime's C++ allocation failing,
    or a native library that could not be mapped in at import."""
    said = str(err)
    return "bad_alloc" in said or (isinstance(err, ImportError) and "map" in said)


def _limit(memory_mb: int, cpu_s: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory_mb * 1024 * 1024,) * 2)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s))
    os.nice(10)


def main(argv: list[str]) -> int:
    memory_mb, cpu_s, threads = (int(arg) for arg in argv)
    _limit(memory_mb, cpu_s)
    data = sys.stdin.buffer.read()
    try:
        out: dict[str, Any] = {"segments": read(data, threads)}
    except MemoryError:
        out = {"error": "memory"}
    except Exception as err:  # Pillow, OpenCV and ONNX Runtime raise many kinds
        out = {"error": "memory" if _out_of_memory(err) else "unreadable"}
    sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
