"""PostgreSQL going away under a running bot, and coming back (through a relay the test
cuts, testkit/dbkit.Cuttable): a question still gets its answer, which says its transcript
could not be saved, and /history says the records cannot be reached; /healthz says 503
while the database is down and 200 once it is back; what was stored before is all still
there. And a database unreachable at start-up: one line, exit 2, no password."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx

from testkit.bot_process import bot_process, free_port
from testkit.botkit import ALICE, GROUP, people
from testkit.dbkit import Cuttable, fresh_postgres, query
from testkit.fakes.model import FakeModel, text_reply
from testkit.fakes.telegram import FakeTelegram
from testkit.serving import serving
from tests.historykit import reply


async def healthz_becomes(http: httpx.AsyncClient, status: int, timeout: float = 20) -> None:
    for _ in range(int(timeout / 0.2)):
        if (await http.get("/healthz")).status_code == status:
            return
        await asyncio.sleep(0.2)
    raise AssertionError(f"/healthz never said {status}")


async def test_a_run_answers_while_the_database_is_down_and_healthz_follows_it() -> None:
    async with fresh_postgres() as url, Cuttable(url) as relay:
        with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
            people(tg)
            async with serving(tg, model, relay.url) as web:
                model.push(text_reply("Four."))
                saved = tg.send(GROUP, ALICE, "/ask what is 2+2?")
                await web.gb.answer_to(GROUP, saved)

                await relay.cut()
                await healthz_becomes(web.http, 503)
                model.push(text_reply("Six."))
                asked = tg.send(GROUP, ALICE, "/ask what is 3+3?")
                final = await web.gb.answer_to(GROUP, asked, timeout=30)
                assert "Six." in final.text
                assert "This answer could not be saved" in final.text
                down = await reply(web.gb, GROUP, ALICE, "/history")
                assert "records cannot be reached right now" in down.text
                model.default = lambda body: text_reply("Seven.")  # type: ignore[assignment]
                compared = tg.send(GROUP, ALICE, "/compare what is 3+4?")
                both = await web.gb.answer_to(GROUP, compared, timeout=30)
                assert both.text.count("Seven.") == 2 and "⚖️" in both.text
                assert "could not be saved" in both.text and "went wrong" not in both.text
                model.default = None  # type: ignore[assignment]

                await relay.restore()
                await healthz_becomes(web.http, 200)
                listed = await reply(web.gb, GROUP, ALICE, "/history")
                assert "what is 2+2?" in listed.text and "3+3" not in listed.text
                model.push(text_reply("Eight."))
                again = tg.send(GROUP, ALICE, "/ask what is 4+4?")
                back = await web.gb.answer_to(GROUP, again)
                assert "Eight." in back.text and "could not be saved" not in back.text
        rows = await query(url, "SELECT n, question, status FROM runs ORDER BY n")
    assert rows == [(1, "what is 2+2?", "done"), (2, "what is 4+4?", "done")]


def test_an_unreachable_database_at_start_is_one_line_and_exit_2(tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model, bot_process(
            tg, model, tmp_path, DATABASE_URL=f"postgres://teacher:hunter2secret@127.0.0.1:"
                                              f"{free_port()}/glassbox") as bot:
        code = bot.proc.wait(60)
        output = bot.output()
    assert code == 2
    assert "hunter2secret" not in output and "Traceback" not in output
    assert output.strip().splitlines()[-1].startswith(
        "Glassbox cannot start: cannot reach the PostgreSQL database at "
        "postgres://teacher:***@127.0.0.1:")
