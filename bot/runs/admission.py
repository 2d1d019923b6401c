"""Admission: at most `limit` runs at once; past it a question waits in a queue that is
fair across chats (round robin: one chat's forty questions do not starve another chat's
one), and its message says how many are ahead.

One process serves about this many runs at once before the event loop, not the model,
sets the pace (docs/scaling.md); beyond it more concurrent runs only make every answer
later."""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict, deque

from bot.store.records import Conversation


class Ticket:
    """One question's place: admitted at once, or waiting in its chat's queue."""

    def __init__(self, admission: Admission, chat: Conversation) -> None:
        self.admission, self.chat = admission, chat
        self.granted = asyncio.get_running_loop().create_future()
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


class Admission:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.running = 0
        self._queues: OrderedDict[Conversation, deque[Ticket]] = OrderedDict()
        """Chats with questions waiting, the one to serve next first."""

    def ticket(self, chat: Conversation) -> Ticket:
        """A place for a new question in conversation `chat`: admitted now if there is room."""
        ticket = Ticket(self, chat)
        if self.running < self.limit and not self._queues:
            self.running += 1
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
        count, before = k, True
        for chat, other in self._queues.items():
            if chat == ticket.chat:
                before = False
                continue
            count += min(len(other), k + 1 if before else k)
        return count

    def release(self, ticket: Ticket) -> None:
        if ticket.admitted:
            self.running -= 1
        else:
            queue = self._queues.get(ticket.chat)
            if queue is not None:
                with contextlib.suppress(ValueError):
                    queue.remove(ticket)
                if not queue:
                    del self._queues[ticket.chat]
        self._admit()

    def _admit(self) -> None:
        while self.running < self.limit and self._queues:
            chat, queue = next(iter(self._queues.items()))
            ticket = queue.popleft()
            del self._queues[chat]
            if queue:
                self._queues[chat] = queue  # to the back of the round
            self.running += 1
            ticket.granted.set_result(None)
