"""Connections opened and left half-sent (a slow or hostile client), against `python -m bot`
with the usual soft limit of 1,024 open files: /healthz still answers meanwhile, and every
half-sent connection is closed once its request head is late (those past its address's share
of the connections at once), after which its address is served again."""

from __future__ import annotations

import time
from pathlib import Path

from bot.web.guard import Timing
from testkit.bot_process import bot_process, free_port, listening, room_for
from testkit.botkit import people
from testkit.fakes.model import FakeModel
from testkit.fakes.telegram import FakeTelegram
from testkit.hostile_clients import ATTACKER, closed_by_the_server, half_open, healthz

HALF_OPEN = 1100


async def test_half_open_connections_leave_healthz_answering_and_are_closed(
        tmp_path: Path) -> None:
    room_for(HALF_OPEN)
    port = free_port()
    with FakeTelegram() as tg, FakeModel() as model:
        people(tg)
        with bot_process(tg, model, tmp_path, open_files=1024,
                         HTTP_LISTEN=f"127.0.0.1:{port}") as bot:
            def up() -> bool:
                assert bot.proc.poll() is None, bot.output()
                return listening(port)
            await tg.wait(up, 30)
            socks = half_open(port, HALF_OPEN)
            try:
                assert len(socks) > 1050  # more than the bot's 1,024 (a few may time out)
                started = time.monotonic()
                answered = [healthz(port) for _ in range(3)]
                assert answered == [200, 200, 200]
                closed = closed_by_the_server(socks, Timing().head_s + 15)
                took = time.monotonic() - started
                assert closed == len(socks), f"{closed} closed in {took:.0f} s"
                assert healthz(port) == 200
                assert healthz(port, source=ATTACKER) == 200  # its share is free again
            finally:
                for sock in socks:
                    sock.close()
            assert bot.terminate() == 0
