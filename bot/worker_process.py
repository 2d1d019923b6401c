"""Work done in a process of its own, for what would hold the event loop (CPU-bound, or
holding the GIL) or may crash or run away: started at its first request and kept, spoken to
over its stdin and stdout, one request at a time, each a pickle after its length (8 bytes,
big-endian). Only the bot that started it writes to it, so its pickles are trusted.

The bot's side is `Worker`; the process's side is `serve`, the main loop of a module run as
`python -m MODULE ARGS…`."""

from __future__ import annotations

import asyncio
import logging
import pickle
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, BinaryIO

from wire.wire_errors import GlassboxError

log = logging.getLogger(__name__)


class WorkerFailed(GlassboxError):
    """The process died, broke the pipe or took longer than the request's time; it is
    replaced at the next request."""


class WorkerError(GlassboxError):
    """The request raised in the process (its type name and message): the process serves on."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind


class Worker:
    """The bot's side of one worker process (`python -m module *args`)."""

    def __init__(self, module: str, args: Sequence[str] = (), *, name: str = "") -> None:
        self.module, self.args, self.name = module, tuple(args), name or module
        self._process: asyncio.subprocess.Process | None = None
        self._one = asyncio.Lock()

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.returncode is None

    async def ask(self, request: str, *args: Any, timeout_s: float) -> Any:
        """What the process's handler `request` returns for `args`, after the requests before
        it. WorkerError: the handler raised; WorkerFailed: the process failed (it is
        killed and replaced at the next request)."""
        async with self._one:
            ok, value = await self._ask(request, args, timeout_s)
        if not ok:
            raise WorkerError(*value)
        return value

    async def _ask(self, request: str, args: tuple[Any, ...], timeout_s: float
                   ) -> tuple[bool, Any]:
        process = await self._started()
        assert process.stdin is not None and process.stdout is not None
        data = pickle.dumps((request, args))
        try:
            process.stdin.write(len(data).to_bytes(8, "big") + data)
            async with asyncio.timeout(timeout_s):
                await process.stdin.drain()
                size = int.from_bytes(await process.stdout.readexactly(8), "big")
                return pickle.loads(await process.stdout.readexactly(size))
        except (TimeoutError, asyncio.IncompleteReadError, ConnectionError) as err:
            log.error("the %s process failed (%s); it is replaced", self.name,
                      type(err).__name__)
            await self._stop(kill=True)
            raise WorkerFailed(type(err).__name__) from None
        except BaseException:  # cancelled mid-answer: the pipe is out of step, start anew
            await asyncio.shield(self._stop(kill=True))
            raise

    async def _started(self) -> asyncio.subprocess.Process:
        if not self.running:
            self._process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", self.module, *self.args,
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
        assert self._process is not None
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


def serve(handlers: Mapping[str, Callable[..., Any]]) -> None:
    """The worker's main loop: answer each request with (True, what its handler returned)
    or (False, (the exception's type name, its message)), until stdin closes."""
    requests, answers = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing but the answers goes down the pipe
    while (request := _read(requests)) is not None:
        name, args = request  # type: ignore[misc]
        try:
            _write(answers, (True, handlers[name](*args)))
        except Exception as err:  # told to the bot; the next request is served
            _write(answers, (False, (type(err).__name__, str(err))))


def _read(pipe: BinaryIO) -> object | None:
    head = pipe.read(8)
    if len(head) < 8:
        return None
    return pickle.loads(pipe.read(int.from_bytes(head, "big")))


def _write(pipe: BinaryIO, value: object) -> None:
    data = pickle.dumps(value)
    pipe.write(len(data).to_bytes(8, "big") + data)
    pipe.flush()
