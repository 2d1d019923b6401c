"""Settings of the agent, read from the environment and `.env` (pydantic-settings).

The bot's settings extend this model, so one `.env` configures both front ends.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from agent.named_models import Endpoint, ModelSpec, check_name
from agent.tool_names import TOOL_NAMES
from wire.wire_errors import GlassboxError


class SettingsError(GlassboxError):
    """Settings are missing or invalid; the message names each one."""


class AgentSettings(BaseSettings):
    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", populate_by_name=True,
        env_nested_delimiter="__",
    )

    openai_base_url: str = "https://dashscope.aliyuncs.com/compatible-mode/v1"
    openai_api_key: SecretStr = Field(
        default=SecretStr(""),
        validation_alias=AliasChoices("OPENAI_API_KEY", "DASHSCOPE_API_KEY", "openai_api_key")
    )
    """The key of the models at OPENAI_BASE_URL and of every named model without its own; it
    may be left out when every model has its own (`keys_missing` names what is needed)."""
    llm_model: str = "qwen-plus"
    """The default model: one of LLM_MODELS' names, or a model at OPENAI_BASE_URL (then also
    a name, its own)."""
    llm_models: dict[str, ModelSpec] = Field(default_factory=dict)
    """Named endpoints (agent/named_models.py): LLM_MODELS__LOCAL__BASE_URL=… in `.env`."""
    llm_timeout_s: float = Field(default=60.0, gt=0)
    """Seconds to wait for the model's reply, per read of the stream (and to send, and to get
    a pooled connection)."""
    llm_connect_timeout_s: float = Field(default=5.0, gt=0)
    """Seconds to connect to the endpoint. Short, so an unreachable one is reported soon:
    each of the 1 + llm_max_retries attempts waits this long."""
    llm_answer_model: str = ""
    """A second model that writes the final answer from the chain (empty: LLM_MODEL does):
    one of LLM_MODELS' names, or a model at LLM_ANSWER_BASE_URL (or OPENAI_BASE_URL)."""
    llm_answer_base_url: str = ""
    """The answer model's endpoint, when not OPENAI_BASE_URL."""
    llm_answer_api_key: SecretStr = SecretStr("")
    """The answer model's key, when not OPENAI_API_KEY."""
    llm_temperature: float = Field(default=0.3, ge=0, le=2)
    llm_max_retries: int = Field(default=2, ge=0, le=10)

    agent_max_rounds: int = Field(default=6, ge=1, le=20)
    agent_max_calls_per_round: int = Field(default=8, ge=1, le=64)
    """Tool calls run per round; the model is told the rest were not run."""
    tool_timeout_s: float = Field(default=15.0, gt=0)
    max_observation_chars: int = Field(default=4000, ge=200)
    history_max_chars: int = Field(default=6000, ge=0)

    # --- Text-format ReAct and planning ---
    agent_mode: Literal["auto", "native", "text"] = "auto"
    """native: function calling; text: the classic Thought/Action text protocol; auto:
    native until the endpoint rejects `tools`, then text for that model."""
    agent_planner: bool = False
    """Make a JSON plan before acting (AGENT_PLANNER=on|off)."""

    # --- Tools (agent/tools) ---
    agent_tools: Annotated[tuple[str, ...], NoDecode] = ()
    """Names of the tools to turn on (a comma list in the environment); empty means all."""
    agent_confirm_tools: Annotated[frozenset[str], NoDecode] = frozenset()
    """Tools whose every call waits for a person's confirmation, in every mode (a comma
    list); empty: none (walkthrough mode still confirms every call)."""
    default_timezone: str = "Asia/Shanghai"
    open_meteo_geocoding_url: str = "https://geocoding-api.open-meteo.com/v1/search"
    open_meteo_forecast_url: str = "https://api.open-meteo.com/v1/forecast"
    frankfurter_url: str = "https://api.frankfurter.dev/v1"
    wikipedia_api_url: str = "https://{lang}.wikipedia.org/w/api.php"
    wikipedia_rest_url: str = "https://{lang}.wikipedia.org/api/rest_v1"
    notes_dir: Path = Path("data/notes")
    tool_http_timeout_s: float = Field(default=10.0, gt=0)

    @field_validator("agent_tools", "agent_confirm_tools", mode="before")
    @classmethod
    def _split_tools(cls, value: Any) -> Any:
        if isinstance(value, str):
            return tuple(name.strip() for name in value.split(",") if name.strip())
        return value

    @field_validator("agent_tools", "agent_confirm_tools")
    @classmethod
    def _known_tools(cls, value: Collection[str]) -> Collection[str]:
        unknown = [name for name in value if name not in TOOL_NAMES]
        if unknown:
            raise ValueError(f"unknown tool {', '.join(unknown)}; known: {', '.join(TOOL_NAMES)}")
        return value

    @field_validator("llm_models")
    @classmethod
    def _names(cls, value: dict[str, ModelSpec]) -> dict[str, ModelSpec]:
        for name in value:
            check_name(name)
        return value

    def endpoints(self) -> dict[str, Endpoint]:
        """Every model by name: LLM_MODELS' names, then LLM_MODEL and LLM_ANSWER_MODEL where
        they name none of them (each the name of its own model)."""
        out = {name: Endpoint(name, spec.base_url or self.openai_base_url,
                              spec.model or name,
                              spec.api_key if spec.api_key.get_secret_value()
                              else self.openai_api_key)
               for name, spec in self.llm_models.items()}
        if self.default_model not in out:
            out[self.default_model] = Endpoint(self.default_model, self.openai_base_url,
                                               self.llm_model, self.openai_api_key)
        answer = self.answer_model
        if answer and answer not in out:
            key = self.llm_answer_api_key
            out[answer] = Endpoint(answer, self.llm_answer_base_url or self.openai_base_url,
                                   self.llm_answer_model,
                                   key if key.get_secret_value() else self.openai_api_key)
        return out

    def keys_missing(self) -> list[str]:
        """The setting that would give a model its key, for each model without one (an empty
        list: every model has its key)."""
        if self.openai_api_key.get_secret_value():
            return []
        missing = [] if self.default_model in self.llm_models else [_ENV_NAMES["OPENAI_API_KEY"]]
        missing += [f"LLM_MODELS__{name.upper()}__API_KEY (or OPENAI_API_KEY)"
                    for name, spec in self.llm_models.items()
                    if not spec.api_key.get_secret_value()]
        answer = self.answer_model
        if (answer and answer not in self.llm_models
                and not self.llm_answer_api_key.get_secret_value()):
            missing.append("LLM_ANSWER_API_KEY (or OPENAI_API_KEY)")
        return missing

    @property
    def default_model(self) -> str:
        """The name of the model a chat uses until /settings chooses another."""
        return _named(self.llm_model, self.llm_models)

    @property
    def answer_model(self) -> str:
        """The name of LLM_ANSWER_MODEL's model; empty: none."""
        return _named(self.llm_answer_model, self.llm_models) if self.llm_answer_model else ""

    @field_validator("default_timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"unknown IANA time zone {value!r}") from None
        return value


def _named(model: str, named: dict[str, ModelSpec]) -> str:
    """`model` as one of the names when it is one (names are lowercase), else as it is."""
    return model.lower() if model.lower() in named else model


# Names a person types in `.env`, for the one settings model field that has several.
_ENV_NAMES = {"OPENAI_API_KEY": "OPENAI_API_KEY (or DASHSCOPE_API_KEY)"}


S = TypeVar("S", bound=AgentSettings)


def load_settings(cls: type[S], **overrides: Any) -> S:
    """Build settings or raise SettingsError naming every missing or invalid variable, and
    the key of each model that has none."""
    try:
        settings = cls(**overrides)
    except ValidationError as exc:
        keyed = _with_defaults_for_the_wrong(exc, overrides)
        raise SettingsError("; ".join(_problems(exc) + _keys_missing(keyed))) from None
    if problems := _keys_missing(settings):
        raise SettingsError("; ".join(problems))
    return settings


def _keys_missing(settings: AgentSettings | None) -> list[str]:
    return [f"missing setting {name}" for name in settings.keys_missing()] if settings else []


_MODEL_FIELDS = frozenset({"openai_api_key", "llm_model", "llm_models", "llm_answer_model",
                           "llm_answer_api_key"})
"""The settings that decide which models there are and which key each has."""


def _with_defaults_for_the_wrong(exc: ValidationError, overrides: dict[str, Any]
                                 ) -> AgentSettings | None:
    """The agent's settings with those found wrong at their defaults, to tell in the same
    message whether each model has its key; None where the models' own settings are wrong
    (what they would be is not known)."""
    wrong = {str(err["loc"][0]) for err in exc.errors() if err["loc"]}
    if wrong & _MODEL_FIELDS:
        return None
    fields = AgentSettings.model_fields
    defaults = {name: fields[name].get_default(call_default_factory=True)
                for name in wrong if name in fields}
    try:
        return AgentSettings(**{**overrides, **defaults})
    except ValidationError:
        return None


def _problems(exc: ValidationError) -> list[str]:
    problems = []
    for err in exc.errors():
        loc = err["loc"][:3] if err["loc"][:1] == ("llm_models",) else err["loc"][:1]
        field = "__".join(str(part) for part in loc) if loc else "?"
        name = _ENV_NAMES.get(field.upper(), field.upper())
        if err["type"] == "missing":
            problems.append(f"missing setting {name}")
        else:
            problems.append(f"invalid setting {name}: {err['msg']}")
    return problems
