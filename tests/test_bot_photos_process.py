"""A photo question through `python -m bot` as a real process against the fake Bot API and
the fake model: the photo downloaded through getFile, read by the OCR process the bot starts,
the text read shown before the answer and given to the model, and both kept in the store."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from testkit.bot_process import bot_process
from testkit.botkit import ALICE, GROUP, people
from testkit.fakes.model import FakeModel, text_reply
from testkit.fakes.telegram import FakeTelegram
from testkit.photokit import PAGES, sample

EQUATION = next(p for p in PAGES if p.name == "equation")


async def test_the_bot_process_answers_a_photo_with_what_it_read(tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model, bot_process(
            tg, model, tmp_path, OCR_TIMEOUT_S="600") as bot:
        people(tg)
        model.push(text_reply("x = 6 and x = 9."))
        asked = tg.send_photo(GROUP, ALICE, sample(EQUATION, "photographed").data,
                              caption="/ask solve these")

        def answered() -> bool:
            return any(m.reply_to == asked and "x = 6 and x = 9." in m.text
                       for m in tg.bot_messages(GROUP))

        await tg.wait(answered, timeout=600)
        [final] = [m for m in tg.bot_messages(GROUP) if m.reply_to == asked]
        assert bot.proc.poll() is None
    shown = final.text
    assert shown.index("📷 Read from the photo (Glassbox, OCR)") < shown.index("Solve for x")
    assert shown.index("Solve for x") < shown.index("x = 6 and x = 9.")
    told = model.bodies[-1]["messages"][-1]["content"]
    assert told.startswith("solve these") and "Solve for x" in told
    assert "download" in tg.methods() and "getFile" in tg.methods()
    with sqlite3.connect(tmp_path / "g.sqlite3") as conn:
        assert conn.execute("SELECT count(*) FROM run_photos").fetchone() == (1,)
        [(payload,)] = conn.execute(
            "SELECT payload FROM steps WHERE payload LIKE '%input_read%'").fetchall()
    assert '"engine": "OCR"' in payload and "Solve for x" in payload
