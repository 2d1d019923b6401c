"""Starting and stopping: settings errors, runs a restart interrupted, a shutdown mid-run,
and logs that never hold a secret."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from agent.events import RunStarted, Thought
from bot.store.records import Scope, telegram_chat
from bot.store.transcripts import Store
from bot.telegram.app import Redact
from testkit.agentkit import TEST_KEY
from testkit.botkit import ALICE, GROUP, people, running
from testkit.dbkit import Target
from testkit.fakes.model import DashScope, FakeModel, sse, text_reply
from testkit.fakes.telegram import TOKEN, FakeTelegram

ROOT = Path(__file__).resolve().parent.parent


def test_missing_and_invalid_settings_are_named_and_exit_2(tmp_path: Path) -> None:
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT), "ALLOWED_CHAT_IDS": "class-a"}
    done = subprocess.run([sys.executable, "-m", "bot"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    for name in ("TELEGRAM_BOT_TOKEN", "OPENAI_API_KEY", "ALLOWED_CHAT_IDS"):
        assert name in lines[0]


async def test_a_run_cut_short_by_a_restart_is_marked_interrupted(db_target: Target) -> None:
    """On SQLite and on PostgreSQL alike. It is marked as the bot starts, before a question
    is taken: a run this process starts at once is never marked with it."""
    db = db_target
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        people(tg)
        asked = tg.send(GROUP, ALICE, "/ask what is the weather?")
        store = await Store.open(db)
        run = await store.start_run(chat_id=GROUP, user_id=ALICE, user_name="Alice",
                                    mode="ask", question="what is the weather?", model="m")
        await store.append(run.id, RunStarted(round=0, mode="react",
                                              question="what is the weather?", model="m"))
        await store.append(run.id, Thought(round=1, text="I need the forecast."))
        with tg.lock:
            shown = tg._store(GROUP, tg.users[ALICE], "half an answer", "", asked)
        await store.add_message_ids(run.id, [shown.message_id])
        await store.close()

        gate = threading.Event()
        model.push(lambda _: (gate.wait(30), text_reply("Sunny."))[1])
        async with running(tg, model, db) as gb:
            assert [r.id for r in gb.services.cut_short] == [run.id]
            again = tg.send(GROUP, ALICE, "/ask what is the weather now?")
            await tg.wait(lambda: shown.text != "half an answer" and len(model.bodies) == 1)
            record = await gb.services.store.by_message(GROUP, shown.message_id)
            statuses = {r.id: r.status for r in (await gb.services.store.history(
                Scope.of(telegram_chat(GROUP)), per_page=5)).runs}
            gate.set()
            await gb.answer_to(GROUP, again)
        assert statuses == {run.id: "interrupted", run.id + 1: "running"}
        assert "I need the forecast." in shown.text
        assert "restarted before this question was finished" in shown.text
        assert record is not None and record.status == "interrupted"


async def test_stopping_the_bot_ends_running_answers_with_a_notice(tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        people(tg)
        model.push(sse(DashScope().text("too late"), first_delay=5.0))
        async with running(tg, model, tmp_path / "g.sqlite3") as gb:
            asked = tg.send(ALICE, ALICE, "a slow question")
            await tg.wait(lambda: bool(gb.replies_to(ALICE, asked)))
        [final] = gb.replies_to(ALICE, asked)
        assert "Glassbox is restarting" in final.text
        assert final.buttons == []


def test_log_lines_never_hold_secrets(caplog: pytest.LogCaptureFixture) -> None:
    log = logging.getLogger("glassbox.test")
    caplog.handler.addFilter(Redact([TOKEN, TEST_KEY]))
    try:
        raise RuntimeError(f"POST https://api.telegram.org/bot{TOKEN}/getMe failed")
    except RuntimeError:
        log.exception("key %s and a failure", TEST_KEY)
    assert TOKEN not in caplog.text and TEST_KEY not in caplog.text
    assert "[secret]" in caplog.text and "getMe failed" in caplog.text


async def test_telegram_is_reached_through_the_proxy_the_environment_names(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where Telegram is blocked a school reaches it through a proxy (HTTP(S)_PROXY, as
    python-telegram-bot's own requests honour it): here the fake Bot API is the proxy, and
    the Bot API's own host does not exist."""
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        people(tg)
        monkeypatch.setenv("HTTP_PROXY", tg.url)
        monkeypatch.setenv("NO_PROXY", "")
        model.push(sse(DashScope().text("Four.")))
        async with running(tg, model, tmp_path / "g.sqlite3",
                           telegram_api_base_url="http://api.telegram.invalid/bot") as gb:
            asked = tg.send(ALICE, ALICE, "What is 2+2?")
            final = await gb.answer_to(ALICE, asked)
        assert "Four." in final.text
