"""A run's course facts are kept as it ends, through the run service (no remaking from its
steps later), and a refused question is counted; both show in the course's figures."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from bot.course.period import PeriodProblem, parse_period, today_in
from bot.course.service import Course
from bot.runs.active import Active
from bot.runs.quota import RateLimited
from bot.store.records import Scope, telegram_chat
from testkit.fakes.model import FakeModel, text_reply, tool_reply
from tests.test_run_service import Board, ask, service


async def test_a_finished_run_keeps_its_facts_and_a_refusal_counts(tmp_path: Path) -> None:
    with FakeModel() as model:
        model.push(tool_reply(("add", {"a": 2, "b": 2})), text_reply("2 + 2 = 4"))
        async with service(model, tmp_path / "g.sqlite3", user_rate_limit="1/10m") as runs:
            run = await runs.ask(ask("What is 2+2?"), Board())
            assert isinstance(run, Active) and await run.ended() == "done"
            assert isinstance(await runs.ask(ask("again"), Board()), RateLimited)

            chat = Scope.of(telegram_chat(42))
            period = parse_period("1d", "UTC", today_in("UTC", datetime.now(UTC)))
            assert not isinstance(period, PeriodProblem)
            assert await runs.store.course.unkept(0, 10) == []
            data = (await Course(runs.store, None).figures(chat, period)).data()
            assert data["modes"]["ask"] == 1 and data["runs"] == 1
            assert data["tools"] == [{"tool": "add", "calls": 1, "failed": 0}]
            assert data["endings"]["done"] == 1 and data["endings"]["refusedRate"] == 1
