"""Photos sent together (an album): Telegram delivers each as a message of its own, sharing a
`media_group_id`, one after another and with no word of how many there are. They are
collected here until none has come for `quiet_s`, then handed on together."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from telegram import Message

MAX_KEPT = 10
"""Telegram's most photos in one album; more under one id is not an album."""


class Albums:
    def __init__(self, quiet_s: float = 1.5) -> None:
        self.quiet_s = quiet_s
        self._open: dict[tuple[int, str], list[Message]] = {}
        self._timers: dict[tuple[int, str], asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def add(self, msg: Message, then: Callable[[list[Message]], Awaitable[None]]) -> None:
        """Keep `msg`; once its album is complete, `then(album)` (its messages in order)."""
        assert msg.media_group_id is not None
        key = (msg.chat_id, msg.media_group_id)
        album = self._open.setdefault(key, [])
        if len(album) < MAX_KEPT:
            album.append(msg)
        if key in self._timers:
            self._timers[key].cancel()
        loop = asyncio.get_running_loop()
        self._timers[key] = loop.call_later(self.quiet_s, self._complete, key, then)

    def _complete(self, key: tuple[int, str],
                  then: Callable[[list[Message]], Awaitable[None]]) -> None:
        del self._timers[key]
        album = sorted(self._open.pop(key), key=lambda m: m.message_id)
        task = asyncio.get_running_loop().create_task(then(album))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
