"""The run service under a front end of the test's own, which imports neither the Telegram
nor the web front end: a third front end asks through `Runs.ask` as both of them do, and
gets its run (each step, then how it ended, stored), the follow-up's thread as history,
admission's queue, and typed refusals it words itself."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from agent.classroom.confirm import Gate
from agent.events import Answer, Event, RunFinished
from agent.model.model_clients import ModelClients
from bot.bot_settings import BotSettings
from bot.runs.active import Active
from bot.runs.ask import Ask, Busy
from bot.runs.execute import Runs
from bot.runs.quota import RateLimited
from bot.store.records import RunRecord, telegram_chat
from bot.store.transcripts import Store
from bot.view.transcript import View
from testkit.agentkit import TEST_KEY, Add
from testkit.fakes.model import DashScope, FakeModel, sse, text_reply, tool_reply


class Board:
    """A stand-in front end: writes down what the service tells it about its run."""

    def __init__(self) -> None:
        self.heard: list[str] = []
        self.events: list[tuple[str, Event]] = []
        self.ahead: Callable[[], int] | None = None
        self.record: RunRecord | None = None

    def claimed(self, run: Active) -> None:
        self.heard.append("claimed")

    def queued(self, ahead: Callable[[], int]) -> None:
        self.heard.append("queued")
        self.ahead = ahead

    async def not_saved(self) -> None:
        self.heard.append("not saved")

    async def started(self, record: RunRecord, view: View) -> Gate | None:
        self.heard.append("started")
        self.record = record
        return None

    def stepped(self, lane: str, event: Event | None) -> None:
        if event is not None:
            self.events.append((lane, event))

    async def finished(self, status: str | None) -> None:
        self.heard.append(f"finished {status}")


@contextlib.asynccontextmanager
async def service(model: FakeModel, db: Path, **extra: Any) -> AsyncIterator[Runs]:
    settings = BotSettings(_env_file=None, telegram_bot_token="1:unused",  # type: ignore[call-arg]
                           openai_base_url=model.base_url, openai_api_key=TEST_KEY,
                           llm_max_retries=0, llm_timeout_s=5, database_path=db, **extra)
    store = await Store.open(db)
    runs = Runs(settings, ModelClients(settings), [Add()], store)
    try:
        yield runs
    finally:
        await runs.stop_all()
        await runs.models.close()
        await store.close()


def ask(text: str, user: int = 7, **extra: Any) -> Ask:
    return Ask(mode="ask", text=text, conversation=telegram_chat(42), user_id=user,
               user_name=f"Board {user}", run_lang="en", **extra)


async def test_a_run_and_its_follow_up_through_the_run_service(tmp_path: Path) -> None:
    with FakeModel() as model:
        model.push(tool_reply(("add", {"a": 2, "b": 2}), content="I should add them."),
                   text_reply("2 + 2 = 4"), text_reply("Doubled: 8"))
        async with service(model, tmp_path / "g.sqlite3") as runs:
            board = Board()
            run = await runs.ask(ask("What is 2+2?"), board)
            assert isinstance(run, Active)
            assert await run.ended() == "done"
            assert board.heard == ["claimed", "started", "finished done"]
            answers = [e.text for _, e in board.events if isinstance(e, Answer)]
            assert answers[-1] == "2 + 2 = 4"
            assert isinstance(board.events[-1][1], RunFinished)
            assert board.record is not None
            stored = await runs.store.by_id(board.record.id)
            assert stored is not None and stored.status == "done"
            assert stored.answer == "2 + 2 = 4" and stored.chat_id == 42

            again = Board()
            follow = await runs.ask(ask("And doubled?", follows=stored), again)
            assert isinstance(follow, Active) and await follow.ended() == "done"
            sent = [m["content"] for m in model.bodies[-1]["messages"][1:]]
            assert sent == ["What is 2+2?", "2 + 2 = 4", "And doubled?"]
            assert again.record is not None
            followed = await runs.store.by_id(again.record.id)
            assert followed is not None and followed.parent_id == stored.id


async def test_refusals_are_typed_and_admission_queues(tmp_path: Path) -> None:
    with FakeModel() as model:
        model.push(sse(DashScope().text("slow"), first_delay=0.5), text_reply("second"))
        async with service(model, tmp_path / "g.sqlite3", user_rate_limit="1/10m",
                           max_concurrent_runs=1) as runs:
            first, waiting = Board(), Board()
            running = await runs.ask(ask("one"), first)
            assert isinstance(await runs.ask(ask("two"), Board()), Busy)
            queued = await runs.ask(ask("three", user=8), waiting)
            assert isinstance(running, Active) and isinstance(queued, Active)
            await asyncio.sleep(0.1)
            assert waiting.heard == ["claimed", "queued"] and waiting.ahead is not None
            assert waiting.ahead() == 0  # the next to start
            assert await running.ended() == "done" and await queued.ended() == "done"
            assert waiting.heard == ["claimed", "queued", "started", "finished done"]
            limited = await runs.ask(ask("four"), Board())
            assert isinstance(limited, RateLimited) and limited.runs == 1
            assert 0 < limited.wait.total_seconds() <= 600
            assert len(model.bodies) == 2  # refused questions never reach the model
