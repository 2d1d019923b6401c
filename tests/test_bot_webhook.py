"""`python -m bot` with WEBHOOK_URL set: it registers the webhook and answers updates pushed to
its HTTP server; a port already taken stops it with one line."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from testkit.agentkit import TEST_KEY
from testkit.bot_process import free_port
from testkit.botkit import ALICE, people
from testkit.fakes.model import FakeModel, text_reply
from testkit.fakes.telegram import TOKEN, FakeTelegram

ROOT = Path(__file__).resolve().parent.parent


def listening(port: int, proc: subprocess.Popen[str]) -> bool:
    """Whether the bot's webhook server accepts connections yet (it must still be running)."""
    assert proc.poll() is None, proc.communicate()[1]
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


async def test_webhook_mode_answers_pushed_updates(tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/glassbox-hook"
    with FakeTelegram() as tg, FakeModel() as model:
        people(tg)
        model.push(text_reply("Pushed and answered."))
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("OPENAI_", "DASHSCOPE_", "LLM_", "AGENT_", "TELEGRAM_"))}
        env.update(PYTHONPATH=str(ROOT), TELEGRAM_BOT_TOKEN=TOKEN,
                   TELEGRAM_API_BASE_URL=tg.base_url, OPENAI_BASE_URL=model.base_url,
                   OPENAI_API_KEY=TEST_KEY, DATABASE_PATH=str(tmp_path / "w.sqlite3"),
                   WEBHOOK_URL=url, HTTP_LISTEN=f"127.0.0.1:{port}",
                   WEBHOOK_SECRET="s3cret-token", AGENT_TOOLS="calculate")
        proc = subprocess.Popen([sys.executable, "-m", "bot"], cwd=tmp_path, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            await tg.wait(lambda: listening(port, proc), 20)
            await tg.wait(lambda: bool(tg.webhook), 10)
            assert tg.webhook == {"url": url, "secret_token": "s3cret-token"}
            # Telegram's own push carries the secret; anyone else's is refused.
            forged = urllib.request.Request(url, data=b'{"update_id": 1}', method="POST",
                                            headers={"Content-Type": "application/json"})
            try:
                urllib.request.urlopen(forged, timeout=5)
                refused = False
            except urllib.error.HTTPError as err:
                refused = err.code == 403
            assert refused
            asked = tg.send(ALICE, ALICE, "Does the webhook work?")
            await tg.wait(lambda: any(m.reply_to == asked and "Pushed and answered." in m.text
                                      and not m.buttons for m in tg.bot_messages(ALICE)), 20)
        finally:
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert f"HTTP server on http://127.0.0.1:{port}" in err
    assert TOKEN not in err and TEST_KEY not in err


def test_a_port_in_use_is_one_clear_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT), "TELEGRAM_BOT_TOKEN": TOKEN,
               "OPENAI_API_KEY": TEST_KEY, "HTTP_LISTEN": f"127.0.0.1:{port}"}
        done = subprocess.run([sys.executable, "-m", "bot"], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and f"cannot listen on 127.0.0.1:{port}" in lines[0], lines
    assert TOKEN not in done.stderr
