"""Shared fixtures: the fake model server and agent settings pointing at it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from agent import AgentSettings, ModelClient
from tests.fakes.model import FakeModel

TEST_KEY = "sk-test-0123456789abcdefghijklmnopqrstuv"


@pytest.fixture
def fake_model() -> Iterator[FakeModel]:
    with FakeModel() as server:
        yield server


def agent_settings(base_url: str, **overrides: Any) -> AgentSettings:
    values: dict[str, Any] = {
        "openai_base_url": base_url,
        "openai_api_key": TEST_KEY,
        "llm_max_retries": 0,
        "llm_timeout_s": 5,
        **overrides,
    }
    return AgentSettings(_env_file=None, **values)


@pytest.fixture
def settings(fake_model: FakeModel) -> AgentSettings:
    return agent_settings(fake_model.base_url)


@pytest.fixture
async def client(settings: AgentSettings) -> AsyncIterator[ModelClient]:
    model = ModelClient(settings)
    yield model
    await model.close()
