"""SIGTERM while runs are live, to a real `python -m bot`: the running runs are stored as
`interrupted` (a restart stopped them, not a person), their messages say so, every step
already taken is intact, the database closes cleanly, and after a start the bot answers.

Decided: a run a shutdown stops is `interrupted`, the same status a run found `running`
after a crash gets; `cancelled` stays what a person's ⏹ or /stop gives."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from testkit.bot_process import bot_process
from testkit.botkit import ALICE, BOB, people
from testkit.fakes.model import DashScope, FakeModel, sse, text_reply, tool_reply
from testkit.fakes.server import Reply
from testkit.fakes.telegram_faults import FaultyTelegram


def slow_class(body: dict[str, Any]) -> Reply:
    """Alice's question takes a calculator round, then the model stalls; Bob's stalls at once.
    (Both in private chats: a group's pace, one message per 3 s, would only slow the test.)"""
    messages = body["messages"]
    if any(m["role"] == "tool" for m in messages) or "2+2" not in messages[-1]["content"]:
        return sse(DashScope().text("too late"), first_delay=30)
    return tool_reply(("calculate", {"expression": "2+2"}))


async def test_sigterm_while_runs_are_live(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    with FaultyTelegram() as tg, FakeModel(default=slow_class) as model:
        people(tg)
        with bot_process(tg, model, tmp_path) as bot:
            await bot.polling()
            alice_asked = tg.send(ALICE, ALICE, "What is 2+2?")
            bob_asked = tg.send(BOB, BOB, "为什么天是蓝的？")
            await tg.wait(lambda: len(model.bodies) == 3 and len(tg.bot_messages(ALICE)) == 1
                          and len(tg.bot_messages(BOB)) == 1, timeout=15)
            await tg.wait(lambda: "calculate" in tg.bot_messages(ALICE)[0].text)
            assert bot.terminate() == 0
            first_log = bot.output()
        [alice] = tg.bot_messages(ALICE)
        [bob] = tg.bot_messages(BOB)
        assert alice.reply_to == alice_asked and bob.reply_to == bob_asked
        assert "Glassbox is restarting" in alice.text and "calculate" in alice.text
        assert "Glassbox 正在重启" in bob.text
        assert alice.buttons == [] and bob.buttons == []
        assert "too late" not in alice.text + bob.text

        assert not Path(f"{db}-wal").exists()  # closed cleanly: checkpointed and removed
        with sqlite3.connect(db) as con:
            assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            runs = con.execute("SELECT id, status, ended_at FROM runs ORDER BY id").fetchall()
            assert [status for _, status, _ in runs] == ["interrupted", "interrupted"]
            assert all(ended for _, _, ended in runs)
            steps = con.execute("SELECT payload FROM steps WHERE run_id = ? ORDER BY id",
                                (runs[0][0],)).fetchall()
            shown = con.execute("SELECT count(*) FROM run_messages").fetchone()
        con.close()
        assert [json.loads(payload)["type"] for payload, in steps] == [
            "run_started", "note", "action", "observation", "run_finished"]
        assert shown == (2,)

        model.default = None
        model.push(text_reply("Still here."))
        with bot_process(tg, model, tmp_path) as bot:
            await bot.polling()
            asked = tg.send(ALICE, ALICE, "are you still there?")
            await tg.wait(lambda: any("Still here." in m.text and not m.buttons
                                      for m in tg.bot_messages(ALICE)), timeout=15)
            assert bot.terminate() == 0
            second_log = bot.output()
        assert tg.bot_messages(ALICE)[-1].reply_to == asked
        assert alice.versions[-1] == alice.text  # not touched again at the restart
    assert "Traceback" not in first_log + second_log
