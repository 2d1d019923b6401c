"""Odd input to the HTTP server and to walkthrough mode, over real HTTP against the bot (tests/web/
kit.py): a new API token's first requests all at once, JSON nested thousands deep, numbers
out of range or in odd digits, Last-Event-IDs no board was ever sent: each is a 4xx with
the JSON error (or a fresh start of the stream), never a 500. /metrics names Bot API
methods only, never a downloaded file. The board page carries its CSP and frame headers.
A step edit nested 990 deep gets the exact refusal."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import httpx

from testkit.botkit import ALICE, GROUP, Glassbox
from testkit.fakes.model import FakeModel, text_reply, tool_reply
from testkit.fakes.telegram import FakeTelegram
from testkit.serving import SseEvent, event_stream, serving
from tests.test_bot_step import asking, paused
from tests.web.test_board import board_path

TOKEN = {"Authorization": "Bearer first-use-token"}


def _json_error(answer: httpx.Response, status: int) -> str:
    assert answer.status_code == status, (answer.status_code, answer.text[:200])
    error = answer.json()["error"]
    assert error["status"] == status
    return str(error["message"])


async def test_malformed_api_and_board_input_is_a_4xx_never_a_500(tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel(default=lambda b: text_reply("Hi.")) as model:
        tg.user(ALICE)
        async with serving(tg, model, tmp_path / "g.sqlite3",
                           api_tokens="first-use-token") as web:
            async with httpx.AsyncClient(base_url=web.base_url) as fresh:  # 12 connections
                first = await asyncio.gather(*(fresh.get("/api/v1/runs", headers=TOKEN)
                                               for _ in range(12)))
            assert [a.status_code for a in first] == [200] * 12

            deep_array = '{"message": ' + "[" * 16000 + "]" * 16000 + "}"
            deep_object = '{"message": ' + '{"a":' * 5000 + "1" + "}" * 5000 + "}"
            for body in (deep_array, deep_object):
                answer = await web.http.post("/api/v1/chat", headers=TOKEN, content=body)
                assert "nested too deeply" in _json_error(answer, 400)
            for page in ("²", "٣", "-1", "0", "1e3", "9" * 40):
                answer = await web.http.get(f"/api/v1/runs?page={page}", headers=TOKEN)
                assert "page" in _json_error(answer, 400)
            answer = await web.http.get(f"/api/v1/runs/{10**23}", headers=TOKEN)
            _json_error(answer, 404)

            board = await board_path(web, ALICE, ALICE)
            assert (await web.http.get(f"{board}/runs/{10**23}")).status_code == 404
            await web.gb.answer_to(ALICE, tg.send(ALICE, ALICE, "/ask hello?"))
            boot = (await _first_event(web.http, board, "")).id.partition(":")[0]
            for last in ("9" * 5000, f"{boot}:{'9' * 5000}", f"{boot}:{10**12}", f"{boot}:-1"):
                event = await _first_event(web.http, board, last)  # a fresh snapshot, at once
                assert event.event == "runs" and event.data["runs"][0]["n"] == 1

            page = await web.http.get(board)
            csp = page.headers["content-security-policy"]
            assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp
            assert "default-src 'none'" in csp
            assert page.headers["x-frame-options"] == "DENY"
            assert (await web.http.get(board + "x")).headers["x-frame-options"] == "DENY"


async def _first_event(http: httpx.AsyncClient, board: str, last: str) -> SseEvent:
    async with event_stream(http, board + "/events", last) as events:
        return await events.next(timeout=5)


async def test_metrics_name_methods_never_a_downloaded_file(tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        tg.user(ALICE)
        async with serving(tg, model, tmp_path / "g.sqlite3", tools=None,
                           agent_tools="search_notes", notes_dir=tmp_path) as web:
            sent = tg.send_document(ALICE, ALICE, "secret-plans_v2.md",
                                    b"# Plans\n\nNothing to see.\n", caption="/notes")
            await tg.wait(lambda: bool(web.gb.replies_to(ALICE, sent)), 15)
            assert "download" in tg.methods(), web.gb.replies_to(ALICE, sent)[0].text
            shown = (await web.http.get("/metrics")).text
    labels = set(re.findall(r'glassbox_telegram_calls_total\{method="([^"]*)"\}', shown))
    assert "sendMessage" in labels and "getFile" in labels
    assert "(file)" in labels  # the download, counted, under one label for every file
    assert all(re.fullmatch(r"[A-Za-z]+|\(file\)", label) for label in labels), labels
    assert "secret-plans" not in shown and "file_" not in shown


async def test_a_step_edit_nested_990_deep_gets_the_exact_refusal(gb: Glassbox) -> None:
    gb.model.push(tool_reply(("add", {"a": 2, "b": 2}), content="Add them."),
                  text_reply("It is 4."))
    asked = gb.tg.send(GROUP, ALICE, "/step what is 2+2?")
    live = await paused(gb, GROUP, asked)
    gb.tg.tap(GROUP, ALICE, live.message_id, live.button_data("✏️ Edit"))
    await gb.tg.wait(lambda: any("New arguments for" in m.text
                                 for m in gb.replies_to(GROUP, live.message_id)))
    prompt = next(m for m in gb.replies_to(GROUP, live.message_id) if "New arguments" in m.text)
    await asking(gb, GROUP, prompt)
    deep = '{"a": ' + "[" * 990 + "]" * 990 + ', "b": 1}'
    assert len(json.dumps(deep)) < 4096
    wrong = gb.tg.send(GROUP, ALICE, deep, reply_to=prompt.message_id)
    await gb.tg.wait(lambda: bool(gb.replies_to(GROUP, wrong)))
    said = gb.replies_to(GROUP, wrong)[0].text
    assert "nested too deeply" in said and "New arguments for" in said
    assert "something went wrong" not in said
