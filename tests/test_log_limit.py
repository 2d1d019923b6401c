"""The log's rate limit on a clock the test moves: a line repeated in a loop for minutes
stays a few lines a minute, says how many were dropped, and other kinds of line are not
held back by it."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import pytest

from bot.log_limit import BURST, KINDS_KEPT, WINDOW_S, RateLimit


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def logged() -> Iterator[tuple[logging.Logger, io.StringIO, Clock]]:
    clock, out = Clock(), io.StringIO()
    handler = logging.StreamHandler(out)
    handler.addFilter(RateLimit(clock=clock))
    logger = logging.getLogger("tests.log_limit")
    logger.propagate = False
    logger.setLevel(logging.INFO)
    logger.addHandler(handler)
    try:
        yield logger, out, clock
    finally:
        logger.removeHandler(handler)


def test_a_line_repeated_every_tenth_of_a_second_for_three_minutes(
        logged: tuple[logging.Logger, io.StringIO, Clock]) -> None:
    logger, out, clock = logged
    start = clock.now
    for tenth in range(3 * 600):
        clock.now = start + tenth / 10
        logger.info("update %d delivered again; handled once", 731)
        logger.warning("polling failed (%s); retrying", "reset")
    lines = out.getvalue().splitlines()
    assert len(lines) == 2 * 3 * BURST
    repeats = [line for line in lines if line.startswith("update 731")]
    assert repeats[:BURST] == ["update 731 delivered again; handled once"] * BURST
    dropped = 600 - BURST
    assert repeats[BURST] == f"update 731 delivered again; handled once ({dropped} like this " \
                             f"before it were not logged)"
    assert len(out.getvalue().encode()) < 3 * 2 * BURST * 120


def test_other_lines_go_out_while_one_is_held_back(
        logged: tuple[logging.Logger, io.StringIO, Clock]) -> None:
    logger, out, clock = logged
    for _ in range(100):
        logger.warning("polling failed (%s); retrying", "reset")
    logger.error("update %s failed: %s", 9, "ValueError")
    logger.info("polling failed (%s); retrying", "reset")  # another level: another kind
    clock.now += WINDOW_S
    logger.warning("polling failed (%s); retrying", "back")
    lines = out.getvalue().splitlines()
    assert lines[BURST:] == ["update 9 failed: ValueError", "polling failed (reset); retrying",
                             "polling failed (back); retrying (90 like this before it were "
                             "not logged)"]


def test_the_kinds_remembered_are_bounded() -> None:
    limit = RateLimit(clock=Clock())
    for n in range(KINDS_KEPT * 3):
        record = logging.LogRecord("x", logging.INFO, __file__, 1, f"made-up line {n}", None,
                                   None)
        assert limit.filter(record)
    assert len(limit._windows) == KINDS_KEPT
