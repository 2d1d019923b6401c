"""The process the course's pictures are drawn in (`python -m bot.course.draw_worker`,
started by bot/course/drawing.py): it reads requests from stdin and writes the results to
stdout, each a pickle after its length (8 bytes, big-endian), until stdin closes. Only the
bot that started it writes to it, so its pickles are trusted; only DRAWERS may be called."""

from __future__ import annotations

import pickle
import sys
from typing import BinaryIO

from bot.course import chart

DRAWERS = {"picture": chart.picture, "svgs": chart.svgs, "cjk_font": chart.cjk_font}


def read(pipe: BinaryIO) -> object | None:
    head = pipe.read(8)
    if len(head) < 8:
        return None
    return pickle.loads(pipe.read(int.from_bytes(head, "big")))


def write(pipe: BinaryIO, value: object) -> None:
    data = pickle.dumps(value)
    pipe.write(len(data).to_bytes(8, "big") + data)
    pipe.flush()


def main() -> None:
    requests, answers = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing but the answers goes down the pipe
    while (request := read(requests)) is not None:
        name, args = request  # type: ignore[misc]
        try:
            write(answers, (True, DRAWERS[name](*args)))
        except Exception as err:  # told to the bot, which logs it; the next request is served
            write(answers, (False, f"{type(err).__name__}: {err}"))


if __name__ == "__main__":
    main()
