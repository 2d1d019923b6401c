"""Settings of the agent, read from the environment and `.env` (pydantic-settings).

The bot's settings extend this model, so one `.env` configures both front ends.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import AliasChoices, Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict


class SettingsError(Exception):
    """Settings are missing or invalid; the message names each one."""


class AgentSettings(BaseSettings):
    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", populate_by_name=True
    )

    openai_base_url: str = "https://dashscope.aliyuncs.com/compatible-mode/v1"
    openai_api_key: SecretStr = Field(
        validation_alias=AliasChoices("OPENAI_API_KEY", "DASHSCOPE_API_KEY", "openai_api_key")
    )
    llm_model: str = "qwen-plus"
    llm_timeout_s: float = Field(default=60.0, gt=0)
    llm_temperature: float = Field(default=0.3, ge=0, le=2)
    llm_max_retries: int = Field(default=2, ge=0, le=10)

    agent_max_rounds: int = Field(default=6, ge=1, le=20)
    tool_timeout_s: float = Field(default=15.0, gt=0)
    max_observation_chars: int = Field(default=4000, ge=200)
    history_max_chars: int = Field(default=6000, ge=0)

    database_path: Path = Path("data/glassbox.sqlite3")
    """The bot's SQLite file; the course-notes index lives in it too."""

    # --- Text-format ReAct and planning (issue 6) ---
    agent_mode: Literal["auto", "native", "text"] = "auto"
    """native: function calling; text: the classic Thought/Action text protocol; auto:
    native until the endpoint rejects `tools`, then text for that model."""
    agent_planner: bool = False
    """Make a JSON plan before acting (AGENT_PLANNER=on|off)."""


# Names a person types in `.env`, for the one settings model field that has several.
_ENV_NAMES = {"OPENAI_API_KEY": "OPENAI_API_KEY (or DASHSCOPE_API_KEY)"}


S = TypeVar("S", bound=BaseSettings)


def load_settings(cls: type[S], **overrides: Any) -> S:
    """Build settings or raise SettingsError naming every missing or invalid variable."""
    try:
        return cls(**overrides)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            field = str(err["loc"][0]) if err["loc"] else "?"
            name = _ENV_NAMES.get(field.upper(), field.upper())
            if err["type"] == "missing":
                problems.append(f"missing setting {name}")
            else:
                problems.append(f"invalid setting {name}: {err['msg']}")
        raise SettingsError("; ".join(problems)) from None
