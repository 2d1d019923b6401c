"""Shared fixtures: the fake model server and agent settings pointing at it.
(Plain helpers and constants are in kit.py, so no test imports this module.)"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from agent import AgentSettings, ModelClient
from tests.fakes.model import FakeModel
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
