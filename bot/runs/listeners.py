"""Who else hears a run as it happens, beside the chat: the class board's hub, the metrics.

`Runs` tells its `Listeners` when a run starts, each event as it arrives (already stored),
and how it ended. A listener is called in the run's task and must not block; one that
raises is logged and the run goes on, so a broken board never costs a chat its answer.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol

from agent.events import Event
from bot.store.records import RunRecord

log = logging.getLogger(__name__)


class RunListener(Protocol):
    def run_started(self, record: RunRecord, remarks: bool) -> None:
        """`remarks`: whether the run's chat shows Glassbox's remarks (a board draws it so)."""

    def run_event(self, record: RunRecord, lane: str, event: Event) -> None: ...

    def run_finished(self, record: RunRecord, status: str) -> None: ...


class Listeners:
    """Every listener of every run, called in the order they were added."""

    def __init__(self, *listeners: RunListener) -> None:
        self._listeners = list(listeners)

    def add(self, listener: RunListener) -> None:
        self._listeners.append(listener)

    def remove(self, listener: RunListener) -> None:
        self._listeners.remove(listener)

    def run_started(self, record: RunRecord, remarks: bool) -> None:
        for listener in self._listeners:
            _guarded(listener.run_started, record, remarks)

    def run_event(self, record: RunRecord, lane: str, event: Event) -> None:
        for listener in self._listeners:
            _guarded(listener.run_event, record, lane, event)

    def run_finished(self, record: RunRecord, status: str) -> None:
        for listener in self._listeners:
            _guarded(listener.run_finished, record, status)


def _guarded(call: Callable[..., None], *args: Any) -> None:
    try:
        call(*args)
    except Exception:
        log.exception("a run listener failed; the run goes on")
