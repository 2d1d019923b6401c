"""`python -m bench --hostile [--against REF]`: the second red team's attacks on the HTTP side,
tried on `python -m bot` against the fakes, as figures. `--against REF` runs them first with
REF's code (a temporary git worktree), side by side in one table.

- webhook: a hand-made update without the secret (WEBHOOK_SECRET unset), and a 150 MB body
  declared and sent with the secret Telegram was given: status, and the bot's peak RSS;
- flood: 1,100 connections each sending half a request head, the bot at a soft limit of
  1,024 open files: /healthz probes answered (one a second for 15 s), and how many of the
  1,100 the bot has closed 30 s later;
- trickle: 650 connections each sending a whole head announcing a body, then a byte of it
  a second, the bot in webhook mode at a hard limit of 1,024 open files: /healthz probes
  answered (one a second for 15 s), whether a webhook call meanwhile is answered, and how
  many of the 650 the bot has closed 10 s later;
- reset: a board's open stream when the link is reset and a question asked next: what it
  is sent in 10 s, and whether it ends;
- hub: the hub's memory per chat after 12 runs of a 40 KB answer in each of 200 chats
  without a board (tracemalloc, in a process of REF's code).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

from bench.scale import checkout
from testkit.bot_http import bot_client
from testkit.bot_process import ROOT, BotProcess, bot_process, free_port, listening
from testkit.botkit import ALICE, people
from testkit.fakes.model import FakeModel, text_reply
from testkit.fakes.telegram import FakeTelegram
from testkit.hostile_clients import (
    body_head,
    closed_by_the_server,
    half_open,
    healthz,
    send_a_byte,
    status_while_sending,
)

HOOK = "/tg-hook"
LINK = re.compile(r"/board/[A-Za-z0-9_-]{20,}")
HUB_MEMORY = '''
import gc, tracemalloc
from datetime import UTC, datetime
try:
    from bot.runs.hub import Hub
except ImportError:  # before the hub moved
    from bot.web.hub import Hub
from agent.events import Answer, RunStarted, Usage
from bot.store.records import RunRecord
CHATS, RUNS = 200, 12
text = ("The answer, line by line. " * 1600)[:40_000]
hub = Hub()
gc.collect()
tracemalloc.start()
before = tracemalloc.get_traced_memory()[0]
run_id = 0
for chat in range(1, CHATS + 1):
    for n in range(1, RUNS + 1):
        run_id += 1
        record = RunRecord(run_id, n, chat, chat, "u", "ask", "q?", "m", "running",
                           datetime.now(UTC), None, None, Usage(), (), None, "")
        hub.run_started(record, True)
        hub.run_event(record, "main", RunStarted(round=0, mode="ask", question="q?", model="m"))
        hub.run_event(record, "main", Answer(round=1, text=text[:-1] + str(n % 10)))
        hub.run_finished(record, "done")
gc.collect()
print((tracemalloc.get_traced_memory()[0] - before) / CHATS / 1024)
'''

Figures = dict[str, str]


def _wait(what: str, check: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        time.sleep(0.05)


def _peak_rss_mib(bot: BotProcess) -> float:
    status = Path(f"/proc/{bot.proc.pid}/status").read_text()
    found = re.search(r"VmHWM:\s+(\d+) kB", status)
    return int(found[1]) / 1024 if found else float("nan")


@contextlib.contextmanager
def _bot(code: Path, work: Path) -> Iterator[tuple[FakeTelegram, int]]:
    """The bot with its HTTP server, a fake model that answers anything."""
    port = free_port()
    with FakeTelegram() as tg, FakeModel(default=lambda body: text_reply("An answer.")) \
            as model:
        people(tg)
        with bot_process(tg, model, work, code=code, HTTP_LISTEN=f"127.0.0.1:{port}"):
            _wait("the bot's start", lambda: listening(port), 60)
            yield tg, port


def webhook(code: Path, work: Path) -> Figures:
    port = free_port()
    url = f"http://127.0.0.1:{port}{HOOK}"
    with FakeTelegram() as tg, FakeModel() as model:
        people(tg)
        with bot_process(tg, model, work, code=code, HTTP_LISTEN=f"127.0.0.1:{port}",
                         WEBHOOK_URL=url) as bot:
            _wait("the bot's start", lambda: listening(port) and bool(tg.webhook), 60)
            update = {"update_id": 424242, "message": {
                "message_id": 9001, "date": int(time.time()), "text": "/help",
                "from": tg.users[ALICE], "chat": tg.chats[ALICE],
                "entities": [{"offset": 0, "length": 5, "type": "bot_command"}]}}
            forged = urllib.request.Request(
                url, data=json.dumps(update).encode(), method="POST",
                headers={"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(forged, timeout=10) as reply:
                    status = reply.status
            except urllib.error.HTTPError as err:
                status = err.code
            time.sleep(3)
            answered = bool(tg.bot_messages(ALICE))
            before = _peak_rss_mib(bot)
            head = (f"POST {HOOK} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 150000000\r\n"
                    f"X-Telegram-Bot-Api-Secret-Token: {tg.webhook['secret_token']}\r\n\r\n")
            chunk = b"[" * (1 << 20)
            big = status_while_sending(port, head.encode(), iter([chunk] * 143), timeout=60)
            time.sleep(1)
            after = _peak_rss_mib(bot)
    return {"webhook: forged update (no WEBHOOK_SECRET)":
            f"{status}, {'handled' if answered else 'not handled'}",
            "webhook: 150 MB body": f"{big}, peak RSS {before:.0f} → {after:.0f} MiB"}


def flood(code: Path, work: Path) -> Figures:
    with FakeTelegram() as tg, FakeModel() as model:
        people(tg)
        port = free_port()
        with bot_process(tg, model, work, code=code, open_files=1024,
                         HTTP_LISTEN=f"127.0.0.1:{port}"):
            _wait("the bot's start", lambda: listening(port), 60)
            socks = half_open(port, 1100)
            try:
                began = time.monotonic()
                answered = 0
                for _ in range(15):
                    probe = time.monotonic()
                    answered += healthz(port, timeout=1) == 200
                    time.sleep(max(0.0, 1 - (time.monotonic() - probe)))
                closed = closed_by_the_server(socks, max(0.0, 30 - (time.monotonic() - began)))
            finally:
                for sock in socks:
                    sock.close()
    return {"flood: /healthz during 1,100 half-open (soft limit 1,024)":
            f"{answered} of 15 answered",
            "flood: half-open closed by the bot within 30 s": f"{closed} of {len(socks)}"}


def trickle(code: Path, work: Path) -> Figures:
    port = free_port()
    with FakeTelegram() as tg, FakeModel(default=lambda body: text_reply("Here.")) as model:
        people(tg)
        with bot_process(tg, model, work, code=code, open_files=1024, hard_limit=True,
                         HTTP_LISTEN=f"127.0.0.1:{port}",
                         WEBHOOK_URL=f"http://127.0.0.1:{port}{HOOK}"):
            _wait("the bot's start", lambda: listening(port) and bool(tg.webhook), 60)
            socks = [*half_open(port, 325, body_head(HOOK)),
                     *half_open(port, 325, body_head("/api/v1/chat"))]
            try:
                answered = 0
                for n in range(15):
                    second = time.monotonic() + 1
                    send_a_byte(socks)
                    answered += healthz(port, timeout=1) == 200
                    if n == 0:
                        tg.send(ALICE, ALICE, "/ask are you there?")
                    time.sleep(max(0.0, second - time.monotonic()))
                hook = any("Here." in m.text for m in tg.bot_messages(ALICE))
                closed = closed_by_the_server(socks, 10)
            finally:
                for sock in socks:
                    sock.close()
    return {"trickle: /healthz during 650 trickled bodies (hard limit 1,024)":
            f"{answered} of 15 answered",
            "trickle: a webhook call during them": "answered" if hook else "not answered",
            "trickle: trickling connections closed by the bot 10 s later":
            f"{closed} of {len(socks)}"}


def reset(code: Path, work: Path) -> Figures:
    with _bot(code, work) as (tg, port):
        tg.send(ALICE, ALICE, "/board")
        _wait("the board link", lambda: any(LINK.search(m.text) for m in
                                            tg.bot_messages(ALICE)), 20)
        links = [found[0] for m in tg.bot_messages(ALICE) if (found := LINK.search(m.text))]
        sent, ended = asyncio.run(_old_stream(tg, port, links[0]))
    return {"reset: the old link's open stream, 10 s after /board reset and a question":
            f"{sent} run events, " + (f"ended after {ended:.1f} s" if ended is not None
                                      else "still open")}


async def _old_stream(tg: FakeTelegram, port: int, path: str) -> tuple[int, float | None]:
    runs, ended = 0, None
    async with bot_client(f"http://127.0.0.1:{port}", timeout_s=15) as http, \
            http.stream("GET", path + "/events") as stream:
        lines = stream.aiter_lines()
        while not (await anext(lines)).startswith("event: runs"):
            pass
        tg.send(ALICE, ALICE, "/board reset")
        began = time.monotonic()
        tg.send(ALICE, ALICE, "/ask what happens next?")
        try:
            async with asyncio.timeout(10):
                async for line in lines:
                    runs += line == "event: run"
            ended = time.monotonic() - began
        except TimeoutError:
            pass
    return runs, ended


def hub(code: Path, work: Path) -> Figures:
    done = subprocess.run([sys.executable, "-c", HUB_MEMORY], cwd=work, capture_output=True,
                          text=True, env={"PYTHONPATH": str(code), "PATH": "/usr/bin:/bin"},
                          check=True)
    return {"hub: memory per chat without a board (12 runs of a 40 KB answer)":
            f"{float(done.stdout):.0f} KB"}


def measure(code: Path, label: str, attacks: list[Callable[[Path, Path], Figures]]
            ) -> Figures:
    figures: Figures = {}
    for attack in attacks:
        print(f"{attack.__name__}: {label} …", file=sys.stderr)
        with tempfile.TemporaryDirectory(prefix="glassbox-hostile-") as tmp:
            figures.update(attack(code, Path(tmp)))
    return figures


ATTACKS = [webhook, flood, trickle, reset, hub]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench --hostile", description=__doc__)
    parser.add_argument("--against", metavar="REF", help="also measure this git ref first")
    parser.add_argument("--only", nargs="+", choices=[a.__name__ for a in ATTACKS],
                        help="these attacks only")
    args = parser.parse_args(argv)
    attacks = [a for a in ATTACKS if not args.only or a.__name__ in args.only]
    with contextlib.ExitStack() as stack:
        columns = []
        if args.against:
            columns.append((args.against, measure(stack.enter_context(checkout(args.against)),
                                                  args.against, attacks)))
        columns.append(("this checkout", measure(ROOT, "this checkout", attacks)))
    names = list(columns[-1][1])
    print("| Attack | " + " | ".join(label for label, _ in columns) + " |")
    print("|---|" + "---|" * len(columns))
    for name in names:
        print(f"| {name} | " + " | ".join(f.get(name, "—") for _, f in columns) + " |")
    return 0
