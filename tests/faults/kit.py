"""The fault suite's harness: the real bot against a fake Bot API that can misbehave, the
fake model, and the check every case ends with: the next question is still answered."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any, cast

from agent.tool import Tool
from bot.store.records import RunRecord, Scope
from testkit.botkit import ALICE, SCALE, Add, Glassbox, people, running
from testkit.fakes.model import FakeModel, text_reply
from testkit.fakes.telegram import Message
from testkit.fakes.telegram_faults import FaultyTelegram

REQUEST_TIMEOUT_S = 0.5
"""The bot's Bot API timeout here, so a stalled call times out quickly."""


@contextlib.asynccontextmanager
async def glassbox(tmp_path: Path, *, tools: Sequence[Tool] | None = (Add(),),
                   **extra: Any) -> AsyncIterator[Glassbox]:
    """The bot with the `add` tool (None: the real toolbox); `extra` are settings
    (e.g. llm_timeout_s=0.5)."""
    with FaultyTelegram(scale=SCALE) as tg, FakeModel() as model:
        people(tg)
        async with running(tg, model, tmp_path / "g.sqlite3", tools=tools,
                           request_timeout_s=REQUEST_TIMEOUT_S, **extra) as gb:
            yield gb


def faulty(gb: Glassbox) -> FaultyTelegram:
    return cast(FaultyTelegram, gb.tg)


async def still_answers(gb: Glassbox, chat_id: int = ALICE, user_id: int = ALICE) -> Message:
    """Every case ends here: the next question in `chat_id` gets its answer."""
    gb.model.push(text_reply("Still here."))
    asked = gb.tg.send(chat_id, user_id, "/ask are you still there?")
    final = await gb.answer_to(chat_id, asked)
    assert "Still here." in final.text
    return final


async def runs_of(gb: Glassbox, chat_id: int) -> list[RunRecord]:
    """A chat's stored runs, oldest first."""
    return list(reversed((await gb.services.store.history(Scope(chat_id), per_page=100)).runs))
