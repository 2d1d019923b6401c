"""`python -m bot` as a real process against the fake servers, for what only a process
shows: SIGTERM while runs are live, 409 at start-up, the log lines it writes."""

from __future__ import annotations

import contextlib
import itertools
import os
import resource
import signal
import socket
import subprocess
import sys
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from testkit.agentkit import TEST_KEY
from testkit.fakes.model import FakeModel
from testkit.fakes.telegram import FakeTelegram

ROOT = Path(__file__).resolve().parents[1]
_runs = itertools.count(1)


def free_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def listening(port: int) -> bool:
    """Whether something accepts connections on the local `port`."""
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _open_files(limit: int, hard: bool) -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE,
                       (limit, limit if hard else resource.getrlimit(resource.RLIMIT_NOFILE)[1]))


def room_for(sockets: int, bot_files: int = 1024) -> None:
    """This process is to hold `sockets` of an attack on a bot with `bot_files` open files:
    raise its own soft limit (skip when the hard one leaves no room for both)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < sockets + bot_files:
        pytest.skip(f"the hard limit of open files is {hard}")
    if soft < sockets + 256:
        resource.setrlimit(resource.RLIMIT_NOFILE, (sockets + 256, hard))


@dataclass
class BotProcess:
    proc: subprocess.Popen[bytes]
    log: Path
    tg: FakeTelegram
    polls_before: int
    """The fake's getUpdates calls before this process started (an earlier one's)."""

    async def polling(self, timeout: float = 30) -> None:
        """Wait until this process asks for updates: it has started (a process before it on
        the same fake Telegram does not count)."""
        await self.tg.wait(lambda: self.tg.polls > self.polls_before, timeout)

    def terminate(self, timeout: float = 30) -> int:
        """SIGTERM, as a deploy or `docker stop` sends it; the exit code."""
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout)

    def output(self) -> str:
        """Everything it wrote (its log lines), so far."""
        return self.log.read_text(encoding="utf-8")


@contextlib.contextmanager
def bot_process(tg: FakeTelegram, model: FakeModel, workdir: Path, *,
                open_files: int | None = None, hard_limit: bool = False,
                code: Path = ROOT, without: Collection[str] = (),
                **env: str) -> Iterator[BotProcess]:
    """Start `python -m bot` in `workdir` (the database is `workdir/g.sqlite3`) with the
    calculator as its only tool and no HTTP server; `env` adds or overrides settings,
    `without` names settings left out (not even empty);
    `open_files`: its soft limit of open files (as a shell's `ulimit -n` sets it), and its
    hard one too with `hard_limit` (as a container or a service manager may set it); `code`:
    the checkout whose bot runs (the bench measures another ref's too). Killed if still
    running."""
    values = {"PATH": os.environ["PATH"], "PYTHONPATH": str(code),
              "TELEGRAM_BOT_TOKEN": tg.token, "TELEGRAM_API_BASE_URL": tg.base_url,
              "OPENAI_BASE_URL": model.base_url, "OPENAI_API_KEY": TEST_KEY,
              "DATABASE_PATH": str(workdir / "g.sqlite3"), "LLM_MAX_RETRIES": "0",
              "AGENT_TOOLS": "calculate", "HTTP_LISTEN": "off", **env}
    for name in without:
        values.pop(name, None)
    log = workdir / f"bot-{next(_runs)}.log"
    polls_before = tg.polls
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "bot"], cwd=workdir, env=values,
                                stdout=out, stderr=subprocess.STDOUT,
                                preexec_fn=None if open_files is None
                                else lambda: _open_files(open_files, hard_limit))
    try:
        yield BotProcess(proc, log, tg, polls_before)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
