"""The hub: runs as they happen, folded, for the class boards watching their chats.

A run listener (bot/runs/listeners.py): it folds each chat's recent runs with the same
`View` as the live message, and stamps every change with a sequence number. A board's event
stream asks `change_after(chat_id, after)` for what changed after the last number it sent,
so a slow board skips intermediate states (it is sent the newest), and a reconnecting one
that says where it was (Last-Event-ID) gets what it missed and nothing twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from dataclasses import dataclass, field

from agent.events import Event
from bot.store.records import RunRecord
from bot.view.transcript import View

KEEP_FINISHED = 12
"""Finished runs a chat's hub keeps in memory (earlier ones come from the store)."""


@dataclass
class LiveRun:
    record: RunRecord
    view: View
    status: str = "running"
    seq: int = 0
    """The hub's sequence number at this run's last change."""


@dataclass
class Change:
    seq: int
    """Everything up to this number is in it."""
    listed: bool
    """The chat's list of runs changed (a run started, ended or was forgotten)."""
    runs: list[LiveRun] = field(default_factory=list)
    """The runs that changed, oldest first."""


class Hub:
    def __init__(self) -> None:
        self.boot = secrets.token_hex(4)
        """Names this process's numbering, so a board reconnecting after a restart starts
        afresh instead of trusting numbers from before it."""
        self.seq = 0
        self._runs: dict[int, dict[int, LiveRun]] = {}
        self._listed: dict[int, int] = {}
        self._wakers: dict[int, set[asyncio.Event]] = {}
        self.closed = False
        """The bot is stopping: streams end now instead of holding up the shutdown."""

    def live(self, chat_id: int) -> list[LiveRun]:
        """The chat's runs in memory, oldest first."""
        return list(self._runs.get(chat_id, {}).values())

    # --- a RunListener ---

    def run_started(self, record: RunRecord, notes: bool) -> None:
        runs = self._runs.setdefault(record.chat_id, {})
        view = View(record.mode, "en")  # type: ignore[arg-type]
        view.notes = notes
        runs[record.id] = LiveRun(record, view)
        finished = [key for key, run in runs.items() if run.status != "running"]
        for key in finished[:max(0, len(finished) - KEEP_FINISHED)]:
            del runs[key]
        self._changed(record.chat_id, runs[record.id], listed=True)

    def run_event(self, record: RunRecord, lane: str, event: Event) -> None:
        run = self._runs.get(record.chat_id, {}).get(record.id)
        if run is not None:
            run.view.apply(lane, event)
            self._changed(record.chat_id, run)

    def run_finished(self, record: RunRecord, status: str) -> None:
        run = self._runs.get(record.chat_id, {}).get(record.id)
        if run is not None:
            run.status = status
            self._changed(record.chat_id, run, listed=True)

    # --- what else changes a board ---

    def forgotten(self, chat_id: int, run_id: int | None = None) -> None:
        """Run `run_id` of the chat (None: every run) was deleted: it leaves every board."""
        runs = self._runs.get(chat_id, {})
        for key in [run_id] if run_id is not None else list(runs):
            runs.pop(key, None)
        self._changed(chat_id, None, listed=True)

    def close(self) -> None:
        self.closed = True
        for wakers in self._wakers.values():
            for waker in wakers:
                waker.set()

    async def change_after(self, chat_id: int, after: int, timeout: float) -> Change | None:
        """What of the chat changed after number `after`, as soon as something has; None
        if nothing did within `timeout` seconds, or the hub was closed."""
        if self.closed:
            return None
        waker = asyncio.Event()
        wakers = self._wakers.setdefault(chat_id, set())
        wakers.add(waker)
        try:
            change = self._since(chat_id, after)
            if change is None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(waker.wait(), timeout)
                change = self._since(chat_id, after)
            return change
        finally:
            wakers.discard(waker)

    def _since(self, chat_id: int, after: int) -> Change | None:
        listed = self._listed.get(chat_id, 0) > after
        runs = [r for r in self._runs.get(chat_id, {}).values() if r.seq > after]
        return Change(self.seq, listed, runs) if listed or runs else None

    def _changed(self, chat_id: int, run: LiveRun | None, *, listed: bool = False) -> None:
        self.seq += 1
        if run is not None:
            run.seq = self.seq
        if listed:
            self._listed[chat_id] = self.seq
        for waker in self._wakers.get(chat_id, ()):
            waker.set()
