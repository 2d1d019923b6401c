"""The webhook as a stranger or an unlucky Telegram meets it, against `python -m bot` with
WEBHOOK_URL set: without WEBHOOK_SECRET a random secret is registered, so a hand-made update
is refused; a body too long is refused before it is read whole (declared or streamed); an
update Telegram delivers twice is handled once."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from testkit.bot_process import BotProcess, bot_process, free_port, listening
from testkit.botkit import ALICE, BOB, people
from testkit.dbkit import query
from testkit.fakes.model import FakeModel, text_reply
from testkit.fakes.telegram import FakeTelegram
from testkit.hostile_clients import status_while_sending

HOOK = "/tg-hook"


@pytest.fixture
def hooked(tmp_path: Path) -> Iterator[tuple[FakeTelegram, FakeModel, BotProcess, int]]:
    """The bot in webhook mode, WEBHOOK_SECRET unset (its documented default)."""
    port = free_port()
    with FakeTelegram() as tg, FakeModel() as model:
        people(tg)
        with bot_process(tg, model, tmp_path, WEBHOOK_URL=f"http://127.0.0.1:{port}{HOOK}",
                         HTTP_LISTEN=f"127.0.0.1:{port}") as bot:
            yield tg, model, bot, port


async def _ready(tg: FakeTelegram, bot: BotProcess, port: int) -> None:
    def up() -> bool:
        assert bot.proc.poll() is None, bot.output()
        return listening(port) and bool(tg.webhook)
    await tg.wait(up, 30)


def _post(port: int, body: bytes, headers: dict[str, str] | None = None) -> int:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{HOOK}", data=body,
                                     method="POST", headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as err:
        return err.code


def _forged_help() -> dict[str, Any]:
    return {"update_id": 424242, "message": {
        "message_id": 9001, "date": int(time.time()), "text": "/help",
        "from": {"id": ALICE, "is_bot": False, "first_name": "Alice", "language_code": "en"},
        "chat": {"id": ALICE, "first_name": "Alice", "type": "private"},
        "entities": [{"offset": 0, "length": 5, "type": "bot_command"}]}}


async def test_without_a_secret_a_hand_made_update_is_refused(
        hooked: tuple[FakeTelegram, FakeModel, BotProcess, int]) -> None:
    tg, model, bot, port = hooked
    await _ready(tg, bot, port)
    secret = tg.webhook["secret_token"]
    assert len(secret) >= 32  # a random one was registered with setWebhook
    assert secret not in bot.output()

    forged = json.dumps(_forged_help()).encode()
    assert _post(port, forged, {"Content-Type": "application/json"}) == 403

    model.push(text_reply("Only Telegram's updates."))
    asked = tg.send(ALICE, ALICE, "Is the webhook safe?")
    await tg.wait(lambda: any(m.reply_to == asked and "Only Telegram's updates." in m.text
                              and not m.buttons for m in tg.bot_messages(ALICE)), 30)
    assert len(tg.bot_messages(ALICE)) == 1  # the forged /help was never answered
    assert bot.terminate() == 0


async def test_long_bodies_are_refused_unread_and_a_redelivery_is_handled_once(
        hooked: tuple[FakeTelegram, FakeModel, BotProcess, int], tmp_path: Path) -> None:
    tg, model, bot, port = hooked
    await _ready(tg, bot, port)
    secret = tg.webhook["secret_token"]
    head = (f"POST {HOOK} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"X-Telegram-Bot-Api-Secret-Token: {secret}\r\n")

    # 150 MB declared: refused at once, nothing of it sent.
    declared = (head + "Content-Length: 150000000\r\n\r\n").encode()
    assert status_while_sending(port, declared, iter(())) == 413

    # No length declared, 64 MB streamed: refused once a megabyte has come.
    def chunked() -> Iterator[bytes]:
        chunk = b"[" * 65536
        for _ in range(1024):
            yield b"%x\r\n%s\r\n" % (len(chunk), chunk)
        yield b"0\r\n\r\n"
    streamed = (head + "Transfer-Encoding: chunked\r\n\r\n").encode()
    assert status_while_sending(port, streamed, chunked(), timeout=30) == 413

    # Telegram thinks a delivery failed and sends it again: one run, one answer.
    model.push(text_reply("Answered once."), text_reply("Bob's answer."))
    asked = tg.send(ALICE, ALICE, "How many times?")
    await tg.wait(lambda: any(m.reply_to == asked and "Answered once." in m.text
                              and not m.buttons for m in tg.bot_messages(ALICE)), 30)
    [first] = [u for u in tg.pushed if u["message"]["message_id"] == asked]
    assert tg.push(first) == 200
    await tg.wait(lambda: f"update {first['update_id']} delivered again" in bot.output(), 10)
    bobs = tg.send(BOB, BOB, "And mine?")
    await tg.wait(lambda: any(m.reply_to == bobs and "Bob's answer." in m.text
                              and not m.buttons for m in tg.bot_messages(BOB)), 30)
    assert bot.terminate() == 0  # what it was doing is done or stored as cut short
    assert len(model.bodies) == 2
    assert [m.reply_to for m in tg.bot_messages(ALICE)] == [asked]
    assert await query(tmp_path / "g.sqlite3", "SELECT count(*) FROM runs") == [(2,)]
