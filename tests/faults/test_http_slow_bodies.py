"""Request bodies trickled in (a slow or hostile client), against `python -m bot` in webhook
mode at a hard limit of 1,024 open files (as a container may set it): 650 connections each
send a whole head announcing a body, then one byte of it a second. /healthz and Telegram's
webhook calls are answered throughout, and every one of the 650 is closed within seconds."""

from __future__ import annotations

import time
from pathlib import Path

from bot.web.guard import Timing
from testkit.bot_process import bot_process, free_port, listening, room_for
from testkit.botkit import ALICE, people
from testkit.fakes.model import FakeModel, text_reply
from testkit.fakes.telegram import FakeTelegram
from testkit.hostile_clients import (
    ATTACKER,
    body_head,
    closed_by_the_server,
    half_open,
    healthz,
    send_a_byte,
)

CLIENTS = 650
HOOK = "/tg-hook"

def head(path: str) -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: 100000\r\n\r\n").encode()

async def test_trickled_bodies_leave_healthz_and_the_webhook_answering(tmp_path: Path) -> None:
    room_for(CLIENTS)
    port = free_port()
    with FakeTelegram() as tg, FakeModel(default=lambda body: text_reply("Here.")) as model:
        people(tg)
        with bot_process(tg, model, tmp_path, open_files=1024, hard_limit=True,
                         HTTP_LISTEN=f"127.0.0.1:{port}",
                         WEBHOOK_URL=f"http://127.0.0.1:{port}{HOOK}") as bot:
            def up() -> bool:
                assert bot.proc.poll() is None, bot.output()
                return listening(port) and bool(tg.webhook)
            await tg.wait(up, 60)
            socks = [*half_open(port, CLIENTS // 2, body_head(HOOK)),
                     *half_open(port, CLIENTS - CLIENTS // 2, body_head("/api/v1/chat"))]
            try:
                assert len(socks) > CLIENTS - 20
                answered = []
                for _ in range(6):  # one byte a second on each, and a health check
                    second = time.monotonic() + 1
                    send_a_byte(socks)
                    answered.append(healthz(port, timeout=1))
                    time.sleep(max(0.0, second - time.monotonic()))
                assert answered == [200] * 6, answered
                tg.send(ALICE, ALICE, "/ask are you there?")  # a webhook call
                await tg.wait(lambda: any("Here." in m.text for m in tg.bot_messages(ALICE)),
                              20)
                timing = Timing()
                closed = closed_by_the_server(socks, timing.linger_s + timing.window_s)
                assert closed == len(socks), f"{closed} of {len(socks)} closed"
                assert healthz(port, source=ATTACKER) == 200
            finally:
                for sock in socks:
                    sock.close()
            assert bot.terminate() == 0
