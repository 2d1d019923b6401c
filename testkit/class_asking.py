"""A class asking in their private chats, one question after another, while something else
goes on (an upload being read): who was answered, and how soon. For the fault tests and
bench/upload_storm.py."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from testkit.fakes.telegram import FakeTelegram

CAROL = 333
ANSWER_S = 12.0
"""How long a question may take to be answered while an upload is read: far past a normal
answer here (well under a second), far below what an upload held the database for."""
PAUSE_S = 1.0
"""Between an answer and the asker's next question: the run's slot is freed just after its
answer is on screen, and a question sooner is refused as "still running"."""
ANSWERED = "Answered."


@dataclass
class Asked:
    user: int
    message_id: int
    answered_after: float | None = None


@dataclass
class Class:
    """People asking in their private chats, one question after another, while `busy()`."""

    tg: FakeTelegram
    users: tuple[int, ...]
    answer_s: float = ANSWER_S
    """A question not answered within this long counts as dropped."""
    asked: list[Asked] = field(default_factory=list)

    async def ask_while(self, busy: Callable[[], bool]) -> None:
        await asyncio.gather(*(self._ask(user, busy) for user in self.users))

    async def _ask(self, user: int, busy: Callable[[], bool]) -> None:
        n = 0
        while busy() or n < 2:
            n += 1
            sent = time.monotonic()
            q = Asked(user, self.tg.send(user, user, f"Question {n}: what is {n}+{user}?"))
            self.asked.append(q)
            with contextlib.suppress(AssertionError):
                await self.tg.wait(lambda q=q: self._answered(q), timeout=self.answer_s)
                q.answered_after = time.monotonic() - sent
            await asyncio.sleep(PAUSE_S)

    def _answered(self, q: Asked) -> bool:
        return any(m.reply_to == q.message_id and ANSWERED in m.text and not m.buttons
                   for m in self.tg.bot_messages(q.user))

    def unanswered(self) -> list[Asked]:
        return [q for q in self.asked if q.answered_after is None]
