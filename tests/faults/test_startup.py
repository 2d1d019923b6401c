"""`python -m bot` refused or cut off at start-up: a token Telegram rejects, a Bot API that
cannot be reached. The process says so in one clear line, never prints the token, and exits
with code 2 (no traceback)."""

from __future__ import annotations

from pathlib import Path

from testkit.bot_process import bot_process, free_port
from testkit.fakes.model import FakeModel
from testkit.fakes.telegram import FakeTelegram


def _only_line(log: str, token: str) -> str:
    assert token not in log and token.split(":")[1] not in log
    assert "Traceback" not in log
    [line] = log.strip().splitlines()
    return line


def test_a_token_telegram_rejects_gives_one_line_without_the_token(tmp_path: Path) -> None:
    with FakeTelegram() as tg, FakeModel() as model:
        tg.fail("getMe", "error_401_unauthorized.json")
        with bot_process(tg, model, tmp_path) as bot:
            code = bot.proc.wait(30)
            log = bot.output()
    assert code == 2
    line = _only_line(log, tg.token)
    assert f"Telegram rejected TELEGRAM_BOT_TOKEN (…{tg.token[-4:]})" in line


def test_an_unreachable_bot_api_gives_one_line_without_the_token(tmp_path: Path) -> None:
    with FakeTelegram() as tg, FakeModel() as model:
        url = f"http://127.0.0.1:{free_port()}/bot"
        with bot_process(tg, model, tmp_path, TELEGRAM_API_BASE_URL=url) as bot:
            code = bot.proc.wait(30)
            log = bot.output()
    assert code == 2
    line = _only_line(log, tg.token)
    assert "cannot reach the Telegram Bot API" in line and url in line
