"""Glassbox's agent: a ReAct loop over any OpenAI-compatible model, yielding typed events.

It knows nothing of Telegram or storage; front ends fold the events it yields.
"""

from agent.events import (
    Action,
    Answer,
    AnswerDelta,
    Event,
    Observation,
    Plan,
    PlanStep,
    RunFinished,
    RunStarted,
    Thought,
    Usage,
)
from agent.loop import run_plain, run_react
from agent.model import ModelClient, ModelError
from agent.prompts import Turn
from agent.settings import AgentSettings, SettingsError, load_settings
from agent.tool import Tool, ToolError

__all__ = [
    "Action",
    "AgentSettings",
    "Answer",
    "AnswerDelta",
    "Event",
    "ModelClient",
    "ModelError",
    "Observation",
    "Plan",
    "PlanStep",
    "RunFinished",
    "RunStarted",
    "SettingsError",
    "Thought",
    "Tool",
    "ToolError",
    "Turn",
    "Usage",
    "load_settings",
    "run_plain",
    "run_react",
]
