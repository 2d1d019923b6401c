"""The HTTP server beside polling: /healthz, /metrics, and the HTTP settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.settings import SettingsError, load_settings
from bot.bot_settings import BotSettings
from testkit.agentkit import TEST_KEY
from testkit.botkit import ALICE, GROUP, Add, people
from testkit.fakes.model import FakeModel, text_reply, tool_reply
from testkit.fakes.telegram import TOKEN, FakeTelegram
from testkit.serving import serving


async def test_healthz_says_the_version_and_that_the_database_reads(tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        async with serving(tg, model, tmp_path / "g.sqlite3") as web:
            ok = await web.http.get("/healthz")
            assert ok.status_code == 200
            assert ok.json()["database"] == "ok" and ok.json()["version"]
            await web.gb.services.store.close()  # the database can no longer be read
            down = await web.http.get("/healthz")
    assert down.status_code == 503
    assert down.json() == {"status": "unavailable", "version": ok.json()["version"],
                           "database": "unreadable"}


async def test_metrics_count_runs_tools_and_telegram_calls(tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        people(tg)
        model.push(tool_reply(("add", {"a": 2, "b": 2}), content="I add."),
                   text_reply("Four."))
        async with serving(tg, model, tmp_path / "g.sqlite3", tools=[Add()]) as web:
            asked = tg.send(GROUP, ALICE, "/ask what is 2+2?")
            await web.gb.answer_to(GROUP, asked)
            text = (await web.http.get("/metrics")).text
    assert 'glassbox_runs_total{mode="ask",status="done"} 1.0' in text
    assert 'glassbox_tool_calls_total{outcome="ok",tool="add"} 1.0' in text
    assert "glassbox_runs_in_flight 0.0" in text
    assert 'glassbox_telegram_calls_total{method="sendMessage"}' in text
    assert 'glassbox_pacer_wait_seconds_count{chat_kind="group"}' in text
    assert "glassbox_model_first_token_seconds_count 1.0" in text
    assert TOKEN not in text


def _settings(monkeypatch: pytest.MonkeyPatch, **env: str) -> BotSettings:
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", TOKEN)
    monkeypatch.setenv("OPENAI_API_KEY", TEST_KEY)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return load_settings(BotSettings)


def test_http_listen_port_and_public_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).parent)  # no .env here
    for name in ("HTTP_LISTEN", "PORT", "PUBLIC_URL", "WEBHOOK_URL", "API_TOKENS"):
        monkeypatch.delenv(name, raising=False)
    plain = _settings(monkeypatch)
    assert plain.http_address() == ("127.0.0.1", 8080)
    assert plain.base_url() == "http://127.0.0.1:8080"
    paas = _settings(monkeypatch, PORT="5000", PUBLIC_URL="https://class.example.org/")
    assert paas.http_address() == ("0.0.0.0", 5000)
    assert paas.base_url() == "https://class.example.org"
    assert _settings(monkeypatch, HTTP_LISTEN="off").http_address() is None
    with pytest.raises(SettingsError, match="HTTP_LISTEN"):
        _settings(monkeypatch, HTTP_LISTEN="somewhere")
    with pytest.raises(SettingsError, match="WEBHOOK_URL needs the HTTP server"):
        _settings(monkeypatch, HTTP_LISTEN="off", WEBHOOK_URL="https://x.example.org/hook")
