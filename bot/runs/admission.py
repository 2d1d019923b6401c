"""Admission: at most `limit` runs at once; past it a question waits in a queue that is
fair across chats (round robin: one chat's forty questions do not starve another chat's
one), and its message says how many are ahead. A run that waits for people (a class's vote,
a step's decision) computes nothing meanwhile: it gives its place to the next question and
takes one again, ahead of new questions, to go on.

One process serves about this many runs at once before the event loop, not the model,
sets the pace (docs/scaling.md); beyond it more concurrent runs only make every answer
later."""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict, deque
from collections.abc import AsyncIterator

from bot.store.records import Conversation


class Ticket:
    """One question's place: admitted at once, or waiting in its chat's queue."""

    def __init__(self, admission: Admission, chat: Conversation) -> None:
        self.admission, self.chat = admission, chat
        self.granted = asyncio.get_running_loop().create_future()
        self.holding = False
        """Whether it counts among the runs running now (not while it waits for people)."""
        self._released = False

    @property
    def admitted(self) -> bool:
        return self.granted.done()

    def ahead(self) -> int:
        """How many queued questions will start before this one."""
        return self.admission.ahead(self)

    async def wait(self, cancel: asyncio.Event) -> None:
        """Until admitted, or `cancel` is set (then the question leaves the queue)."""
        stop = asyncio.create_task(cancel.wait())
        try:
            await asyncio.wait({self.granted, stop}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
        if not self.admitted:
            self.release()

    def release(self) -> None:
        """The run ended (or left the queue): its place goes to the next question."""
        if not self._released:
            self._released = True
            self.admission.release(self)

    @contextlib.asynccontextmanager
    async def away(self) -> AsyncIterator[None]:
        """While the run waits for people: its place is the next question's meanwhile, and
        it takes one again to go on (at once if there is room, else before any question
        that waits). A run stopped meanwhile ends without one: it has nothing left to
        compute."""
        if not self.holding or self._released:
            yield
            return
        self.admission.leave(self)
        stopped = False
        try:
            yield
        except asyncio.CancelledError:
            stopped = True
            raise
        finally:
            if not stopped:
                await self.admission.rejoin(self)


class Admission:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.running = 0
        self._queues: OrderedDict[Conversation, deque[Ticket]] = OrderedDict()
        """Chats with questions waiting, the one to serve next first."""
        self._returning: deque[tuple[Ticket, asyncio.Future[None]]] = deque()
        """Runs back from waiting for people, served before any question that waits."""

    def ticket(self, chat: Conversation) -> Ticket:
        """A place for a new question in conversation `chat`: admitted now if there is room."""
        ticket = Ticket(self, chat)
        if self.running < self.limit and not self._queues and not self._returning:
            self._hold(ticket)
            ticket.granted.set_result(None)
        else:
            self._queues.setdefault(chat, deque()).append(ticket)
        return ticket

    def ahead(self, ticket: Ticket) -> int:
        """Round robin from the next chat: `k` ahead in its own chat means up to k + 1 from
        each chat served before it in this round, up to k from each one after."""
        queue = self._queues.get(ticket.chat)
        if queue is None or ticket not in queue:
            return 0
        k = queue.index(ticket)
        count, before = k + len(self._returning), True
        for chat, other in self._queues.items():
            if chat == ticket.chat:
                before = False
                continue
            count += min(len(other), k + 1 if before else k)
        return count

    def release(self, ticket: Ticket) -> None:
        if ticket.holding:
            ticket.holding = False
            self.running -= 1
        elif not ticket.admitted:
            queue = self._queues.get(ticket.chat)
            if queue is not None:
                with contextlib.suppress(ValueError):
                    queue.remove(ticket)
                if not queue:
                    del self._queues[ticket.chat]
        self._admit()

    def leave(self, ticket: Ticket) -> None:
        """`ticket`'s run waits for people: its place is free until it rejoins."""
        ticket.holding = False
        self.running -= 1
        self._admit()

    async def rejoin(self, ticket: Ticket) -> None:
        """`ticket`'s run goes on: until it has a place again."""
        if self.running < self.limit and not self._returning:
            self._hold(ticket)
            return
        back = asyncio.get_running_loop().create_future()
        self._returning.append((ticket, back))
        try:
            await back
        except asyncio.CancelledError:
            if not back.done() or back.cancelled():  # stopped before its turn came
                with contextlib.suppress(ValueError):
                    self._returning.remove((ticket, back))
            raise

    def _hold(self, ticket: Ticket) -> None:
        ticket.holding = True
        self.running += 1

    def _admit(self) -> None:
        while self.running < self.limit and self._returning:
            ticket, back = self._returning.popleft()
            if not back.done():
                self._hold(ticket)
                back.set_result(None)
        while self.running < self.limit and self._queues:
            chat, queue = next(iter(self._queues.items()))
            ticket = queue.popleft()
            del self._queues[chat]
            if queue:
                self._queues[chat] = queue  # to the back of the round
            self._hold(ticket)
            ticket.granted.set_result(None)
