"""The class board over real HTTP: /board hands out the link (privately in a group), the page
and its event stream follow the chat's runs live, a reconnect resumes, /board reset and
/forget take effect."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent.events import Action, Remark
from bot.store.chat_settings_values import ChatSettings
from bot.store.records import telegram_chat
from testkit.botkit import ADMIN, ALICE, GROUP, Add, people
from testkit.fakes.model import FakeModel, Reply, text_reply, tool_reply
from testkit.fakes.telegram import FakeTelegram
from testkit.serving import Served, SseEvent, event_stream, serving
from tests.historykit import seed

LINK = re.compile(r"/board/([A-Za-z0-9_-]{20,})")


def words(html: str) -> str:
    """A board's HTML without its tags: each figure of an answer is in a <span> whose title
    says what backs it."""
    return re.sub(r"<[^>]*>", "", html)


def compare_model(body: dict[str, Any]) -> Reply:
    """Answers by what it is asked: the plain lane at once, the ReAct lane with one tool."""
    if "tools" not in body:
        return text_reply("Roughly 100.")
    if body["messages"][-1]["role"] == "tool":
        return text_reply("Exactly 123.")
    return tool_reply(("add", {"a": 100, "b": 23}), content="I should add them.")


async def board_path(web: Served, chat_id: int = GROUP, who: int = ADMIN,
                     command: str = "/board") -> str:
    """Ask for the board in `chat_id` as `who`; the link's path, read where it was sent."""
    tg = web.gb.tg
    before = len(tg.bot_messages(who))
    asked = tg.send(chat_id, who, command)
    if chat_id != who:
        await tg.wait(lambda: bool(web.gb.replies_to(chat_id, asked)))
    await tg.wait(lambda: len(tg.bot_messages(who)) > before)
    found = LINK.search(tg.bot_messages(who)[-1].text)
    assert found is not None, tg.bot_messages(who)[-1].text
    assert tg.bot_messages(who)[-1].text.count(web.base_url) == 1
    return found[0]


def run_done(event: SseEvent) -> bool:
    return event.event == "run" and event.data["status"] != "running"


async def test_an_admin_gets_the_link_privately_and_others_do_not(tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        people(tg)
        async with serving(tg, model, tmp_path / "g.sqlite3") as web:
            asked = tg.send(GROUP, ALICE, "/board")
            await tg.wait(lambda: bool(web.gb.replies_to(GROUP, asked)))
            assert "Only the group's admins" in web.gb.replies_to(GROUP, asked)[0].text
            assert not tg.bot_messages(ALICE)

            path = await board_path(web)
            said = [m.text for m in tg.bot_messages(GROUP)]
            assert any("sent you the board link privately" in t for t in said)
            assert not any("/board/" in t for t in said)  # the link never goes to the group
            page = await web.http.get(path)
            assert page.status_code == 200
            assert 'src="/static/board.js"' in page.text
            assert (await web.http.get("/static/board.js")).status_code == 200
            assert (await web.http.get("/static/board.css")).status_code == 200
            assert await board_path(web) == path  # the same link until reset

            # An admin who never opened a private chat with the bot is asked to.
            tg.fail("sendMessage", "error_403_bot_blocked_by_user.json")
            asked = tg.send(GROUP, ADMIN, "/board")
            await tg.wait(lambda: bool(web.gb.replies_to(GROUP, asked)))
            assert "open a private chat with me" in web.gb.replies_to(GROUP, asked)[0].text


async def test_board_reset_stops_the_old_link(tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        people(tg)
        async with serving(tg, model, tmp_path / "g.sqlite3") as web:
            old = await board_path(web, ALICE, ALICE)  # a private chat: anyone, right there
            new = await board_path(web, ALICE, ALICE, "/board reset")
            assert new != old
            assert "old one no longer works" in tg.bot_messages(ALICE)[-1].text
            assert (await web.http.get(old)).status_code == 404
            assert (await web.http.get(old + "/events")).status_code == 404
            assert (await web.http.get(new)).status_code == 200


async def test_the_stream_follows_a_compare_live_and_resumes(tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel(default=compare_model) as model:
        people(tg)
        async with serving(tg, model, tmp_path / "g.sqlite3", tools=[Add()]) as web:
            path = await board_path(web)
            async with event_stream(web.http, path + "/events") as events:
                first = await events.next()
                assert first.event == "runs" and first.data == {"runs": []}
                asked = tg.send(GROUP, ALICE, "/compare what is 100+23?")
                seen = await events.until(run_done)
            await web.gb.answer_to(GROUP, asked)  # Alice may ask again once it is delivered
            runs = [e for e in seen if e.event == "run"]
            assert runs[0].data["status"] == "running"  # drawn while it ran, not only at the end
            final = runs[-1].data["html"]
            assert 'data-lane="plain"' in final and 'data-lane="react"' in final
            assert "Roughly 100." in words(final) and "Exactly 123." in words(final)
            # Each figure says what backs it; the digits that differ between the two answers
            # are marked in both, inside it (the equal leading 1 is not).
            assert 'title="the question">1<mark class="differs">00</mark></span>' in final
            assert '>1<mark class="differs">23</mark></span>' in final
            assert "I should add them." in final and "add(a=100, b=23)" in final
            assert 'class="difference ending"' in final and "No tools → ReAct" in final
            assert any(e.event == "runs" and e.data["runs"][0]["status"] == "running"
                       for e in seen)

            # Reconnecting from the last event: nothing again, then what is new.
            model.default = lambda body: text_reply("Two.")
            async with event_stream(web.http, path + "/events", seen[-1].id) as events:
                tg.send(GROUP, ALICE, "/ask what is 1+1?")
                resumed = await events.until(run_done)
            assert all(e.data.get("n") != 1 for e in resumed if e.event == "run")
            assert resumed[-1].data["n"] == 2 and "Two." in resumed[-1].data["html"]

            # Without an id (a new page, or a bot restarted meanwhile): a fresh snapshot.
            async with event_stream(web.http, path + "/events", "stale:99") as events:
                snapshot = [await events.next(), await events.next(), await events.next()]
            assert [r["n"] for r in snapshot[0].data["runs"]] == [2, 1]
            drawn = {e.data["n"]: e.data["html"] for e in snapshot[1:]}
            assert "Two." in drawn[2] and "Exactly 123." in words(drawn[1])

            # ← on the board: an earlier run, rebuilt from the store.
            earlier = (await web.http.get(path + "/runs/1")).json()
            assert "Exactly 123." in words(earlier["html"])
            assert 'class="difference ending"' in earlier["html"]
            assert (await web.http.get(path + "/runs/9")).status_code == 404


async def test_a_class_streaming_at_once_reaches_the_board_in_batches(tmp_path: Path) -> None:
    """Six answers streaming for about 2 s each, together: the board is sent each run at most
    every FRAME_S (0.5 s), not at every change (up to five a second a run), and each run's
    final state arrives whole."""
    from testkit.fakes.model import DashScope, sse

    answer = " ".join(f"word{n}" for n in range(40))
    with FakeTelegram(scale=0.02) as tg, FakeModel(
            default=lambda body: sse(DashScope().text(answer, pieces=40), delay=0.05)) as model:
        people(tg)
        students = [7100 + n for n in range(6)]
        for n, student in enumerate(students):
            tg.user(student, f"S{n}", "en")
        async with serving(tg, model, tmp_path / "g.sqlite3") as web:
            path = await board_path(web)
            async with event_stream(web.http, path + "/events") as events:
                await events.next()  # the (empty) list
                for student in students:
                    tg.send(GROUP, student, "/ask say forty words")
                drawn: dict[int, list[SseEvent]] = {}
                while sum(run_done(e[-1]) for e in drawn.values()) < len(students):
                    event = await events.next(timeout=20)
                    if event.event == "run":
                        drawn.setdefault(event.data["n"], []).append(event)
    assert sorted(drawn) == list(range(1, len(students) + 1))
    for events_of_run in drawn.values():
        assert answer in events_of_run[-1].data["html"]
        assert len(events_of_run) <= 8, [e.id for e in events_of_run]


async def test_forget_takes_the_run_off_the_board(tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel(default=lambda b: text_reply("Hi.")) as model:
        people(tg)
        async with serving(tg, model, tmp_path / "g.sqlite3") as web:
            path = await board_path(web)
            asked = tg.send(GROUP, ALICE, "/ask hello?")
            await web.gb.answer_to(GROUP, asked)
            async with event_stream(web.http, path + "/events") as events:
                assert (await events.next()).data["runs"][0]["n"] == 1
                tg.send(GROUP, ALICE, "/forget 1")
                gone = await events.until(lambda e: e.event == "runs")
            assert gone[-1].data == {"runs": []}
            assert (await web.http.get(path + "/runs/1")).status_code == 404


async def test_a_board_left_open_does_not_hold_up_a_shutdown(tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        people(tg)
        async with serving(tg, model, tmp_path / "g.sqlite3") as web:
            path = await board_path(web)
            async with event_stream(web.http, path + "/events") as events:
                await events.next()
                began = time.monotonic()
                web.stopping.set()  # as SIGTERM does
                with pytest.raises((EOFError, httpx.HTTPError)):
                    await events.next(timeout=5)
                ended = time.monotonic() - began
                await asyncio.wait_for(asyncio.shield(web.task), 15)
    assert ended < 1.5, ended  # the stream ends at once (uvicorn would wait two seconds)


async def test_a_chat_that_hides_glassbox_notes_has_none_on_its_board(tmp_path: Path) -> None:
    """/settings 📝 off: the board draws the chain without them, live and from the store."""
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        people(tg)
        async with serving(tg, model, tmp_path / "g.sqlite3", tools=[Add()]) as web:
            defaults = ChatSettings.defaults(web.gb.services.settings)
            await web.gb.services.store.chats.put(telegram_chat(GROUP),
                                               defaults.changed(remarks=False), defaults, ADMIN)
            path = await board_path(web)
            model.push(tool_reply(("add", {"a": 2, "b": 2})), text_reply("4."))  # no reasoning
            async with event_stream(web.http, path + "/events") as events:
                await events.next()
                asked = tg.send(GROUP, ALICE, "/ask what is 2+2?")
                seen = await events.until(run_done)
            final = await web.gb.answer_to(GROUP, asked)
            assert "Written by Glassbox" not in final.text  # as the chat shows it
            drawn = [e.data["html"] for e in seen if e.event == "run"]
            assert "add(a=2, b=2)" in drawn[-1] and "4." in drawn[-1]
            assert not any("Written by Glassbox" in html for html in drawn)
            # A run the hub no more holds (a restart): rebuilt from the store, as hidden.
            await seed(web.gb.services.store, GROUP, ALICE, "Alice", "And 3+3?", "6.", steps=[
                Remark(round=1, kind="no_reasoning", text="The model gave no reasoning."),
                Action(round=1, call_id="c1", tool="add", arguments={"a": 3, "b": 3})])
            stored = (await web.http.get(path + "/runs/2")).json()["html"]
            assert "add(a=3, b=3)" in stored and "no reasoning" not in stored
