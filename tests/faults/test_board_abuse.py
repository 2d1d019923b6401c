"""The class board after the link changes hands, and the hub's memory, over real HTTP (the
bot and its HTTP server in the test's loop, testkit/serving.py): `/board reset` ends a stream
of the old link at once; a chat that never opened a board keeps nothing in memory once its
runs end, and only the boards opened last keep theirs."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from bot.runs import hub as hub_module
from bot.store.records import telegram_chat
from testkit.botkit import ALICE, BOB, GROUP, people
from testkit.fakes.model import FakeModel, text_reply
from testkit.fakes.telegram import FakeTelegram
from testkit.serving import event_stream, serving
from tests.web.test_board import board_path


async def test_board_reset_ends_an_open_stream_of_the_old_link(tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel(default=lambda b: text_reply("Hi.")) as model:
        people(tg)
        async with serving(tg, model, tmp_path / "g.sqlite3") as web:
            old = await board_path(web, ALICE, ALICE)
            async with event_stream(web.http, old + "/events") as events:
                assert (await events.next()).event == "runs"
                await board_path(web, ALICE, ALICE, "/board reset")
                began = time.monotonic()
                tg.send(ALICE, ALICE, "/ask what happens next?")
                seen = []
                with pytest.raises((EOFError, httpx.HTTPError)):
                    while True:
                        seen.append(await events.next(timeout=5))
                ended = time.monotonic() - began
    assert seen == []  # nothing of the new question reached the old link
    assert ended < 2, ended


async def test_the_hub_keeps_finished_runs_only_of_chats_with_a_board(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hub_module, "BOARDS_KEPT", 1)
    with FakeTelegram(scale=0.02) as tg, FakeModel(default=lambda b: text_reply("Hi.")) as model:
        people(tg)
        async with serving(tg, model, tmp_path / "g.sqlite3") as web:
            hub = web.gb.app.bot_data.services.hub
            for chat in (ALICE, BOB):  # no board
                await web.gb.answer_to(chat, tg.send(chat, chat, "/ask hello?"))
            assert hub.live(telegram_chat(ALICE)) == [] and hub.live(telegram_chat(BOB)) == []

            group = await board_path(web)  # opened, then closed: kept for a reconnect
            assert (await web.http.get(group)).status_code == 200
            await web.gb.answer_to(GROUP, tg.send(GROUP, ALICE, "/ask hello class?"))
            assert [r.status for r in hub.live(telegram_chat(GROUP))] == ["done"]

            alice = await board_path(web, ALICE, ALICE)  # a newer board: the group's goes
            assert (await web.http.get(alice)).status_code == 200
            assert hub.live(telegram_chat(GROUP)) == []
            async with event_stream(web.http, group + "/events") as events:
                first = await events.next()  # the group's board still shows its run
                assert [r["status"] for r in first.data["runs"]] == ["done"]
