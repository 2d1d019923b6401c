"""Constants and helpers shared by the tests (the fixtures are in conftest.py)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from agent import AgentSettings
from agent.tool import Source, Tool

TEST_KEY = "sk-test-0123456789abcdefghijklmnopqrstuv"


def agent_settings(base_url: str, **overrides: Any) -> AgentSettings:
    """Settings against the model at `base_url`: no retries, a short timeout, no .env."""
    values: dict[str, Any] = {
        "openai_base_url": base_url,
        "openai_api_key": TEST_KEY,
        "llm_max_retries": 0,
        "llm_timeout_s": 5,
        **overrides,
    }
    return AgentSettings(_env_file=None, **values)


class AddArgs(BaseModel):
    a: float
    b: float


class Add(Tool):
    name = "add"
    description = "Add two numbers."
    source = Source.CALCULATED
    Args = AddArgs

    async def run(self, args: Any) -> str:
        return f"{args.a + args.b:g}"
