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
import logging
import pickle
import sys
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from typing import Any

from bot.course.chart import Chart
from bot.course.course_figures import CourseFigures
from wire.wire_errors import GlassboxError

log = logging.getLogger(__name__)
MOST_WAITING = 8
TIMEOUT_S = 60.0


class AlreadyDrawing(GlassboxError):
    """This chat's previous picture is still being drawn."""


class TooBusy(GlassboxError):
    """MOST_WAITING pictures wait already."""


class DrawingFailed(GlassboxError):
    """The drawing process failed, died or took longer than TIMEOUT_S."""


class Drawing:
    def __init__(self, most_waiting: int = MOST_WAITING, timeout_s: float = TIMEOUT_S) -> None:
        self.most_waiting, self.timeout_s = most_waiting, timeout_s
        self._process: asyncio.subprocess.Process | None = None
        self._one = asyncio.Lock()
        self._drawing: set[Hashable] = set()

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
        async with self._one:
            ok, value = await self._ask(name, args)
        if not ok:
            log.error("a course picture failed: %s", value)
            raise DrawingFailed(value)
        return value

    async def _ask(self, name: str, args: tuple[Any, ...]) -> tuple[bool, Any]:
        process = await self._started()
        assert process.stdin is not None and process.stdout is not None
        data = pickle.dumps((name, args))
        try:
            process.stdin.write(len(data).to_bytes(8, "big") + data)
            async with asyncio.timeout(self.timeout_s):
                await process.stdin.drain()
                size = int.from_bytes(await process.stdout.readexactly(8), "big")
                return pickle.loads(await process.stdout.readexactly(size))
        except (TimeoutError, asyncio.IncompleteReadError, ConnectionError) as err:
            log.error("the course pictures' process failed (%s); it is replaced",
                      type(err).__name__)
            await self._stop(kill=True)
            raise DrawingFailed(type(err).__name__) from None
        except BaseException:  # cancelled mid-answer: the pipe is out of step, start anew
            await asyncio.shield(self._stop(kill=True))
            raise

    async def _started(self) -> asyncio.subprocess.Process:
        if self._process is None or self._process.returncode is not None:
            self._process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot.course.draw_worker",
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
        return self._process

    async def _stop(self, *, kill: bool) -> None:
        process, self._process = self._process, None
        if process is None or process.returncode is not None:
            return
        if kill:
            process.kill()
        else:
            assert process.stdin is not None
            process.stdin.close()  # the worker ends at the end of its input
        try:
            await asyncio.wait_for(process.wait(), 5)
        except TimeoutError:
            process.kill()
            await process.wait()

    async def close(self) -> None:
        await self._stop(kill=False)
