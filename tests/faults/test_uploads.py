"""/notes uploads against the real `python -m bot` while other chats ask: a hostile PDF (its
pages share one Flate stream of megabytes of text-drawing operators) and a 19 MB text file.
Every question asked meanwhile is answered and stored, the upload's reply says what was kept
and what was cut, and reading stops at its time limit.

Then, in process: a chat reads one upload at a time and a user may make
NOTES_UPLOAD_RATE_LIMIT of them; a question whose run cannot be stored (the database locked
past its busy timeout) is told so instead of dropped; a run whose end meets a locked
database is stored once the lock goes."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from testkit.bot_process import bot_process
from testkit.botkit import ADMIN, ALICE, BOB, Glassbox, people
from testkit.class_asking import ANSWERED, CAROL, Class
from testkit.fakes.model import DashScope, FakeModel, sse, text_reply
from testkit.fakes.telegram import FakeTelegram
from testkit.fakes.telegram_faults import FaultyTelegram
from testkit.pdfkit import make_shared_stream_pdf
from testkit.serving import serving
from tests.faults.kit import glassbox, runs_of, still_answers

EXTRACT_S = 8


def stored(db: Path) -> tuple[list[tuple[int, str]], int]:
    """(user, status) of every stored run, and how many have their message ids."""
    with contextlib.closing(sqlite3.connect(db)) as con:
        runs = con.execute("SELECT user_id, status FROM runs ORDER BY id").fetchall()
        shown = con.execute("SELECT count(DISTINCT run_id) FROM run_messages").fetchone()[0]
    return runs, shown


async def upload_while_the_class_asks(tmp_path: Path, name: str, content: bytes,
                                      **env: str) -> tuple[str, float, Class]:
    """Alice uploads `content` in her chat while Bob, Carol and the teacher ask in theirs:
    the upload's reply, how long it took, and the questions asked."""
    with FaultyTelegram() as tg, FakeModel(default=lambda body: text_reply(ANSWERED)) as model:
        people(tg)
        tg.user(CAROL, "Carol", "en")
        with bot_process(tg, model, tmp_path, AGENT_TOOLS="calculate,search_notes",
                         USER_RATE_LIMIT="off", NOTES_DIR=str(tmp_path / "notes"),
                         **env) as bot:
            await tg.wait(lambda: tg.polls > 0, timeout=30)
            klass = Class(tg, (BOB, CAROL, ADMIN))
            await klass.ask_while(lambda: False)  # all of them answered before the upload
            started = time.monotonic()
            sent = tg.send_document(ALICE, ALICE, name, content, caption="/notes")
            replied = lambda: any(m.reply_to == sent for m in tg.bot_messages(ALICE))  # noqa: E731
            await tg.wait(lambda: "download" in tg.methods(), timeout=30)
            await klass.ask_while(lambda: not replied() and time.monotonic() - started < 150)
            await tg.wait(replied, timeout=5)
            took = time.monotonic() - started
            [reply] = [m for m in tg.bot_messages(ALICE) if m.reply_to == sent]
            assert bot.terminate() == 0
            log = bot.output()
    assert "Traceback" not in log and "database is locked" not in log
    return reply.text, took, klass


def assert_all_answered_and_stored(klass: Class, db: Path) -> None:
    assert klass.unanswered() == []
    runs, shown = stored(db)
    assert len(runs) == len(klass.asked) == shown
    assert all(status == "done" for _, status in runs)


async def test_a_hostile_pdf_is_read_within_its_limits_while_the_class_is_answered(
        tmp_path: Path) -> None:
    """Twelve pages showing one stream of a megabyte of operators (half a million
    characters a page): a reader spends seconds a page. Reading stops at the limit, each page
    is cut at 20,000 characters, and the reply says both."""
    pdf = make_shared_stream_pdf(12, 1_000_000)
    said, took, klass = await upload_while_the_class_asks(
        tmp_path, "hostile.pdf", pdf, NOTES_EXTRACT_TIMEOUT_S=str(EXTRACT_S))
    assert_all_answered_and_stored(klass, tmp_path / "g.sqlite3")
    assert took < EXTRACT_S + 20
    if said.startswith("📚 Indexed hostile.pdf"):
        assert f"of 12: reading stopped after {EXTRACT_S} s." in said
        assert ("more than 20,000 characters; only the first 20,000 of each were kept" in said
                or "1 page had more than 20,000 characters; only its first 20,000" in said)
        assert "1 pages" not in said and "pages 1–1 " not in said
    else:  # a machine so busy not one page was read in time
        assert said == f"Nothing could be read from hostile.pdf within {EXTRACT_S} s, so " \
                       "nothing was indexed."


async def test_a_19_mb_text_file_is_cut_to_its_limit_while_the_class_is_answered(
        tmp_path: Path) -> None:
    line = "The ReAct loop interleaves a thought, an action and an observation. "
    content = ("# Week 1\n\n" + "\n".join(line * 8 for _ in range(36_000))).encode()
    assert 19_000_000 < len(content) < 20 * 1024 * 1024
    said, _, klass = await upload_while_the_class_asks(tmp_path, "huge.txt", content)
    assert_all_answered_and_stored(klass, tmp_path / "g.sqlite3")
    assert said.startswith("📚 Indexed huge.txt: 1 section, 99")
    assert "Kept the first 99" in said and f"of its {len(content):,} characters: at most " \
        "1,000,000 are kept per file." in said
    with contextlib.closing(sqlite3.connect(tmp_path / "g.sqlite3")) as con:
        [(rows, chars)] = con.execute("SELECT count(*), sum(length(body))"
                                      " FROM notes_upload_passages").fetchall()
    assert 990_000 < chars <= 1_000_000 and rows == -(-chars // 600)


@contextlib.asynccontextmanager
async def locked(db: Path) -> AsyncIterator[None]:
    """Another writer holding the database's write lock until the block ends (taken in a
    thread: the bot's own transaction, if one is open, needs the event loop to end)."""
    con = sqlite3.connect(db, isolation_level=None, timeout=20, check_same_thread=False)
    try:
        await asyncio.to_thread(con.execute, "BEGIN IMMEDIATE")
        yield
        con.execute("COMMIT")
    finally:
        con.close()


async def test_one_upload_at_a_time_per_chat_and_a_rate_per_user(tmp_path: Path) -> None:
    async with glassbox(tmp_path, tools=None, agent_tools="search_notes",
                        notes_dir=tmp_path / "notes", notes_extract_timeout_s=3,
                        notes_upload_rate_limit="2/10m") as gb:
        slow = gb.tg.send_document(ALICE, ALICE, "hostile.pdf",
                                   make_shared_stream_pdf(12, 1_000_000), caption="/notes")
        await gb.tg.wait(lambda: "download" in gb.tg.methods())
        second = gb.tg.send_document(ALICE, ALICE, "week1.md", b"# Week 1\n\nReAct.\n",
                                     caption="/notes")
        busy = await reply(gb, ALICE, second)
        assert busy == ("This chat's previous file is still being read; send week1.md again "
                        "when it is done.")
        slow_said = await reply(gb, ALICE, slow, timeout=30)
        assert "reading stopped after 3 s" in slow_said or "within 3 s" in slow_said
        again = gb.tg.send_document(ALICE, ALICE, "week1.md", b"# Week 1\n\nReAct.\n",
                                    caption="/notes")
        assert (await reply(gb, ALICE, again)).startswith("📚 Indexed week1.md")
        third = gb.tg.send_document(ALICE, ALICE, "week2.md", b"# Week 2\n\nTools.\n",
                                    caption="/notes")
        assert await reply(gb, ALICE, third) == ("You have uploaded many files just now. "
                                                 "Please try again in 10 min.")
        bob = gb.tg.send_document(BOB, BOB, "第二周.md", "# 第二周\n\n工具。\n".encode(),
                                  caption="/notes")
        assert (await reply(gb, BOB, bob)).startswith("📚 已收录")
        kept = ["hostile.pdf"] if slow_said.startswith("📚 Indexed") else []
        assert gb.services.notes is not None
        assert [u.name for u in await gb.services.notes.uploads(ALICE)] == [*kept, "week1.md"]


async def reply(gb: Glassbox, chat: int, message_id: int, timeout: float = 15) -> str:
    """The text of the bot's first reply to `message_id`."""
    await gb.tg.wait(lambda: bool(gb.replies_to(chat, message_id)), timeout=timeout)
    return gb.replies_to(chat, message_id)[0].text


@pytest.mark.usefixtures("short_busy_timeout")
async def test_a_question_whose_run_cannot_be_stored_is_told_so(tmp_path: Path) -> None:
    async with glassbox(tmp_path) as gb:
        async with locked(gb.services.store.path):
            asked = gb.tg.send(ALICE, ALICE, "/ask what is 2+2?")
            said = await reply(gb, ALICE, asked, timeout=15)
        assert said == "This question could not be saved, so it was not answered. Please ask again."
        assert gb.model.bodies == [] and await runs_of(gb, ALICE) == []
        await still_answers(gb)


@pytest.mark.usefixtures("short_busy_timeout")
async def test_a_run_whose_end_meets_a_locked_database_is_stored_once_it_is_free(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    async with glassbox(tmp_path) as gb:
        gb.model.push(sse(DashScope().text("Four."), first_delay=1))
        asked = gb.tg.send(ALICE, ALICE, "/ask what is 2+2?")
        await gb.tg.wait(lambda: len(gb.tg.bot_messages(ALICE)) == 1 and bool(gb.model.bodies))
        async with locked(gb.services.store.path):
            await gb.tg.wait(lambda: "Four." in gb.tg.bot_messages(ALICE)[0].text)
            # held past the busy timeout: the store has refused the run's end once
            await gb.tg.wait(lambda: any("trying again" in r.getMessage()
                                         for r in caplog.records))
        final = await gb.answer_to(ALICE, asked)
        assert "Four." in final.text and not final.buttons
        [run] = await runs_of(gb, ALICE)
        assert run.status == "done" and run.answer == "Four."
        assert list(run.message_ids) == [final.message_id]
        kinds = [e.to_dict()["type"] for e in (await gb.services.store.events(run.id))["main"]]
        assert kinds[-2:] == ["answer", "run_finished"]
        await still_answers(gb)


@pytest.mark.usefixtures("short_busy_timeout")
async def test_an_api_question_whose_run_cannot_be_stored_is_a_503(tmp_path: Path) -> None:
    headers = {"Authorization": "Bearer teacher-token-1"}
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        model.push(text_reply("Hello."), text_reply("Hello again."))
        async with serving(tg, model, tmp_path / "g.sqlite3",
                           api_tokens="teacher-token-1") as web:
            first = await web.http.post("/api/v1/chat", headers=headers, json={"message": "hi"})
            assert first.status_code == 200
            async with locked(tmp_path / "g.sqlite3"):
                refused = await web.http.post("/api/v1/chat", headers=headers,
                                              json={"message": "hi again"}, timeout=30)
            assert refused.status_code == 503, refused.text
            assert refused.json()["error"]["code"] == "not_saved"
            again = await web.http.post("/api/v1/chat", headers=headers,
                                        json={"message": "hi again"})
            assert again.status_code == 200 and again.json()["answer"] == "Hello again."
