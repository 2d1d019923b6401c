"""/history paging and keyword search, and scope: no chat reaches another chat's runs."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from agent.events import Thought, Usage
from bot.store.records import Scope
from bot.store.transcripts import Store
from testkit.dbkit import Target

GROUP, OTHER_GROUP = -100123, -100999
ALICE, BOB = 11, 22


@pytest.fixture
async def store(db_target: Target) -> AsyncIterator[Store]:
    opened = await Store.open(db_target)
    yield opened
    await opened.close()


async def ask(store: Store, question: str, answer: str = "", chat_id: int = GROUP,
              user_id: int = ALICE) -> int:
    run = await store.start_run(chat_id=chat_id, user_id=user_id, user_name=f"u{user_id}",
                                mode="ask", question=question, model="qwen-plus")
    await store.append(run.id, Thought(round=1, text="t"))
    await store.finish(run.id, status="done", usage=Usage(1, 1, 2), duration_ms=5, answer=answer)
    return run.n


async def test_history_pages_newest_first(store: Store) -> None:
    for i in range(1, 26):
        await ask(store, f"question {i}")

    first = await store.history(Scope(GROUP))
    assert (first.page, first.pages, first.total) == (1, 3, 25)
    assert [r.n for r in first.runs] == list(range(25, 15, -1))
    assert first.runs[0].question == "question 25"
    last = await store.history(Scope(GROUP), page=3)
    assert [r.n for r in last.runs] == [5, 4, 3, 2, 1]
    # a forged or stale page number from a button lands on a real page
    assert (await store.history(Scope(GROUP), page=99)).page == 3
    assert (await store.history(Scope(GROUP), page=-4)).runs == first.runs


async def test_empty_history_is_one_empty_page(store: Store) -> None:
    page = await store.history(Scope(GROUP), keyword="nothing here")
    assert (page.runs, page.page, page.pages, page.total) == ((), 1, 1, 0)


@pytest.fixture
async def lecture(store: Store) -> Store:
    await ask(store, "杭州今天的天气怎么样？", "杭州今天晴，气温 18 度。")
    await ask(store, "What is the capital of France?", "Paris is the capital of France.")
    await ask(store, "北京有多少人口？", "About 21.9 million people live in Beijing.")
    await ask(store, "Convert 100 USD to CNY", "100 USD is about 720 人民币.")
    await ask(store, "杭州天气", "answered elsewhere", chat_id=OTHER_GROUP)
    return store


@pytest.mark.parametrize(("keyword", "questions"), [
    ("杭州今天", ["杭州今天的天气怎么样？"]),            # Chinese, trigram index
    ("气温", ["杭州今天的天气怎么样？"]),                # two characters: LIKE, in the answer
    ("人", ["Convert 100 USD to CNY", "北京有多少人口？"]),  # one character
    ("capital", ["What is the capital of France?"]),
    ("PARIS", ["What is the capital of France?"]),     # any case, found in the answer
    ("beijing 人口", ["北京有多少人口？"]),              # every word must match
    ("usd 人民币", ["Convert 100 USD to CNY"]),
    ("London", []),
    ('"capital" OR', []),                              # FTS syntax is just text
    ("100%", []),                                      # so are LIKE wildcards
    ("o_t", []),
])
async def test_keyword_search(lecture: Store, keyword: str, questions: list[str]) -> None:
    page = await lecture.history(Scope(GROUP), keyword=keyword)
    assert [r.question for r in page.runs] == questions
    assert page.total == len(questions)


async def test_keyword_search_pages(store: Store) -> None:
    for i in range(12):
        await ask(store, f"天气问题 {i}" if i % 2 else f"other {i}")
    page = await store.history(Scope(GROUP), keyword="天气问题", per_page=5, page=2)
    assert (page.total, page.pages, [r.question for r in page.runs]) == (
        6, 2, ["天气问题 1"])


async def test_no_chat_reaches_another_chats_runs(store: Store) -> None:
    n = await ask(store, "our secret question", "our secret answer")
    assert await store.get(Scope(GROUP), n) is not None

    outsider = Scope(OTHER_GROUP)
    assert await store.get(outsider, n) is None
    assert (await store.history(outsider)).total == 0
    assert (await store.history(outsider, keyword="secret")).total == 0
    assert not await store.forget(outsider, n)
    assert await store.forget_all(OTHER_GROUP) == 0
    for forged in (0, -1, n + 1, 10**12):  # button data anyone can forge
        assert await store.get(Scope(GROUP), forged) is None
        assert not await store.forget(Scope(GROUP), forged)
    assert (await store.history(Scope(GROUP))).total == 1


async def test_a_private_chat_sees_only_its_users_runs(store: Store) -> None:
    # Telegram gives a private chat the user's id; scope still checks the user
    mine = await ask(store, "mine", chat_id=ALICE, user_id=ALICE)
    planted = await ask(store, "not mine", chat_id=ALICE, user_id=BOB)
    private = Scope(ALICE, ALICE)
    assert [r.question for r in (await store.history(private)).runs] == ["mine"]
    assert await store.get(private, planted) is None
    assert not await store.forget(private, planted)
    assert await store.forget(private, mine)


async def test_members_forget_their_own_runs_admins_any(store: Store) -> None:
    alices = await ask(store, "alice asks")
    bobs = await ask(store, "bob asks", user_id=BOB)
    assert not await store.forget(Scope(GROUP, ALICE), bobs)  # a member, someone else's run
    assert await store.forget(Scope(GROUP, ALICE), alices)
    assert await store.forget(Scope(GROUP), bobs)             # an admin
    await ask(store, "x")
    await ask(store, "y", user_id=BOB)
    await ask(store, "elsewhere", chat_id=OTHER_GROUP)
    assert await store.forget_all(GROUP) == 2
    assert (await store.history(Scope(OTHER_GROUP))).total == 1
