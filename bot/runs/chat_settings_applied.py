"""A chat's settings applied: what a tap in the /settings menu changes, and how a chat's
settings shape its next run (the run's settings, the tools on offer, walkthrough mode)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import get_args
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from agent.settings import AgentSettings
from agent.tool import Tool
from agent.tool_names import TOOL_NAMES
from agent.tools.clock import GetTime
from agent.tools.notes_index import CourseNotes, ScopedNotes
from agent.tools.search_notes import SearchNotes
from bot.store.chat_settings_values import AgentMode, ChatLang, ChatSettings
from bot.store.kinds import ConversationKind
from bot.store.records import Conversation

LANGS: tuple[ChatLang, ...] = get_args(ChatLang)
AGENT_MODES: tuple[AgentMode, ...] = get_args(AgentMode)


@dataclass(frozen=True, slots=True)
class Change:
    """One setting changed: which, from what, to what (values as the menu shows them)."""

    field: str
    before: object
    after: object


def _next(values: Sequence[str], current: str) -> str:
    return values[(values.index(current) + 1) % len(values)] if current in values else values[0]


def apply(chat: ChatSettings, action: str,
          models: Sequence[str] = ()) -> tuple[ChatSettings, Change] | None:
    """What a menu tap (`lang`, `planner`, `tool:NAME`, `tz:ZONE`, `model:NAME` …) makes of
    `chat`; None if the action is not one (a stale or forged button). `models`: the names
    of the models the bot has."""
    name, _, value = action.partition(":")
    if name == "model" and value in models:
        return _set(chat, "model", value)
    if name == "lang":
        return _set(chat, "lang", _next(LANGS, chat.lang))
    if name == "mode":
        return _set(chat, "agent_mode", _next(AGENT_MODES, chat.agent_mode))
    if name == "planner":
        return _set(chat, "planner", not chat.planner)
    if name == "step":  # the walkthrough's button, named as in the messages already sent
        return _set(chat, "walkthrough", not chat.walkthrough)
    if name == "notes":  # the remarks' button, named as in the messages already sent
        return _set(chat, "remarks", not chat.remarks)
    if name == "tool" and value in TOOL_NAMES:
        off = set(chat.tools_off) ^ {value}
        return _set(chat, "tools_off", tuple(t for t in TOOL_NAMES if t in off))
    if name == "tz" and known_zone(value):
        return _set(chat, "timezone", value)
    return None


def _set(chat: ChatSettings, field: str, value: object) -> tuple[ChatSettings, Change]:
    return chat.changed(**{field: value}), Change(field, getattr(chat, field), value)


def known_zone(name: str) -> bool:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return bool(name)


def run_settings(settings: AgentSettings, chat: ChatSettings) -> AgentSettings:
    """The agent's settings for a run of this chat: its planner and mode."""
    return settings.model_copy(update={"agent_planner": chat.planner,
                                       "agent_mode": chat.agent_mode,
                                       "default_timezone": chat.timezone})


def run_tools(tools: Sequence[Tool], chat: ChatSettings,
              conversation: Conversation) -> list[Tool]:
    """The tools a run of this conversation offers: those it turned off left out, get_time
    in its time zone, search_notes over the shared notes and, in a Telegram chat, the
    chat's uploads (/notes; an API scope has none)."""
    chosen: list[Tool] = []
    for tool in tools:
        if tool.name in chat.tools_off:
            continue
        if isinstance(tool, GetTime) and tool.default_zone != chat.timezone:
            tool = GetTime(chat.timezone, tool.clock)
        if (isinstance(tool, SearchNotes) and isinstance(tool.index, CourseNotes)
                and conversation.kind is ConversationKind.TELEGRAM):
            tool = SearchNotes(ScopedNotes(tool.index, conversation.id))
        chosen.append(tool)
    return chosen
