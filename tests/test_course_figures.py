"""The course's figures against a known course on SQLite and PostgreSQL (`db_target`): every
count and rate the picture, the page and the API show, a student's own, and what must never
count (a private chat's runs, a forgotten run, runs outside the period)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.course.period import PeriodProblem, between, parse_period
from bot.course.service import Course
from bot.store.records import Scope, telegram_chat
from bot.store.transcripts import Store
from testkit.dbkit import Target
from tests.coursekit import ALICE, ALICE_RUNS, EXPECTED, GROUP, PERIOD, ZONE, seed_course


@pytest.fixture
async def store(db_target: Target) -> AsyncIterator[Store]:
    opened = await Store.open(db_target)
    await seed_course(opened)
    yield opened
    await opened.close()


async def test_a_course_figures_are_what_was_seeded(store: Store) -> None:
    figures = await Course(store, 5000).figures(Scope.of(telegram_chat(GROUP)), PERIOD)
    data = figures.data()
    assert data == {**EXPECTED, "budget": 5000, "overBudgetDays": 0}
    assert figures.calls == 9 and figures.failed_calls == 2
    assert (figures.compared, figures.differed) == (2, 1)
    assert (figures.quiz_rounds, figures.quiz_right) == (4, 2)


async def test_the_budget_line_counts_the_days_over_it(store: Store) -> None:
    figures = await Course(store, 2200).figures(Scope.of(telegram_chat(GROUP)), PERIOD)
    assert figures.over_budget_days() == 1  # 4,500 tokens on the second lecture


async def test_a_student_sees_only_their_own(store: Store) -> None:
    figures = await Course(store, None).figures(Scope(GROUP, ALICE), PERIOD)
    data = figures.data()
    assert {k: data[k] for k in ALICE_RUNS} == ALICE_RUNS
    assert data["endings"]["refusedRate"] == 0  # Bob's refusals are not hers
    assert data["compare"]["compared"] == 0 and data["quiz"]["rounds"] == 0


async def test_figures_come_from_the_kept_facts_not_the_steps(store: Store) -> None:
    """Once kept, the facts are read, not remade: the steps could be gone."""
    await store.db.execute("DELETE FROM steps")
    figures = await Course(store, None).figures(Scope.of(telegram_chat(GROUP)), PERIOD)
    assert figures.data()["tools"] == EXPECTED["tools"]


async def test_the_csv_lines_of_a_period(store: Store) -> None:
    lines = await Course(store, None).lines(Scope.of(telegram_chat(GROUP)), PERIOD)
    assert [line.n for line in lines] == list(range(1, 12))
    second = lines[1]
    assert (second.user_name, second.mode, second.tools, second.status, second.rounds,
            second.tokens, second.duration_ms) == ("Bob", "ask", ("calculate", "calculate"),
                                                   "done", 3, 200, 2000)
    quiz = lines[4]
    assert (quiz.mode, quiz.quiz_rounds, quiz.quiz_right) == ("quiz", 2, 1)
    assert lines[5].error_kind == "timeout"


@pytest.mark.parametrize(("words", "expected"), [
    ("", (date(2026, 11, 6), date(2026, 12, 5))),
    ("7d", (date(2026, 11, 29), date(2026, 12, 5))),
    ("2026-09-01..2026-12-31", (date(2026, 9, 1), date(2026, 12, 31))),
    ("2026-09-01 至 2026-09-30", (date(2026, 9, 1), date(2026, 9, 30))),
    ("400d", PeriodProblem.TOO_LONG),
    ("2025-01-01..2026-12-31", PeriodProblem.TOO_LONG),
    ("2026-12-31..2026-09-01", PeriodProblem.BACKWARDS),
    ("2026-02-30..2026-03-01", PeriodProblem.UNREADABLE),
    ("last week", PeriodProblem.UNREADABLE),
    ("0d", PeriodProblem.UNREADABLE),
    ("9" * 5000, PeriodProblem.UNREADABLE),
])
def test_periods_as_a_teacher_names_them(words: str, expected: object) -> None:
    got = parse_period(words, ZONE, date(2026, 12, 5))
    assert (got if isinstance(got, PeriodProblem) else (got.first, got.last)) == expected


def test_a_period_is_the_chat_s_days() -> None:
    period = between("2026-09-01", "2026-09-01", ZONE)
    assert not isinstance(period, PeriodProblem)
    start, end = period.bounds()
    assert (start.isoformat(), end.isoformat()) == ("2026-08-31T16:00:00+00:00",
                                                    "2026-09-01T16:00:00+00:00")


@pytest.mark.parametrize("zone", ["Europe/Berlin", "Asia/Kathmandu", "Australia/Lord_Howe"])
async def test_days_are_the_zone_s_across_its_summer_time(db_target: Target, zone: str) -> None:
    """Each run counts on the day its zone's clock showed, however the offset changed."""
    store = await Store.open(db_target)
    try:
        times = [datetime(2026, 10, 1, 0, 0, tzinfo=UTC) + timedelta(minutes=197 * i)
                 for i in range(0, 373)]  # 51 days, every 197 minutes: both changes' nights
        for moment in times:
            run = await store.start_run(chat_id=GROUP, user_id=1, user_name="A", mode="ask",
                                        question="q", model="m")
            await store.db.execute("UPDATE runs SET started_at = ? WHERE id = ?",
                                   (moment.isoformat(timespec="milliseconds"), run.id))
        period = between("2026-10-01", "2026-11-20", zone)
        assert not isinstance(period, PeriodProblem)
        counts = await store.course.counts(Scope.of(telegram_chat(GROUP)), *period.bounds(),
                                           zone)
        got = {day: n for day, _, n, _ in counts.runs}
        start, end = period.bounds()
        want: dict[date, int] = {}
        for moment in times:
            if start <= moment < end:
                day = moment.astimezone(ZoneInfo(zone)).date()
                want[day] = want.get(day, 0) + 1
        assert got == want
    finally:
        await store.close()
