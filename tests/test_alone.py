"""A timed test's turn (tests/alone.py) waits for the tests running to end and keeps new ones
out until it is done; the others share theirs. Each side is a thread with its own open lock
files, as each xdist worker has."""

from __future__ import annotations

import threading
from pathlib import Path

from tests.alone import turn

WAIT_S = 5.0
"""How long a side that should get in is given to get in."""
HELD_OUT_S = 0.3
"""How long a side that should be held out is watched for getting in."""


class Side:
    """A test taking its turn in a thread: in when `entered` is set, out once `leave` is."""

    def __init__(self, folder: Path, alone: bool) -> None:
        self.entered, self.leave = threading.Event(), threading.Event()
        self.thread = threading.Thread(target=self._run, args=(folder, alone), daemon=True)
        self.thread.start()

    def _run(self, folder: Path, alone: bool) -> None:
        with turn(folder, alone):
            self.entered.set()
            self.leave.wait(WAIT_S)

    def done(self) -> None:
        self.leave.set()
        self.thread.join(WAIT_S)


def test_others_share_their_turns(tmp_path: Path) -> None:
    first, second = Side(tmp_path, alone=False), Side(tmp_path, alone=False)
    assert first.entered.wait(WAIT_S) and second.entered.wait(WAIT_S)
    first.done()
    second.done()


def test_a_timed_turn_waits_for_the_running_and_keeps_the_next_out(tmp_path: Path) -> None:
    running = Side(tmp_path, alone=False)
    assert running.entered.wait(WAIT_S)
    timed = Side(tmp_path, alone=True)
    assert not timed.entered.wait(HELD_OUT_S)  # a test still runs
    running.done()
    assert timed.entered.wait(WAIT_S)
    later = Side(tmp_path, alone=False)
    assert not later.entered.wait(HELD_OUT_S)  # the timed test runs alone
    timed.done()
    assert later.entered.wait(WAIT_S)
    later.done()


def test_a_timed_turn_is_not_kept_waiting_by_tests_arriving_after_it(tmp_path: Path) -> None:
    running = Side(tmp_path, alone=False)
    assert running.entered.wait(WAIT_S)
    timed = Side(tmp_path, alone=True)
    assert not timed.entered.wait(HELD_OUT_S)
    arriving = Side(tmp_path, alone=False)  # comes while the timed one waits at the gate
    running.done()
    assert timed.entered.wait(WAIT_S)
    assert not arriving.entered.is_set()
    timed.done()
    assert arriving.entered.wait(WAIT_S)
    arriving.done()
