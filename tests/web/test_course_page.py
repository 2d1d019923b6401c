"""The course page over real HTTP, behind the board's secret, on SQLite and PostgreSQL: its
data (every figure of the seeded course), the page in both languages with the lists
linking to the board, the CSV (both languages, anonymised by the setting, formulas
defused), no secret in any of them; and GET /api/v1/stats of a token's own runs."""

from __future__ import annotations

import csv
import io
from collections.abc import AsyncIterator

import pytest

from agent.events import Usage
from bot.store.kinds import ConversationKind
from testkit.agentkit import TEST_KEY
from testkit.botkit import TOKEN, people
from testkit.dbkit import Target
from testkit.fakes.model import FakeModel
from testkit.fakes.telegram import FakeTelegram
from testkit.serving import Served, serving
from tests.coursekit import EXPECTED, GROUP, NAMES, seed_course

WEEK = "from=2026-09-01&to=2026-09-07"
API = {"Authorization": "Bearer teacher-token-1"}


@pytest.fixture
async def web(db_target: Target, request: pytest.FixtureRequest) -> AsyncIterator[Served]:
    extra = getattr(request, "param", {})
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        people(tg)
        tg.group(GROUP, "Class 3A")
        for user, name in NAMES.items():
            tg.user(user, name)
        async with serving(tg, model, db_target, chat_daily_token_budget="5000",  # type: ignore[arg-type]
                           api_tokens="teacher-token-1", **extra) as served:
            await seed_course(served.gb.services.store)
            yield served


async def course_path(web: Served) -> str:
    return f"/board/{await web.gb.services.store.boards.token(GROUP)}/course"


def secrets_of(web: Served) -> list[str]:
    settings = web.gb.services.settings
    where = str(settings.database_path) if not settings.database_url.get_secret_value() \
        else settings.database_url.get_secret_value()
    return [TOKEN, TEST_KEY, "teacher-token-1", where]


async def test_the_page_s_data_is_the_seeded_course(web: Served) -> None:
    answer = await web.http.get(f"{await course_path(web)}.json?{WEEK}")
    assert answer.status_code == 200
    assert answer.json() == {**EXPECTED, "budget": 5000, "overBudgetDays": 0}


@pytest.mark.parametrize(("lang", "words"), [
    ("en", ["11 questions · 2 lectures · 4 askers", "9 tool calls, 2 failed",
            "/compare differed 1 of 2", "/quiz top pick right 2 of 4 rounds", "6,600 tokens",
            "round 1: 1 of 4 right", "failed: timeout"]),
    ("zh", ["11 个问题 · 2 次课 · 4 人提问", "工具 9 次，失败 2 次", "/compare 数字不同 1/2",
            "/quiz 首选猜中 2/4 轮", "6,600 token", "第 1 轮：1/4 猜中", "失败：timeout"]),
])
async def test_the_page_shows_the_figures_and_links_each_question(web: Served, lang: str,
                                                                 words: list[str]) -> None:
    path = await course_path(web)
    # The page waits for its charts, drawn within the drawing process's own bound.
    answer = await web.http.get(f"{path}?{WEEK}&lang={lang}",
                                timeout=web.gb.services.drawing.timeout_s)
    assert answer.status_code == 200
    page = answer.text
    for said in words:
        assert said in page
    assert page.count('<img alt="') == 6 and page.count("data:image/svg+xml;base64,") == 6
    assert '<a href="course/runs/4' in page and "What is 6 times 7?" in page
    assert '<a href="course/runs/9' in page  # the round the class got most wrong
    assert "Content-Security-Policy" in answer.headers and "script" not in page
    for secret in [*secrets_of(web), path.split("/")[2]]:
        assert secret not in page

    linked = await web.http.get(f"{path}/runs/4?lang={lang}")
    assert linked.status_code == 200 and 'data-run="4"' in linked.text


async def test_the_csv_lists_the_period_s_runs(web: Served) -> None:
    answer = await web.http.get(f"{await course_path(web)}.csv?{WEEK}")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/csv")
    assert "attachment" in answer.headers["content-disposition"]
    rows = list(csv.reader(io.StringIO(answer.text.lstrip("\ufeff"))))
    assert rows[0] == ["time", "asker", "number", "mode", "question", "tools", "status",
                       "rounds", "tokens", "seconds", "quiz rounds top pick right"]
    assert len(rows) == 12
    assert rows[2] == ["2026-09-01 10:00", "Bob", "2", "ask", "What is 17% of 2480?",
                       "calculate calculate", "done", "3", "200", "2.0", ""]
    assert rows[5][3:] == ["quiz", "How much is 3840 plus 5%?", "calculate", "done", "2",
                           "500", "5.0", "1/2"]
    assert rows[6][6] == "error: timeout"
    assert rows[7][0] == "2026-09-03 07:30"  # the chat's day, not UTC's
    for secret in secrets_of(web):
        assert secret not in answer.text

    zh = await web.http.get(f"{await course_path(web)}.csv?{WEEK}&lang=zh")
    assert zh.text.lstrip("\ufeff").startswith("时间,提问者,编号,方式,问题,工具,结局")


@pytest.mark.parametrize("web", [{"course_anonymous_askers": True}], indirect=True)
async def test_askers_are_anonymised_by_the_setting(web: Served) -> None:
    store = web.gb.services.store
    record = await store.start_run(chat_id=GROUP, user_id=77, user_name="Mallory",
                                   mode="ask", question="=HYPERLINK(\"http://x\")", model="m")
    await store.finish(record.id, status="done", usage=Usage(), duration_ms=1, answer="")
    answer = await web.http.get(f"{await course_path(web)}.csv")
    rows = list(csv.reader(io.StringIO(answer.text.lstrip("\ufeff"))))
    assert "Mallory" not in answer.text and "Alice" not in answer.text
    assert rows[-1][1].startswith("Student ") and rows[-1][4] == "'=HYPERLINK(\"http://x\")"


async def test_what_the_page_refuses(web: Served) -> None:
    path = await course_path(web)
    backwards = await web.http.get(f"{path}?from=2026-09-07&to=2026-09-01")
    assert backwards.status_code == 400 and "ends before it starts" in backwards.text
    too_long = await web.http.get(f"{path}.json?from=2020-01-01&to=2026-01-01")
    assert too_long.status_code == 400 and "366 days" in too_long.json()["error"]
    unreadable = await web.http.get(f"{path}.csv?from=yesterday&lang=zh")
    assert unreadable.status_code == 400 and "看不懂" in unreadable.text
    token = path.split("/")[2]
    await web.gb.services.store.boards.token(GROUP, renew=True)
    for tail in ("", ".json", ".csv", "/runs/4"):
        assert (await web.http.get(f"/board/{token}/course{tail}")).status_code == 404


async def test_the_api_s_stats_are_the_token_s_own_runs(web: Served) -> None:
    store = web.gb.services.store
    scope = await store.api.scope("teacher-token-1")
    assert scope.kind == ConversationKind.API
    record = await store.start_run(chat_id=scope.id, user_id=None, user_name="API",
                                   mode="compare", question="q", model="m", kind=scope.kind)
    await store.finish(record.id, status="done", usage=Usage(0, 0, 42), duration_ms=1,
                       answer="")
    answer = await web.http.get("/api/v1/stats", headers=API)
    assert answer.status_code == 200
    data = answer.json()
    assert (data["runs"], data["tokens"], data["modes"]["compare"]) == (1, 42, 1)
    assert (await web.http.get(f"/api/v1/stats?{WEEK}", headers=API)).json()["runs"] == 0
    bad = await web.http.get("/api/v1/stats?from=2026-13-01", headers=API)
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_query"
    assert (await web.http.get("/api/v1/stats")).status_code == 401
