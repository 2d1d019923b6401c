"""Glassbox's agent: a ReAct loop over any OpenAI-compatible model, yielding typed events.

It knows nothing of Telegram or storage; front ends fold the events it yields. The names
below are loaded on first use, so a front end that only folds and draws events (bot/view)
imports `agent.events` without pulling in the model client and its HTTP stack.
"""

from __future__ import annotations

import importlib
from typing import Any

_HOMES = {
    "agent.events": ("Action", "Answer", "AnswerDelta", "Delta", "Event", "Judgement", "Remark",
                     "Observation", "Plan", "PlannedAction", "RunFinished", "RunStarted",
                     "TextDelta", "Thought", "ThoughtDelta", "Usage"),
    "agent.classroom.compare_judge": ("judge",),
    "agent.loop": ("run_plain", "run_react"),
    "agent.model.model_client": ("ModelClient",),
    "agent.model.model_errors": ("ModelError", "ModelErrorKind"),
    "agent.prompts": ("Turn",),
    "agent.settings": ("AgentSettings", "SettingsError", "load_settings"),
    "agent.tool": ("Tool", "ToolError"),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}
__all__ = sorted(_HOME_OF)


def __getattr__(name: str) -> Any:
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'agent' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)

