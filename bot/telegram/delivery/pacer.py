"""The per-chat send rate every live message in a chat shares.

Telegram allows about one message a second per chat, 20 a minute in a group and 30 a
second overall, and answers 429 `retry_after` beyond that. A group may spend its minute's
20 messages in a burst (still one a second), so a single answer is not held back by a
spread-out send rate; a class asking at once still gets 20 a minute. Each chat takes turns on
its own clock, so a busy or penalised chat never slows another one.
Waiters in a chat are served by priority, then first come, first served: a run's final
state before drafts, drafts before the bot's notices (a refusal, a usage hint), so no pile
of notices holds an answer back. A priority is asked again whenever a turn is handed on,
so a draft that became the final state while it waited moves up. Whoever holds the turn
while it waits for the send rate gives it up if someone more urgent arrived meanwhile.
The next call in a chat may start `interval` after the previous one *finished*, so the
gap Telegram sees is never shorter than the one we meant. A run's final state alone may use
Telegram's short burst (`chat_burst`): it goes at once, without waiting out the second a
draft just took, so an answer lands a call's latency after the model's last token, not up
to a second later. Each chat's calls are paced as a token bucket (GCRA: `ready_at` is when
the bucket is full again less one token), drafts keeping to one a second, so the burst is
there whenever a final state comes; a waiter whose draft became the final state is woken
(`urgent`) to use it.
Across chats, Telegram's 30 a second for the whole bot is shared by priority too (see
send rate): whoever holds a chat's turn asks for a global place with the priority of the most
urgent waiter in that chat, so a final state never waits behind other runs' drafts.
In a group, a run's first message or draft goes only if the group's window still keeps
FINAL_PLACES places for every running run's final state (a long answer's final state edits
or sends each of its pages); otherwise it is skipped (the run shows its newest state at its
next change), so under pressure a class gets fewer drafts, not later answers.
A group where BUSY_GROUP_RUNS or more runs go at once is a class asking together: there no
first message or draft goes at all, so each answer costs the group's 20 a minute one
message (40 answers fit two windows; one message more costs the last answer a whole
minute). A run's first message in a group waits `group_first_delay_s` after it opened, so
the first question of a class sees the others arrive before it spends a place.
Across chats, drafts thin out as the number of running runs grows: a run's next draft (not
its first message) goes only `running runs ÷ 30` seconds after its chat's last call, so all
runs' drafts together stay within Telegram's 30 a second instead of queueing for it (with
1,000 runs, a run shows a new state about every 33 s; with 30 or fewer, every second). A
draft too soon is skipped, not held: the run's next change tries again, and its final
state always goes.
"""

from __future__ import annotations

import asyncio
import itertools
import math
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace

from bot.telegram.delivery.priority import Priority
from bot.telegram.delivery.send_rate import SendRate

BUSY_GROUP_RUNS = 3
"""Runs at once in one group from which it counts as a class asking together (no drafts):
three live runs make about 18 messages a minute, the group's whole 20."""
FINAL_PLACES = 3
"""Places a group's window keeps for each running run's final state: enough for an answer of
three pages (about 12,000 characters), so that its drafts never make its last page wait for
the window to slide (with one place, a two-page answer's last page would wait for it)."""


@dataclass(frozen=True, slots=True)
class Limits:
    chat_interval_s: float = 1.0
    chat_burst: int = 2
    """Calls a chat's final state may make back to back (the rest keep `chat_interval_s`).
    Telegram's bot FAQ: "avoid sending more than one message per second" in a chat, "we may
    allow short bursts that go over this limit, but eventually you'll begin receiving 429
    errors"; two is the smallest burst, and only a final state (at most once a run) uses it."""
    group_per_window: int = 20
    group_window_s: float = 60.0
    global_per_window: int = 30
    global_window_s: float = 1.0
    group_first_delay_s: float = 1.0
    """A run's first message in a group goes no sooner than this after the run opened."""
    notice_cooldown_s: float = 30.0
    """Notices to one sender in one chat: at most one per this long (the rest are dropped)."""

    def scaled(self, factor: float) -> Limits:
        """The same limits on a faster clock (tests run minutes of traffic in a second)."""
        return replace(self, chat_interval_s=self.chat_interval_s * factor,
                       group_window_s=self.group_window_s * factor,
                       global_window_s=self.global_window_s * factor,
                       group_first_delay_s=self.group_first_delay_s * factor,
                       notice_cooldown_s=self.notice_cooldown_s * factor)


@dataclass
class Turn:
    send_rate: SendRate
    priority: Callable[[], int]
    allowed: bool = True
    """False: a draft the group has no room for; make no call, wait for the next change."""
    retry_at: float | None = None
    """When not allowed: a time (monotonic) from which it may be, if nothing changes first."""
    used: bool = False

    async def use(self) -> None:
        """Call before the API call; a turn not used costs no place."""
        await self.send_rate.take(self.priority)
        self.used = True


@dataclass(eq=False)
class _Waiter:
    priority: Callable[[], Priority]
    order: int
    granted: asyncio.Future[None]
    opened_at: float = 0.0

    def rank(self) -> tuple[int, int]:
        return self.priority(), self.order


@dataclass
class _Chat:
    holder: _Waiter | None = None
    waiting: list[_Waiter] = field(default_factory=list)
    ready_at: float = 0.0
    """The token bucket's theoretical time: a call at `interval` spacing may go from here, a
    final state `(chat_burst - 1) × interval` earlier."""
    penalty_until: float = 0.0
    """Telegram said 429: nothing goes here before this, burst or not."""
    wake: asyncio.Future[None] | None = None
    """Set while the turn's holder sleeps for the send rate: `urgent` cuts the sleep short."""
    sent: deque[float] = field(default_factory=deque)
    """When this group's calls of the last window finished."""
    running: int = 0
    """Live messages here whose final state is still to come."""
    last_done: float = 0.0
    """When this chat's last call finished."""

    def most_urgent(self) -> _Waiter | None:
        return min(self.waiting, key=_Waiter.rank, default=None)

    def most_urgent_rank(self) -> tuple[int, int]:
        rival = self.most_urgent()
        return rival.rank() if rival is not None else (len(Priority), 0)


class Pacer:
    def __init__(self, limits: Limits | None = None,
                 on_wait: Callable[[int, float], None] = lambda chat_id, seconds: None) -> None:
        """`on_wait(chat_id, seconds)`: told how long each turn waited (for /metrics)."""
        self.limits = limits or Limits()
        self.on_wait = on_wait
        self._chats: dict[int, _Chat] = {}
        self.send_rate = SendRate(self.limits.global_per_window, self.limits.global_window_s)
        self._order = itertools.count()
        self._running = 0
        """Live messages of runs, in all chats."""

    def opened(self, chat_id: int) -> None:
        """A run's live message started here: keep a place for its final state."""
        self._chats.setdefault(chat_id, _Chat()).running += 1
        self._running += 1

    def closed(self, chat_id: int) -> None:
        """That live message delivered its final state (or gave up)."""
        self._chats[chat_id].running -= 1
        self._running -= 1

    @asynccontextmanager
    async def turn(self, chat_id: int,
                   priority: Callable[[], Priority] = lambda: Priority.FINAL,
                   opened_at: float = 0.0) -> AsyncIterator[Turn]:
        """Wait for this chat's next slot; the body makes at most one API call.
        `priority` is asked each time the turn is handed on (it may change meanwhile);
        `opened_at`: when the run's live message opened (its first message in a group waits)."""
        chat = self._chats.setdefault(chat_id, _Chat())
        me = _Waiter(priority, next(self._order), asyncio.get_running_loop().create_future(),
                     opened_at)
        asked = time.monotonic()
        retry_at = await self._acquire(chat, chat_id, me)
        self.on_wait(chat_id, time.monotonic() - asked)
        turn = Turn(self.send_rate, lambda: min(me.rank(), chat.most_urgent_rank())[0],
                    retry_at is None, retry_at)
        try:
            yield turn
        finally:
            if turn.used:
                self.send_rate.release()
                done = chat.last_done = time.monotonic()
                chat.ready_at = max(chat.ready_at, done) + self.limits.chat_interval_s
                if chat_id < 0:
                    chat.sent.append(done)
            self._release(chat)

    async def _acquire(self, chat: _Chat, chat_id: int, me: _Waiter) -> float | None:
        """Hold the chat's turn once its send rate allows a call and no one more urgent waits
        (None). A draft with no room (see `_room_for_draft`) returns at once with when it
        may be tried again without a change (infinity: only after a change)."""
        while True:
            if chat.holder is None and not chat.waiting:
                chat.holder = me
            else:
                chat.waiting.append(me)
                try:
                    await me.granted
                except BaseException:
                    self._abandon(chat, me)
                    raise
                me.granted = asyncio.get_running_loop().create_future()
            if (retry_at := self._room_for_draft(chat, chat_id, me)) is not None:
                return retry_at
            try:
                await self._sleep_for_chat(chat, me)
                if chat_id < 0:
                    await _window_slot(chat.sent, self.limits.group_per_window,
                                       self.limits.group_window_s)
            except BaseException:
                self._release(chat)
                raise
            rival = chat.most_urgent()
            if rival is None or rival.rank() >= me.rank():
                return self._room_for_draft(chat, chat_id, me)
            self._release(chat)  # someone more urgent came while we waited: after them

    async def _sleep_for_chat(self, chat: _Chat, me: _Waiter) -> None:
        """Sleep until the chat's bucket allows a call for the most urgent of `me` and the
        waiters (one that is more urgent takes the turn after): a final state may burst.
        Woken early by `urgent` (a priority may have become FINAL meanwhile)."""
        loop = asyncio.get_running_loop()
        while (delay := self._ready_for(chat, min(me.rank(), chat.most_urgent_rank())[0])
               - time.monotonic()) > 0:
            wake = chat.wake = loop.create_future()
            timer = loop.call_later(delay, _settle, wake)
            try:
                await wake
            finally:
                timer.cancel()
                chat.wake = None

    def _ready_for(self, chat: _Chat, priority: int) -> float:
        """When a call of this priority may go in this chat."""
        slack = (self.limits.chat_burst - 1) * self.limits.chat_interval_s \
            if priority == Priority.FINAL else 0.0
        return max(chat.ready_at - slack, chat.penalty_until)

    def urgent(self, chat_id: int) -> None:
        """A live message here now waits with its final state: if the chat's turn sleeps for
        the send rate, it looks again (a final state may burst)."""
        chat = self._chats.get(chat_id)
        if chat is not None and chat.wake is not None:
            _settle(chat.wake)

    def _room_for_draft(self, chat: _Chat, chat_id: int, me: _Waiter) -> float | None:
        """None if a draft may go now: not sooner than the drafts' share of the global
        send rate allows, and in a group only if it is not a class asking together, not a
        run's first message too soon after it opened, and the window keeps a place for every
        running run's final state after this call (a final state and a notice always go).
        Otherwise when it may be tried again without a change (infinity: after one)."""
        priority, now = me.priority(), time.monotonic()
        gap = self._draft_gap_s()
        if priority == Priority.DRAFT and gap > self.limits.chat_interval_s \
                and now - chat.last_done < gap:
            return math.inf
        if chat_id >= 0 or priority not in (Priority.FIRST, Priority.DRAFT):
            return None
        if chat.running >= BUSY_GROUP_RUNS:
            return math.inf
        if priority == Priority.FIRST and now < me.opened_at + self.limits.group_first_delay_s:
            return me.opened_at + self.limits.group_first_delay_s
        window = self.limits.group_window_s
        recent = sum(now - at < window for at in chat.sent)
        room = self.limits.group_per_window - recent - 1 >= chat.running * FINAL_PLACES
        return None if room else math.inf

    def _draft_gap_s(self) -> float:
        """The least time between a chat's calls for a draft: all running runs drafting at
        this pace stay within the global send rate."""
        return (self._running / self.limits.global_per_window) * self.limits.global_window_s

    def _abandon(self, chat: _Chat, me: _Waiter) -> None:
        """A waiter was cancelled: out of the queue, or hand on the turn it was just given."""
        if me in chat.waiting:
            chat.waiting.remove(me)
        elif chat.holder is me:
            self._release(chat)

    def _release(self, chat: _Chat) -> None:
        """Hand the turn to the most urgent waiter (skipping one cancelled meanwhile)."""
        while True:
            nxt = chat.holder = chat.most_urgent()
            if nxt is None:
                return
            chat.waiting.remove(nxt)
            if not nxt.granted.done():
                nxt.granted.set_result(None)
                return

    def penalise(self, chat_id: int, retry_after_s: float) -> None:
        """Telegram said 429 for this chat: nothing goes there before `retry_after_s`."""
        chat = self._chats.setdefault(chat_id, _Chat())
        until = time.monotonic() + retry_after_s
        chat.penalty_until = max(chat.penalty_until, until)
        chat.ready_at = max(chat.ready_at, until)


async def _window_slot(times: deque[float], most: int, window: float) -> None:
    """Wait until fewer than `most` of `times` fall in the last `window` seconds."""
    while True:
        now = time.monotonic()
        while times and now - times[0] >= window:
            times.popleft()
        if len(times) < most:
            return
        await asyncio.sleep(times[0] + window - now)


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
