"""The course's pictures drawn off the event loop: matplotlib holds the GIL for most of a
picture's CPU, which in a thread would hold up every other chat's answers; in a
process of its own (bot/course/draw_worker.py, started at the first picture and kept) it
costs the bot nothing but the wait.

Bounded: one drawing process (a 2-core school server keeps a core for the answers), one
picture at a time per chat (the same teacher tapping /stats twice waits for the first),
at most MOST_WAITING pictures waiting or drawn, each given TIMEOUT_S, after which its
process is killed and the next picture starts a new one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from typing import Any

from bot.course.chart_labels import Chart
from bot.course.course_figures import CourseFigures
from bot.worker_process import Worker, WorkerError, WorkerFailed
from wire.wire_errors import GlassboxError

log = logging.getLogger(__name__)
MOST_WAITING = 8
TIMEOUT_S = 60.0
WARM_AFTER_S = 30.0
"""How long after the bot's start the drawing process is warmed up: not during the start,
which on two cores it would slow by a second of CPU (and a bot stopped before then never
pays for it)."""


class AlreadyDrawing(GlassboxError):
    """This chat's previous picture is still being drawn."""


class TooBusy(GlassboxError):
    """MOST_WAITING pictures wait already."""


class DrawingFailed(GlassboxError):
    """The drawing process failed, died or took longer than TIMEOUT_S."""


class Drawing:
    def __init__(self, most_waiting: int = MOST_WAITING, timeout_s: float = TIMEOUT_S) -> None:
        self.most_waiting, self.timeout_s = most_waiting, timeout_s
        self._worker = Worker("bot.course.draw_worker", name="course pictures'")
        self._drawing: set[Hashable] = set()
        self._warming: asyncio.Task[None] | None = None

    def warm_up(self) -> None:
        """Start the drawing process WARM_AFTER_S from now, in the background, and have it
        load matplotlib and its fonts and draw a first small picture (chart.warm): the first
        import after an install builds matplotlib's font cache, which with Noto CJK takes
        seconds; paid soon after the start, it does not hold up the first /stats."""
        if self._warming is None:
            self._warming = asyncio.create_task(self._warm())

    async def _warm(self) -> None:
        await asyncio.sleep(WARM_AFTER_S)
        with contextlib.suppress(DrawingFailed):  # logged; the first picture starts anew
            await self._draw("warm")

    @contextmanager
    def turn(self, key: Hashable) -> Iterator[None]:
        """Hold `key`'s (a chat's) one turn while its figures are counted and drawn:
        AlreadyDrawing while it holds one, TooBusy when MOST_WAITING do."""
        if key in self._drawing:
            raise AlreadyDrawing
        if len(self._drawing) >= self.most_waiting:
            raise TooBusy
        self._drawing.add(key)
        try:
            yield
        finally:
            self._drawing.discard(key)

    async def picture(self, figures: CourseFigures, lang: str) -> bytes:
        """The PNG of every chart (chart.picture)."""
        return await self._draw("picture", figures, lang)

    async def svgs(self, figures: CourseFigures, lang: str) -> dict[Chart, str]:
        """Each chart as SVG (chart.svgs)."""
        return await self._draw("svgs", figures, lang)

    async def font(self) -> tuple[str, str]:
        """The CJK font the drawing process resolved: its file and family (chart.cjk_font)."""
        return await self._draw("cjk_font")

    async def _draw(self, name: str, *args: Any) -> Any:
        try:
            return await self._worker.ask(name, *args, timeout_s=self.timeout_s)
        except WorkerError as err:
            log.error("a course picture failed: %s", err)
            raise DrawingFailed(str(err)) from None
        except WorkerFailed as err:
            raise DrawingFailed(str(err)) from None

    async def close(self) -> None:
        if self._warming is not None:
            self._warming.cancel()
            await asyncio.gather(self._warming, return_exceptions=True)
        await self._worker.close()
