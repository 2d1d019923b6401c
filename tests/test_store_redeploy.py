"""A redeploy on a PaaS: the bot asked, stopped, its working directory wiped (the platform
gives every deploy a fresh disk), started again with the same DATABASE_URL: /history and
/show still have the answer."""

from __future__ import annotations

import shutil
from pathlib import Path

from testkit.bot_process import bot_process
from testkit.botkit import ALICE, people
from testkit.dbkit import fresh_postgres
from testkit.fakes.model import FakeModel, text_reply
from testkit.fakes.telegram import FakeTelegram


async def test_history_and_show_survive_a_wiped_working_directory(tmp_path: Path) -> None:
    app = tmp_path / "app"
    async with fresh_postgres() as url:
        with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
            people(tg)
            app.mkdir()
            model.push(text_reply("Rayleigh scattering makes the sky blue."))
            with bot_process(tg, model, app, DATABASE_URL=url) as bot:
                await bot.polling()
                tg.send(ALICE, ALICE, "why is the sky blue?")
                await tg.wait(lambda: any("Rayleigh" in m.text and not m.buttons
                                          for m in tg.bot_messages(ALICE)), timeout=20)
                assert bot.terminate() == 0

            shutil.rmtree(app)  # the next deploy's fresh disk
            app.mkdir()
            with bot_process(tg, model, app, DATABASE_URL=url) as bot:
                await bot.polling()
                listed = tg.send(ALICE, ALICE, "/history")
                await tg.wait(lambda: any(m.reply_to == listed
                                          for m in tg.bot_messages(ALICE)), timeout=20)
                shown = tg.send(ALICE, ALICE, "/show 1")
                await tg.wait(lambda: any(m.reply_to == shown
                                          for m in tg.bot_messages(ALICE)), timeout=20)
                assert bot.terminate() == 0
                log = bot.output()
            history = [m for m in tg.bot_messages(ALICE) if m.reply_to == listed]
            show = [m for m in tg.bot_messages(ALICE) if m.reply_to == shown]
    assert "why is the sky blue?" in history[0].text
    assert "Rayleigh scattering makes the sky blue." in "\n".join(m.text for m in show)
    assert not (app / "g.sqlite3").exists()  # nothing of the store on the disk
    assert "Traceback" not in log
