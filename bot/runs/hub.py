"""The hub: runs as they happen, folded, for the class boards watching their chats.

A run listener (bot/runs/listeners.py): it folds each chat's recent runs with the same
`View` as the live message, and stamps every change with a sequence number. A board's event
stream asks `change_after(chat_id, after)` for what changed after the last number it sent,
so a slow board skips intermediate states (it is sent the newest), and a reconnecting one
that says where it was (Last-Event-ID) gets what it missed and nothing twice.

It keeps a chat's finished runs only while the chat has a board in use: one watched now, or
among the BOARDS_KEPT opened last. Any other chat's run leaves the hub when it ends (a board
opened later reads it from the store), so chats that never open a board cost nothing once
their runs end.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field

from agent.events import Event
from bot.store.records import RunRecord
from bot.view.transcript import View

KEEP_FINISHED = 12
"""Finished runs a chat's hub keeps in memory (earlier ones come from the store)."""
BOARDS_KEPT = 64
"""Chats whose boards were opened last that keep their finished runs when no board watches
them now (for a board reconnecting). Watched chats keep theirs however many there are."""
LINKS_KEPT = 4096
"""Board resets remembered, so a stream of an old link that starts after the reset ends too
(one open at the reset is ended then)."""


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
        self._boards: OrderedDict[int, None] = OrderedDict()
        """Chats with a board in use, the one opened last at the end."""
        self._watchers: dict[int, int] = {}
        """Open streams by chat."""
        self._links: OrderedDict[int, str] = OrderedDict()
        """A chat's board link as of its last reset in this process (the LINKS_KEPT last)."""
        self.closed = False
        """The bot is stopping: streams end now instead of holding up the shutdown."""

    def live(self, chat_id: int) -> list[LiveRun]:
        """The chat's runs in memory, oldest first."""
        return list(self._runs.get(chat_id, {}).values())

    # --- the boards ---

    def opened(self, chat_id: int) -> bool:
        """A board of the chat was opened (its page, a run): its finished runs are kept
        from now on. Whether they were already (a stream's Last-Event-ID can be trusted)."""
        kept = chat_id in self._boards
        self._boards[chat_id] = None
        self._boards.move_to_end(chat_id)
        for old in [c for c in self._boards if not self._watchers.get(c)]:
            if len(self._boards) <= BOARDS_KEPT:
                break
            del self._boards[old]
            self._drop_finished(old)
        return kept

    @contextlib.contextmanager
    def watching(self, chat_id: int) -> Iterator[bool]:
        """An open stream of the chat's board; yields `opened`."""
        self._watchers[chat_id] = self._watchers.get(chat_id, 0) + 1
        try:
            yield self.opened(chat_id)
        finally:
            self._watchers[chat_id] -= 1
            if not self._watchers[chat_id]:
                del self._watchers[chat_id]

    def link_valid(self, chat_id: int, link: str) -> bool:
        """False once the chat's board was reset to another link while this process ran."""
        return self._links.get(chat_id, link) == link

    def reset(self, chat_id: int, link: str) -> None:
        """The chat's board has a new link: streams of any other end now."""
        self._links[chat_id] = link
        self._links.move_to_end(chat_id)
        if len(self._links) > LINKS_KEPT:
            self._links.popitem(last=False)
        self._wake(chat_id)

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
        if record.chat_id not in self._boards:
            self._drop_finished(record.chat_id)

    # --- what else changes a board ---

    def forgotten(self, chat_id: int, run_id: int | None = None) -> None:
        """Run `run_id` of the chat (None: every run) was deleted: it leaves every board."""
        runs = self._runs.get(chat_id, {})
        for key in [run_id] if run_id is not None else list(runs):
            runs.pop(key, None)
        self._changed(chat_id, None, listed=True)
        if chat_id not in self._boards:
            self._drop_finished(chat_id)

    def close(self) -> None:
        self.closed = True
        for chat_id in list(self._wakers):
            self._wake(chat_id)

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
            if not wakers:
                del self._wakers[chat_id]

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
        self._wake(chat_id)

    def _wake(self, chat_id: int) -> None:
        for waker in self._wakers.get(chat_id, ()):
            waker.set()

    def _drop_finished(self, chat_id: int) -> None:
        """Forget the chat's finished runs (the store has them); the chat too when none
        is left."""
        runs = self._runs.get(chat_id, {})
        for key in [k for k, run in runs.items() if run.status != "running"]:
            del runs[key]
        if not runs:
            self._runs.pop(chat_id, None)
            self._listed.pop(chat_id, None)
