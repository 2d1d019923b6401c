"""Shared fixtures: the fake model server and agent settings pointing at it; the bot (`gb`)
running against the fake Bot API and the fake model.
(Plain helpers and constants are in kit.py and botkit.py, so no test imports this module.)"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path

import pytest

from agent import AgentSettings, ModelClient
from agent.tool import Tool
from tests.botkit import SCALE, Glassbox, people, running
from tests.fakes.model import FakeModel
from tests.fakes.telegram import FakeTelegram
from tests.kit import agent_settings


@pytest.fixture
def fake_model() -> Iterator[FakeModel]:
    with FakeModel() as server:
        yield server


@pytest.fixture
def settings(fake_model: FakeModel) -> AgentSettings:
    return agent_settings(fake_model.base_url)


@pytest.fixture
async def client(settings: AgentSettings) -> AsyncIterator[ModelClient]:
    model = ModelClient(settings)
    yield model
    await model.close()


@pytest.fixture
def fake_telegram() -> Iterator[FakeTelegram]:
    """The fake Bot API on the bot tests' clock (SCALE), the class in it (botkit.people).
    A module that needs more people overrides this fixture, asking for this one."""
    with FakeTelegram(scale=SCALE) as tg:
        people(tg)
        yield tg


@pytest.fixture
def gb_tools() -> Sequence[Tool] | None:
    """The tools `gb` runs with: none. A module overrides this fixture to give it some
    (None: the real toolbox, as AGENT_TOOLS says)."""
    return ()


@pytest.fixture
async def gb(fake_telegram: FakeTelegram, fake_model: FakeModel,
             gb_tools: Sequence[Tool] | None, tmp_path: Path) -> AsyncIterator[Glassbox]:
    """Glassbox running against `fake_telegram` and `fake_model`, its database in tmp_path."""
    async with running(fake_telegram, fake_model, tmp_path / "g.sqlite3",
                       tools=gb_tools) as glassbox:
        yield glassbox
