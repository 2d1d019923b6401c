"""`python -m bot.store copy`: a populated SQLite store moved to PostgreSQL (and back) reads
back the same through the store, twice copied is once copied, and a target holding another
class's runs is refused."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from agent.events import Action, Answer, Observation, RunFinished, RunStarted, Thought, Usage
from agent.model.endpoint_memory import EndpointMemory
from agent.tools.notes_index import Upload
from bot.store.chat_settings_values import ChatSettings
from bot.store.course_notes import open_notes_index
from bot.store.records import Scope, telegram_chat
from bot.store.transcripts import Store
from testkit.dbkit import Target, fresh_postgres

ROOT = Path(__file__).resolve().parent.parent
GROUP, ALICE = -100123, 11
ONE = 1
"""A Telegram chat whose id is the first API token's scope number: each keeps its own."""
STEPS = [
    RunStarted(round=0, mode="react", question="杭州天气？", model="m", tools=("weather",)),
    Thought(round=1, text="查天气"),
    Action(round=1, call_id="c1", tool="weather", arguments={"city": "杭州"}),
    Observation(round=1, call_id="c1", tool="weather", text="晴 21°C", ok=True, duration_ms=9),
    Answer(round=2, text="杭州今天晴。"),
    RunFinished(round=2, status="done", usage=Usage(10, 5, 15), duration_ms=40, rounds=2,
                tool_calls=1),
]


async def populate(where: Target, notes: Path) -> None:
    """A class's store: three chats, a reply thread with a summary, settings, a board link,
    an API session (its scope numbered as one of the chats) and a file uploaded with /notes."""
    store = await Store.open(where)
    try:
        first = await store.start_run(chat_id=GROUP, user_id=ALICE, user_name="Alice",
                                      mode="ask", question="杭州天气？", model="m")
        await store.append_steps(first.id, [("main", e) for e in STEPS])
        await store.add_message_ids(first.id, [501, 502])
        await store.finish(first.id, status="done", usage=Usage(10, 5, 15), duration_ms=40,
                           answer="杭州今天晴。")
        second = await store.start_run(chat_id=GROUP, user_id=ALICE, user_name="Alice",
                                       mode="ask", question="明天呢？", model="m",
                                       parent_id=first.id)
        assert await store.threads.keep_summary(second.id, "问了杭州天气",
                                                [first.id, second.id])
        await store.start_run(chat_id=ALICE, user_id=ALICE, user_name="Alice", mode="plain",
                              question="hello", model="m")
        defaults = ChatSettings()
        await store.chats.put(telegram_chat(GROUP), defaults.changed(lang="zh", walkthrough=True),
                              defaults, by=7)
        await store.boards.token(GROUP)
        api = await store.api.scope("token-1")
        assert api.id == ONE
        session_run = await store.start_run(chat_id=api.id, kind=api.kind, user_id=None,
                                            user_name="API 1", mode="ask", question="via api",
                                            model="m")
        await store.api.add_to_session(session_run.id, "s1")
        await store.endpoints.put(EndpointMemory("http://127.0.0.1:8777/v1 local",
                                                 calls_as_text=True))
        await store.start_run(chat_id=ONE, user_id=ONE, user_name="One", mode="ask",
                              question="via telegram", model="m")
        index = await open_notes_index(store, notes)
        try:
            await index.put_upload(GROUP, Upload("week1.md", "text", 1, 30),
                                   [("", "工具调用", "智能体通过工具调用获取外部信息。")])
        finally:
            await index.close()
    finally:
        await store.close()


def copy(source: str, target: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "bot.store", "copy", "--from", source,
                           "--to", target], env=env, capture_output=True, text=True,
                          timeout=120)


def copied(output: str) -> dict[str, tuple[int, int]]:
    """table -> (rows in the source, rows copied), from the printed lines."""
    found = {}
    for line in output.splitlines():
        name, rest = line.split(None, 1)
        held, added = rest.replace(" in the source,", "").replace(" copied", "").split()
        found[name] = (int(held), int(added))
    return found


async def read_back(where: Target, notes: Path) -> None:
    store = await Store.open(where)
    try:
        page = await store.history(Scope(GROUP))
        assert [(r.n, r.question) for r in page.runs] == [(2, "明天呢？"), (1, "杭州天气？")]
        first = await store.get(Scope(GROUP), 1)
        assert first is not None and first.answer == "杭州今天晴。"
        assert first.message_ids == (501, 502) and first.usage == Usage(10, 5, 15)
        assert await store.events(first.id) == {"main": STEPS}
        assert (await store.by_message(GROUP, 502)).id == first.id  # type: ignore[union-attr]
        second = await store.get(Scope(GROUP), 2)
        assert second is not None
        assert [r.n for r in await store.threads.runs(second)] == [1, 2]
        assert await store.threads.summaries([second.id]) == {second.id: "问了杭州天气"}
        assert [r.n for r in (await store.history(Scope(GROUP), keyword="杭州")).runs] == [1]
        chat = await store.chats.get(telegram_chat(GROUP), ChatSettings())
        assert (chat.lang, chat.walkthrough) == ("zh", True)
        assert await store.boards.chat(await store.boards.token(GROUP)) == GROUP
        api = await store.api.scope("token-1")
        assert [r.question for r in await store.api.session_runs(api, "s1")] == ["via api"]
        [via_api] = (await store.history(Scope.of(api))).runs
        [via_telegram] = (await store.history(Scope(ONE))).runs
        assert (via_api.n, via_api.user_id, via_telegram.n) == (1, None, 1)
        assert via_telegram.question == "via telegram"
        assert (await store.api.scope("token-2")).id == 2  # after the copied scope
        index = await open_notes_index(store, notes)
        try:
            assert [u.name for u in await index.uploads(GROUP)] == ["week1.md"]
            (found,) = await index.search("工具调用", scope=GROUP, limit=1)
            assert found.body == "智能体通过工具调用获取外部信息。"
        finally:
            await index.close()
        # numbering goes on after the copied runs, and new ids never collide
        third = await store.start_run(chat_id=GROUP, user_id=ALICE, user_name="Alice",
                                      mode="ask", question="后天呢？", model="m")
        assert third.n == 3 and third.id > second.id
    finally:
        await store.close()


async def test_a_populated_sqlite_store_round_trips_through_postgres(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    sqlite = tmp_path / "data" / "glassbox.sqlite3"
    await populate(sqlite, notes)
    async with fresh_postgres() as url:
        done = copy(f"sqlite:///{sqlite}", url)
        assert done.returncode == 0, done.stderr
        counts = copied(done.stdout)
        assert counts["runs"] == (5, 5) and counts["steps"] == (6, 6)
        assert counts["notes_uploads"] == (1, 1) and counts["run_messages"] == (2, 2)
        assert counts["chat_settings"] == (1, 1) and counts["thread_summaries"] == (1, 1)
        assert counts["endpoint_memory"] == (1, 1)

        again = copy(f"sqlite:///{sqlite}", url)  # idempotent: nothing doubled
        assert again.returncode == 0, again.stderr
        assert all(added == 0 for _, added in copied(again.stdout).values())
        await read_back(url, notes)

        back = tmp_path / "back.sqlite3"  # and back again, to a new SQLite file
        done = copy(url, str(back))
        assert done.returncode == 0, done.stderr
        assert copied(done.stdout)["runs"] == (6, 6) and copied(done.stdout)["api_scopes"] == (2, 2)
        store = await Store.open(back)
        try:
            assert (await store.history(Scope(GROUP))).total == 3
            remembered = await store.endpoints.get("http://127.0.0.1:8777/v1 local")
            assert remembered.calls_as_text and not remembered.tools_rejected
        finally:
            await store.close()


async def test_a_target_with_another_class_is_refused(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    ours, theirs = tmp_path / "ours.sqlite3", tmp_path / "theirs.sqlite3"
    await populate(ours, notes)
    store = await Store.open(theirs)
    try:
        await store.start_run(chat_id=-7, user_id=1, user_name="X", mode="ask",
                              question="another class", model="m")
    finally:
        await store.close()
    done = copy(f"sqlite:///{ours}", str(theirs))
    assert done.returncode == 2
    assert done.stderr.strip() == ("Cannot copy: the target already holds 1 runs that are not "
                                   "in the source; copy into an empty database.")


def test_an_unreachable_target_is_one_line_without_its_password(tmp_path: Path) -> None:
    source = tmp_path / "g.sqlite3"
    source.touch()
    done = copy(str(source), "postgresql://teacher:hunter2secret@127.0.0.1:1/class")
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("Cannot copy: cannot reach the PostgreSQL database at "
                           "postgresql://teacher:***@127.0.0.1:1/class")
    assert "hunter2secret" not in done.stderr
