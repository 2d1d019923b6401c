"""The hub: runs as they happen, folded, for the class boards watching their chats (a chat
here is any conversation: a Telegram chat, an API token's scope).

A run listener (bot/runs/listeners.py): it folds each chat's recent runs with the same
`View` as the live message, and stamps every change with a sequence number. A board's event
stream asks `change_after(chat, after)` for what changed after the last number it sent,
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
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field

from agent.events import Event
from bot.store.records import Conversation, RunRecord
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
        self._runs: dict[Conversation, dict[int, LiveRun]] = {}
        self._listed: dict[Conversation, int] = {}
        self._wakers: dict[Conversation, set[asyncio.Event]] = {}
        self._boards: OrderedDict[Conversation, None] = OrderedDict()
        """Chats with a board in use, the one opened last at the end."""
        self._watchers: dict[Conversation, int] = {}
        """Open streams by chat."""
        self._links: OrderedDict[Conversation, str] = OrderedDict()
        """A chat's board link as of its last reset in this process (the LINKS_KEPT last)."""
        self.closed = False
        """The bot is stopping: streams end now instead of holding up the shutdown."""

    def live(self, chat: Conversation) -> list[LiveRun]:
        """The chat's runs in memory, oldest first."""
        return list(self._runs.get(chat, {}).values())

    # --- the boards ---

    def opened(self, chat: Conversation) -> bool:
        """A board of the chat was opened (its page, a run): its finished runs are kept
        from now on. Whether they were already (a stream's Last-Event-ID can be trusted)."""
        kept = chat in self._boards
        self._boards[chat] = None
        self._boards.move_to_end(chat)
        for old in [c for c in self._boards if not self._watchers.get(c)]:
            if len(self._boards) <= BOARDS_KEPT:
                break
            del self._boards[old]
            self._drop_finished(old)
        return kept

    @contextlib.contextmanager
    def watching(self, chat: Conversation) -> Iterator[bool]:
        """An open stream of the chat's board; yields `opened`."""
        self._watchers[chat] = self._watchers.get(chat, 0) + 1
        try:
            yield self.opened(chat)
        finally:
            self._watchers[chat] -= 1
            if not self._watchers[chat]:
                del self._watchers[chat]

    def link_valid(self, chat: Conversation, link: str) -> bool:
        """False once the chat's board was reset to another link while this process ran."""
        return self._links.get(chat, link) == link

    def reset(self, chat: Conversation, link: str) -> None:
        """The chat's board has a new link: streams of any other end now."""
        self._links[chat] = link
        self._links.move_to_end(chat)
        if len(self._links) > LINKS_KEPT:
            self._links.popitem(last=False)
        self._wake(chat)

    # --- a RunListener ---

    def run_started(self, record: RunRecord, remarks: bool) -> None:
        runs = self._runs.setdefault(record.conversation, {})
        view = View(record.mode, "en")  # type: ignore[arg-type]
        view.remarks = remarks
        runs[record.id] = LiveRun(record, view)
        finished = [key for key, run in runs.items() if run.status != "running"]
        for key in finished[:max(0, len(finished) - KEEP_FINISHED)]:
            del runs[key]
        self._changed(record.conversation, runs[record.id], listed=True)

    def run_event(self, record: RunRecord, lane: str, event: Event) -> None:
        run = self._runs.get(record.conversation, {}).get(record.id)
        if run is not None:
            run.view.apply(lane, event)
            self._changed(record.conversation, run)

    def run_finished(self, record: RunRecord, status: str) -> None:
        run = self._runs.get(record.conversation, {}).get(record.id)
        if run is not None:
            run.status = status
            self._changed(record.conversation, run, listed=True)
        if record.conversation not in self._boards:
            self._drop_finished(record.conversation)

    # --- what else changes a board ---

    def forgotten(self, chat: Conversation, run_ids: Collection[int] | None = None) -> None:
        """Runs `run_ids` of the chat (None: every run) were deleted: they leave every
        board."""
        runs = self._runs.get(chat, {})
        for key in run_ids if run_ids is not None else list(runs):
            runs.pop(key, None)
        self._changed(chat, None, listed=True)
        if chat not in self._boards:
            self._drop_finished(chat)

    def close(self) -> None:
        self.closed = True
        for chat in list(self._wakers):
            self._wake(chat)

    async def change_after(self, chat: Conversation, after: int, timeout: float) -> Change | None:
        """What of the chat changed after number `after`, as soon as something has; None
        if nothing did within `timeout` seconds, or the hub was closed."""
        if self.closed:
            return None
        waker = asyncio.Event()
        wakers = self._wakers.setdefault(chat, set())
        wakers.add(waker)
        try:
            change = self._since(chat, after)
            if change is None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(waker.wait(), timeout)
                change = self._since(chat, after)
            return change
        finally:
            wakers.discard(waker)
            if not wakers:
                del self._wakers[chat]

    def _since(self, chat: Conversation, after: int) -> Change | None:
        listed = self._listed.get(chat, 0) > after
        runs = [r for r in self._runs.get(chat, {}).values() if r.seq > after]
        return Change(self.seq, listed, runs) if listed or runs else None

    def _changed(self, chat: Conversation, run: LiveRun | None, *, listed: bool = False) -> None:
        self.seq += 1
        if run is not None:
            run.seq = self.seq
        if listed:
            self._listed[chat] = self.seq
        self._wake(chat)

    def _wake(self, chat: Conversation) -> None:
        for waker in self._wakers.get(chat, ()):
            waker.set()

    def _drop_finished(self, chat: Conversation) -> None:
        """Forget the chat's finished runs (the store has them); the chat too when none
        is left."""
        runs = self._runs.get(chat, {})
        for key in [k for k, run in runs.items() if run.status != "running"]:
            del runs[key]
        if not runs:
            self._runs.pop(chat, None)
            self._listed.pop(chat, None)
