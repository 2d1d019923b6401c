"""A chat's own settings as data: what /settings shows and changes and what a run of the
chat uses (pure: the view reads it too; bot/store/chat_settings.py keeps it)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from agent.lang import Lang, run_lang

if TYPE_CHECKING:  # pydantic-settings would load asyncio into the pure view
    from agent.settings import AgentSettings

ChatLang = Literal["auto", "zh", "en"]
AgentMode = Literal["auto", "native", "text"]


@dataclass(frozen=True, slots=True)
class ChatSettings:
    """A chat's settings as they apply to its next run."""

    lang: ChatLang = "auto"
    """The bot's words and the run's language; auto: each asker's Telegram language."""
    timezone: str = "Asia/Shanghai"
    """What get_time uses when no place is named, and /history's times."""
    tools_off: tuple[str, ...] = ()
    planner: bool = False
    agent_mode: AgentMode = "auto"
    walkthrough: bool = False
    """Every /ask pauses before each action, as /step does."""
    remarks: bool = True
    """Glassbox's own remarks show when a model gives no reasoning (synthesised thoughts)."""
    model: str = ""
    """The name of the model the chat's questions go to (a name of LLM_MODELS); empty: the
    environment's LLM_MODEL."""

    @classmethod
    def defaults(cls, settings: AgentSettings) -> ChatSettings:
        """What a chat that never changed anything has: the environment's settings."""
        return cls(timezone=settings.default_timezone, planner=settings.agent_planner,
                   agent_mode=settings.agent_mode, model=settings.default_model)

    def words_lang(self, person: Lang) -> Lang:
        """The language of the bot's words here to `person` (whose Telegram language it is):
        the chat's, if it set one."""
        return person if self.lang == "auto" else self.lang

    def run_lang(self, question: str, person: Lang, spoken: Lang | None = None) -> Lang:
        """The one language of a run's message here: the chat's, if it set one; else the
        one the question was heard in (`spoken`, a voice message's), else the question's
        when it is clear, else the asker's (agent.lang.run_lang)."""
        if self.lang != "auto":
            return self.lang
        return spoken or run_lang(question, person)

    def changed(self, **values: Any) -> ChatSettings:
        return dataclasses.replace(self, **values)

    def overrides(self, defaults: ChatSettings) -> dict[str, Any]:
        """The values that differ from `defaults`, JSON-ready."""
        return {f.name: _json(getattr(self, f.name)) for f in dataclasses.fields(self)
                if getattr(self, f.name) != getattr(defaults, f.name)}


def _json(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


STORED_AS = {"notes": "remarks", "step": "walkthrough"}
"""Settings whose stored key is an earlier name of the field (rows are never rewritten)."""


def load(defaults: ChatSettings, stored: dict[str, Any]) -> ChatSettings:
    """`defaults` with what was stored over them; keys this version does not know are left,
    and a key stored under an earlier name is read under its name now (STORED_AS)."""
    names = {f.name for f in dataclasses.fields(ChatSettings)}
    renamed = {STORED_AS.get(k, k): v for k, v in stored.items()}
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in renamed.items()
              if k in names}
    return dataclasses.replace(defaults, **values)
