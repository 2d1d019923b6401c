"""Drives a run's step generator in its own task, so a run can be stopped cleanly.

Stopping (the `cancel` event, or cancelling the consumer) cancels the task: model
streams and tool calls are abandoned, and the run still ends with a RunFinished.
Nothing is left running afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from agent.events import Event, RunFinished, Status, Usage
from agent.words import say

log = logging.getLogger(__name__)


@dataclass
class RunStats:
    """What a run has used so far; the step generator keeps it current."""

    started: float = field(default_factory=time.monotonic)
    usage: Usage = field(default_factory=Usage)
    rounds: int = 0
    tool_calls: int = 0

    def finished(self, status: Status, reason: str = "", error_kind: str = "") -> RunFinished:
        return RunFinished(
            round=self.rounds,
            status=status,
            usage=self.usage,
            duration_ms=int((time.monotonic() - self.started) * 1000),
            rounds=self.rounds,
            tool_calls=self.tool_calls,
            reason=reason,
            error_kind=error_kind,
        )


_END = object()


async def drive(
    steps: AsyncIterator[Event],
    stats: RunStats,
    lang: str,
    cancel: asyncio.Event | None = None,
) -> AsyncIterator[Event]:
    """Yield the events of `steps`, ending with a RunFinished whatever happens."""
    queue: asyncio.Queue[object] = asyncio.Queue()

    async def pump() -> None:
        try:
            async for event in steps:
                queue.put_nowait(event)
        except asyncio.CancelledError:
            queue.put_nowait(stats.finished(
                "cancelled", say(lang, "run_stopped"), "cancelled"))
        except Exception:
            log.exception("run failed with an unexpected error")
            queue.put_nowait(stats.finished(
                "error", say(lang, "run_internal_error"), "internal"))
        finally:
            queue.put_nowait(_END)

    task = asyncio.create_task(pump())
    watcher = asyncio.create_task(_cancel_when(cancel, task)) if cancel else None
    try:
        while (item := await queue.get()) is not _END:
            yield item  # type: ignore[misc]
    finally:
        for t in (task, watcher):
            if t is not None and not t.done():
                t.cancel()
        for t in (task, watcher):
            if t is not None:
                with contextlib.suppress(asyncio.CancelledError):
                    await t


async def _cancel_when(cancel: asyncio.Event, task: asyncio.Task[None]) -> None:
    await cancel.wait()
    task.cancel()
