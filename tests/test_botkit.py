"""The bot harness itself: a test whose assertion fails inside `running(...)` fails, and the
test process ends: `running` closes the store on that path too, whose aiosqlite thread, left
open, would keep Python waiting."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FAILING = '''
from testkit.botkit import ALICE, people, running
from testkit.fakes.model import FakeModel, text_reply
from testkit.fakes.telegram import FakeTelegram


async def test_fails_inside_running(tmp_path):
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        people(tg)
        model.push(text_reply("Four."))
        async with running(tg, model, tmp_path / "g.sqlite3") as gb:
            asked = gb.tg.send(ALICE, ALICE, "What is 2+2?")
            await gb.answer_to(ALICE, asked)
            assert False, "failed on purpose"
'''


def test_a_failed_assertion_inside_running_fails_and_the_process_ends(tmp_path: Path) -> None:
    test = tmp_path / "test_failing.py"
    test.write_text(FAILING, "utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-c",
         str(ROOT / "pyproject.toml"), "--rootdir", str(tmp_path), str(test)],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
        text=True, timeout=60)  # before the fix: still running after the report, for ever
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    assert "AssertionError: failed on purpose" in done.stdout
