"""Under pytest-xdist, a test that times our code with `perf_counter` (tests/marks.py marks
it `timed`) runs while no other worker runs a test: on two cores, another worker's
test would take the CPU from a measurement of a few milliseconds and fail it.

Two lock files, which the workers share (the controller makes their folder): every test
holds the room shared while it runs, a timed test holds it alone. Each passes the gate on its
way in, one at a time, and a timed test waiting for the room keeps the gate shut: the others'
tests, which would otherwise keep slipping in before it, wait behind it."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.marks import Mark

FOLDER_VAR = "GLASSBOX_TEST_LOCKS"


@contextlib.contextmanager
def turn(folder: Path, alone: bool) -> Iterator[None]:
    """Hold the room, shared or `alone`, while the block runs."""
    with (folder / "gate").open("a") as gate, (folder / "room").open("a") as room:
        fcntl.flock(gate, fcntl.LOCK_EX)
        try:
            fcntl.flock(room, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        finally:
            fcntl.flock(gate, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(room, fcntl.LOCK_UN)


class Alone:
    """The plugin: the controller makes the lock folder (and removes it), each worker takes
    its turn around each test."""

    def __init__(self) -> None:
        self.made: Path | None = None

    def pytest_configure(self, config: pytest.Config) -> None:
        workers = config.getoption("numprocesses", default=None)
        if workers and not hasattr(config, "workerinput") and FOLDER_VAR not in os.environ:
            self.made = Path(tempfile.mkdtemp(prefix="glassbox-tests-"))
            os.environ[FOLDER_VAR] = str(self.made)  # the workers start with it

    def pytest_unconfigure(self) -> None:
        if self.made is not None:
            os.environ.pop(FOLDER_VAR, None)
            shutil.rmtree(self.made, ignore_errors=True)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Any:
        folder = os.environ.get(FOLDER_VAR)
        if folder is None or not hasattr(item.config, "workerinput"):
            return (yield)
        with turn(Path(folder), item.get_closest_marker(Mark.TIMED.value) is not None):
            return (yield)
