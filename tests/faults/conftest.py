"""Fixtures of the fault suite (the harness is in kit.py)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bot.store import db
from testkit.botkit import Glassbox
from tests.faults.kit import glassbox


@pytest.fixture
async def gb(tmp_path: Path) -> AsyncIterator[Glassbox]:
    """Overrides tests/conftest.py's `gb`: the fault harness's bot (kit.glassbox), against
    a FaultyTelegram, with a short Bot API timeout and the `add` tool. The cases that need
    other settings call kit.glassbox themselves."""
    async with glassbox(tmp_path) as bot:
        yield bot


@pytest.fixture
def no_crash(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """Fails the test if anything was logged as an error (a handler that raised, a page
    Telegram refused)."""
    caplog.set_level(logging.INFO)
    yield
    errors = [r.getMessage() for when in ("setup", "call")
              for r in caplog.get_records(when) if r.levelno >= logging.ERROR]
    assert errors == []


@pytest.fixture
def short_busy_timeout(monkeypatch: pytest.MonkeyPatch) -> float:
    """The store's SQLite busy timeout for a bot started in this process, cut from 5 s to
    0.3 s: a test holding the write lock past it waits that long. Its seconds."""
    monkeypatch.setattr(db, "BUSY_TIMEOUT_MS", 300)
    return db.BUSY_TIMEOUT_MS / 1000
