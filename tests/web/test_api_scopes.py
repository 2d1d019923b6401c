"""An API token's scope is a conversation of its own in the store, on SQLite and PostgreSQL
alike: a database from before conversations had kinds (API scopes stored as chats numbered
from 9×10^15) upgrades in place and shows every token its own runs and sessions as before;
a token's first requests, many at once and beside other tokens' first requests, each get
one scope, never an error."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path

import aiosqlite
import asyncpg
import httpx

from agent.events import Answer, RunFinished, RunStarted, Usage
from bot.store.chat_settings_values import ChatSettings
from bot.store.db import is_postgres_url
from bot.store.kinds import ConversationKind
from bot.store.migrations import MIGRATIONS, migrate
from bot.store.pg_migrations import PG_MIGRATIONS, migrate_pg
from bot.store.records import Conversation, Scope
from bot.store.transcripts import Store
from testkit.dbkit import Target, execute, execute_many, query
from testkit.fakes.model import FakeModel, text_reply
from testkit.fakes.telegram import FakeTelegram
from testkit.serving import serving

BASE = 9_000_000_000_000_000
"""Where API scopes were numbered among the chat ids before m011."""
GROUP = -100123
TOKENS = "teacher-token-1, other-token-2"
TEACHER = {"Authorization": "Bearer teacher-token-1"}
OTHER = {"Authorization": "Bearer other-token-2"}
WHEN = "2026-12-01T08:00:00.000+00:00"


def _sha(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


async def _old_schema(target: Target) -> None:
    """The schema as of m008, the last version that keyed API scopes as made-up chats."""
    if is_postgres_url(target):
        pool = await asyncpg.create_pool(str(target), min_size=1, max_size=1)
        try:
            await migrate_pg(pool, PG_MIGRATIONS[:8])
        finally:
            await pool.close()
        return
    assert isinstance(target, Path)
    target.parent.mkdir(parents=True, exist_ok=True)
    async with aiosqlite.connect(target, isolation_level=None) as db:
        await migrate(db, MIGRATIONS[:8])


def _steps(question: str, answer: str) -> list[str]:
    return [json.dumps(e.to_dict(), ensure_ascii=False) for e in (
        RunStarted(round=0, mode="react", question=question, model="m"),
        Answer(round=1, text=answer),
        RunFinished(round=1, status="done", usage=Usage(10, 5, 15), duration_ms=900, rounds=1))]


async def make_old(target: Target) -> None:
    """A class's store as m008 left it: a Telegram group's run; the teacher's token (scope 1,
    chat BASE + 1) with a session of two runs; the other token's (scope 2) with one; and a
    Telegram private chat whose id is 1, which must stay apart from scope 1."""
    await _old_schema(target)
    runs = [  # id, chat_id, n, user_id, user_name, question, answer, parent_id
        (1, GROUP, 1, 7, "Alice", "杭州天气？", "晴。", None),
        (2, BASE + 1, 1, BASE + 1, "API 1", "What is 2+2?", "4.", None),
        (3, BASE + 1, 2, BASE + 1, "API 1", "And times 3?", "12.", 2),
        (4, BASE + 2, 1, BASE + 2, "API 2", "Other token's question", "Theirs.", None),
        (5, 1, 1, 1, "One", "A private chat numbered 1", "Yes.", None),
    ]
    await execute_many(target, "INSERT INTO runs (id, chat_id, n, user_id, user_name, mode,"
                       " question, model, status, started_at, ended_at, duration_ms,"
                       " prompt_tokens, completion_tokens, total_tokens, answer, parent_id)"
                       " VALUES (?, ?, ?, ?, ?, 'ask', ?, 'm', 'done', ?, ?, 900, 10, 5, 15, ?, ?)",
                       [(id_, chat, n, user, name, q, WHEN, WHEN, a, parent)
                        for (id_, chat, n, user, name, q, a, parent) in runs])
    if is_postgres_url(target):  # as if the bot had numbered them
        await query(target, "SELECT setval(pg_get_serial_sequence('runs', 'id'), 5)")
    for id_, _, _, _, _, question, answer, _ in runs:
        for number, payload in enumerate(_steps(question, answer)):
            await execute(target, "INSERT INTO steps (run_id, lane, kind, round, payload,"
                          " created_at) VALUES (?, 'main', ?, ?, ?, ?)",
                          (id_, json.loads(payload)["type"], number, payload, WHEN))
    for chat, last in ((GROUP, 1), (BASE + 1, 2), (BASE + 2, 1), (1, 1)):
        await execute(target, "INSERT INTO chat_counters (chat_id, last_n) VALUES (?, ?)",
                      (chat, last))
    for chat, token in ((BASE + 1, "teacher-token-1"), (BASE + 2, "other-token-2")):
        await execute(target, "INSERT INTO api_scopes (chat_id, token_sha256, made_at)"
                      " VALUES (?, ?, ?)", (chat, _sha(token), WHEN))
    for run_id, session in ((2, "s1"), (3, "s1"), (4, "s2")):
        await execute(target, "INSERT INTO api_runs (run_id, session_id) VALUES (?, ?)",
                      (run_id, session))
    await execute(target, "INSERT INTO chat_settings (chat_id, settings, updated_at,"
                  " updated_by) VALUES (?, ?, ?, NULL)", (BASE + 1, '{"notes": false}', WHEN))


async def test_an_old_database_shows_each_token_its_own_runs_after_the_upgrade(
        db_target: Target) -> None:
    await make_old(db_target)
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        async with serving(tg, model, db_target, api_tokens=TOKENS) as web:  # type: ignore[arg-type]
            listed = (await web.http.get("/api/v1/runs", headers=TEACHER)).json()
            session = (await web.http.get("/api/v1/runs?sessionId=s1", headers=TEACHER)).json()
            one = await web.http.get("/api/v1/runs/3", headers=TEACHER)
            theirs = (await web.http.get("/api/v1/runs", headers=OTHER)).json()
            hidden = await web.http.get("/api/v1/runs/3", headers=OTHER)
            model.push(text_reply("36."))
            asked = await web.http.post("/api/v1/chat", headers=TEACHER, json={
                "message": "And times 3 again?", "sessionId": "s1"})
            store = web.gb.services.store
            new = await store.api.run_by_id(Conversation(ConversationKind.API, 1),
                                            asked.json()["runId"])
            private = (await store.history(Scope(1))).runs
            group = (await store.history(Scope(GROUP), keyword="杭州")).runs
            token_3 = await store.api.scope("third-token")
            settings = await store.chats.get(Conversation(ConversationKind.API, 1),
                                             ChatSettings.defaults(web.gb.services.settings))

    assert [(r["runId"], r["sessionId"], r["question"]) for r in listed["runs"]] == [
        (3, "s1", "And times 3?"), (2, "s1", "What is 2+2?")]
    assert [r["runId"] for r in session["runs"]] == [3, 2]
    assert one.status_code == 200
    assert (one.json()["answer"], one.json()["sessionId"]) == ("12.", "s1")
    assert [(r["runId"], r["sessionId"]) for r in theirs["runs"]] == [(4, "s2")]
    assert hidden.status_code == 404
    # The session goes on: the new run follows the last, numbered next in the scope.
    assert asked.status_code == 200, asked.text
    assert asked.json()["answer"] == "36." and asked.json()["sessionId"] == "s1"
    assert new is not None and (new.n, new.parent_id, new.user_id) == (3, 3, None)
    assert not settings.remarks  # the scope's own settings came along
    # The private chat numbered 1 is still its own, apart from scope 1.
    assert [(r.id, r.n, r.user_id, r.kind) for r in private] == [
        (5, 1, 1, ConversationKind.TELEGRAM)]
    assert [r.id for r in group] == [1]
    assert token_3.id > 2
    kinds = await query(db_target, "SELECT id, conversation_kind, chat_id, user_id FROM runs"
                        " WHERE id <= 5 ORDER BY id")
    assert [tuple(row) for row in kinds] == [
        (1, "telegram", GROUP, 7), (2, "api", 1, None), (3, "api", 1, None),
        (4, "api", 2, None), (5, "telegram", 1, 1)]


async def test_twelve_first_requests_at_once_each_get_their_tokens_one_scope(
        db_target: Target) -> None:
    """Six new tokens, each sending its first two requests at the same moment: every
    request is answered, each token has one scope, no two tokens share one."""
    tokens = [f"first-use-{i}" for i in range(6)]
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        async with serving(tg, model, db_target, api_tokens=", ".join(tokens)) as web:  # type: ignore[arg-type]
            async with httpx.AsyncClient(base_url=web.base_url) as fresh:  # 12 connections
                first = await asyncio.gather(*(
                    fresh.get("/api/v1/runs", headers={"Authorization": f"Bearer {token}"})
                    for token in tokens for _ in range(2)))
            scopes = [await web.gb.services.store.api.scope(token) for token in tokens]
    assert [a.status_code for a in first] == [200] * 12, [a.text for a in first]
    assert len(set(scopes)) == 6 and {s.kind for s in scopes} == {ConversationKind.API}
    rows = await query(db_target, "SELECT id, token_sha256 FROM api_scopes")
    assert sorted((row[1], row[0]) for row in rows) == sorted(
        (_sha(token), scope.id) for token, scope in zip(tokens, scopes, strict=True))


async def test_an_old_store_reads_back_without_the_bot(db_target: Target) -> None:
    """The store alone: a Telegram run's steps read back as they were stored, a new run of
    the group is numbered after its old ones, and the copied tables keep their index and
    references."""
    await make_old(db_target)
    store = await Store.open(db_target)
    try:
        old = await store.get(Scope(GROUP), 1)
        assert old is not None
        events = await store.events(old.id)
        assert [e.type for e in events["main"]] == ["run_started", "answer", "run_finished"]
        new = await store.start_run(chat_id=GROUP, user_id=7, user_name="Alice", mode="ask",
                                    question="明天呢？", model="m")
        assert new.n == 2
        # The search index and the references to a run hold in the copied tables: a search
        # finds the old run, forgetting one takes its steps and unlinks its follow-up.
        assert [r.id for r in (await store.history(Scope(1), keyword="private chat")).runs
                ] == [5]
        assert await store.forget(Scope(1), 1)
        assert (await store.history(Scope(1), keyword="private chat")).total == 0
        assert await query(db_target, "SELECT count(*) FROM steps WHERE run_id = 5") == [(0,)]
        scope = Conversation(ConversationKind.API, 1)
        assert await store.forget(Scope.of(scope), 1)
        follow_up = await store.api.run_by_id(scope, 3)
        assert follow_up is not None and follow_up.parent_id is None
    finally:
        await store.close()
