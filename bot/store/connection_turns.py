"""Whose turn it is to use one of the PostgreSQL pool's connections, and when the pool opens
another.

asyncpg's pool hands a freed connection to whichever statement asks next, so one that just
arrived can take it from one that has waited for seconds; and while its open connections are
all busy, every statement that asks opens one of its unopened slots. On a server with no
connection left for us (a small plan, another instance holding its share during a deploy)
each of those is a refused connect, and the statements waiting for our own connections wait
out their timeout behind the newcomers.

Here statements take turns in the order they came, one per connection the pool has open, and
never open one themselves. While some wait and every open connection is busy, one opener
opens one more (one at a time, up to the pool's size) and hands it to the first in line.
After the server refuses one, none is tried for a back-off that doubles while it keeps
refusing, so statements share the connections the pool has; then one is tried again, and the
pool grows once the server has room.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from wire.wire_errors import GlassboxError

log = logging.getLogger(__name__)

FIRST_BACKOFF_S = 0.5
"""No new connection is tried for this long after one could not be opened; doubled while the
server keeps refusing."""
LONGEST_BACKOFF_S = 30.0


class NoneOpen(GlassboxError):
    """No connection could be opened lately, and the pool has none open to wait for: the
    statement does not wait. `cause`: why the last one could not be opened."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.cause = cause


class ConnectionTurns:
    def __init__(self, most: int, open_now: Callable[[], int],
                 open_one: Callable[[], Awaitable[Any]],
                 put_back: Callable[[Any], Awaitable[None]]) -> None:
        self._most = most
        """The pool's size: connections it may hold at most."""
        self._open_now = open_now
        """How many connections the pool has open (busy or idle)."""
        self._open_one = open_one
        """Opens a connection of the pool and holds it (None: one is idle in the pool already,
        its turn about to end); raises if it could not."""
        self._put_back = put_back
        """Makes a held connection idle in the pool."""
        self._backoff_s = FIRST_BACKOFF_S
        self._grow_at = 0.0
        """No connection is opened before this time (monotonic clock)."""
        self._not_opened: BaseException | None = None
        """Why the last connection could not be opened (None once one has been)."""
        self._taken = 0
        """Turns given and not yet given back (and the connection just opened, until it is
        idle in the pool)."""
        self._waiting: deque[asyncio.Future[None]] = deque()
        self._opener: asyncio.Task[None] | None = None
        self._wake: asyncio.TimerHandle | None = None

    async def take(self) -> None:
        """Wait for a turn, after every statement that asked before: then an idle connection
        is in the pool for it. Cancelled, it holds none. NoneOpen, at once, when there is
        nothing to wait for."""
        if (cause := self._none_open()) is not None:
            raise NoneOpen(cause)
        if self._taken < self._open_now() and not self._waiting:
            self._taken += 1
            return
        turn = asyncio.get_running_loop().create_future()
        self._waiting.append(turn)
        self._grow()
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled() and turn.exception() is None:
                self.give_back()  # given a turn it will not use
            elif turn in self._waiting:
                self._waiting.remove(turn)
            raise

    def give_back(self) -> None:
        """A turn is over: its connection is back in the pool (or it had none)."""
        self._taken -= 1
        self._give()

    async def close(self) -> None:
        if self._wake is not None:
            self._wake.cancel()
        if self._opener is not None:
            self._opener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._opener

    def _none_open(self) -> BaseException | None:
        """Why the last connection could not be opened, when there is nothing to wait for:
        none is open, and none is tried before the back-off ends; else None."""
        if time.monotonic() < self._grow_at and not self._open_now():
            return self._not_opened
        return None

    def _give(self) -> None:
        """Turns to the first in line, one per connection open and not taken."""
        if (cause := self._none_open()) is not None:
            while self._waiting:
                turn = self._waiting.popleft()
                if not turn.done():
                    turn.set_exception(NoneOpen(cause))
            return
        while self._waiting and self._taken < self._open_now():
            turn = self._waiting.popleft()
            if turn.done():  # its statement stopped waiting
                continue
            self._taken += 1
            turn.set_result(None)
        self._grow()

    def _grow(self) -> None:
        """Open one more connection if statements wait, the pool has room, and no back-off
        holds it back."""
        if (self._waiting and self._opener is None and self._open_now() < self._most
                and time.monotonic() >= self._grow_at):
            self._opener = asyncio.create_task(self._open())

    async def _open(self) -> None:
        try:
            conn = await self._open_one()
            if conn is None:
                return  # the turn about to end gives the idle one on
        except Exception as err:
            self._back_off(err)
        else:
            self._not_opened, self._backoff_s = None, FIRST_BACKOFF_S
            await self._make_idle(conn)
        finally:
            self._opener = None
        self._give()

    async def _make_idle(self, conn: Any) -> None:
        """Open and held, a new connection is not for the next in line until it is idle in
        the pool."""
        self._taken += 1
        try:
            await self._put_back(conn)
        except Exception as err:  # (the pool drops a connection it could not reset)
            log.warning("a new connection could not be made idle (%s)", err)
        finally:
            self._taken -= 1

    def _back_off(self, err: Exception) -> None:
        if self._not_opened is None:
            log.warning("the database did not open another connection (%s): statements share"
                        " the %d this process has, and another is tried in %g s",
                        type(err).__name__, self._open_now(), self._backoff_s)
        self._not_opened = err
        wait = self._backoff_s
        self._grow_at = time.monotonic() + wait
        self._backoff_s = min(wait * 2, LONGEST_BACKOFF_S)
        if self._wake is not None:
            self._wake.cancel()
        self._wake = asyncio.get_running_loop().call_later(wait, self._give)
