"""What /settings shows: a chat's settings as lines, and the inline menu that changes them
in place (the main menu, the tools, the time zones). Buttons carry `cfg:<action>`; whoever
taps one is checked again, so forged data changes nothing it may not."""

from __future__ import annotations

import html
from collections.abc import Sequence

from agent.model.endpoint_memory import (
    LEARN_AFTER_CHATS,
    LEARN_AFTER_RUNS,
    PROBE_EVERY,
    EndpointMemory,
    Lesson,
)
from agent.tool_names import TOOL_NAMES
from bot.store.chat_settings_values import ChatSettings
from bot.view.buttons import Button, Keyboard
from bot.view.i18n import phrase, plural, text

ZONES = ("Asia/Shanghai", "Asia/Hong_Kong", "Asia/Singapore", "Asia/Tokyo", "Europe/London",
         "Europe/Berlin", "America/New_York", "America/Los_Angeles", "UTC")
"""The zones the menu offers; `/settings timezone Area/City` sets any other."""
FIELDS = ("lang", "timezone", "model", "tools_off", "planner", "agent_mode", "walkthrough",
          "remarks")
FORGET_LEARNED = "cfg:learned:forget"
"""The button that resets what auto mode learned (bot admins only)."""
_ACTION = {"lang": "lang", "timezone": "menu:tz", "tools_off": "menu:tools",
           "planner": "planner", "agent_mode": "mode", "walkthrough": "step",
           "remarks": "notes", "model": "menu:models"}


def value_text(field: str, value: object, lang: str,
               tools: Sequence[str] = TOOL_NAMES) -> str:
    """A setting's value in words; `tools`: the tools this bot has."""
    if field == "lang":
        return phrase(lang, f"settings_lang_{value}")
    if field == "agent_mode":
        return phrase(lang, f"settings_mode_{value}")
    if field == "tools_off":
        off = set(value)  # type: ignore[call-overload]
        on = [name for name in tools if name not in off]
        return ", ".join(on) if on else phrase(lang, "settings_no_tools")
    if isinstance(value, bool):
        return phrase(lang, "settings_on" if value else "settings_off")
    return str(value)


def _line(field: str, chat: ChatSettings, lang: str, tools: Sequence[str]) -> str:
    value = value_text(field, getattr(chat, field), lang, tools)
    return f"{phrase(lang, f'settings_{field}')}{phrase(lang, 'chain_colon')}{value}"


def learned_lines(memories: Sequence[EndpointMemory], lang: str) -> list[str]:
    """What auto mode learned about each endpoint, in words: a line for each lesson
    learned or on its way, one for a refused `stream_options`, one for refused images, else
    that nothing was."""
    out = []
    for memory in memories:
        model = memory.endpoint.rpartition(" ")[2]
        lines = []
        for lesson in Lesson:
            marks = memory.seen.get(lesson.value, [])
            if getattr(memory, lesson.value):
                runs = PROBE_EVERY - memory.since_probe.get(lesson.value, 0)
                when = (plural(lang, "learned_probe_in", runs) if runs > 0
                        else phrase(lang, "learned_probe_next"))
                lines.append(phrase(lang, f"learned_{lesson.value}", model=model, when=when))
            elif marks:
                lines.append(phrase(lang, f"seen_{lesson.value}", model=model,
                                    runs=len(marks), chats=len(set(marks)),
                                    need=LEARN_AFTER_RUNS, chats_needed=LEARN_AFTER_CHATS))
        if not memory.usage_option:
            lines.append(phrase(lang, "learned_usage_estimated", model=model))
        if not memory.takes_images:
            lines.append(phrase(lang, "learned_no_images", model=model))
        out.extend(lines or [phrase(lang, "learned_nothing", model=model)])
    return out


def settings_text(chat: ChatSettings, lang: str, tools: Sequence[str], *, may_change: bool,
                  change: tuple[str, object, object] | None = None,
                  learned: Sequence[EndpointMemory] = ()) -> str:
    """The settings as HTML: what just changed (if anything), the title, one line each.
    `tools`: the tools this bot has; `learned`: what auto mode learned about each endpoint,
    for a bot admin (nothing for anyone else)."""
    out = []
    if change is not None:
        field, before, after = change
        out.append(text(lang, "settings_changed", what=phrase(lang, f"settings_{field}"),
                        before=value_text(field, before, lang, tools),
                        after=value_text(field, after, lang, tools)))
    out.append(text(lang, "settings_title"))
    out.append("\n".join(html.escape(_line(field, chat, lang, tools)) for field in FIELDS))
    if not may_change:
        out.append(f"<i>{text(lang, 'settings_read_only')}</i>")
    if learned:
        out.append(text(lang, "settings_learned_title") + "\n" + "\n".join(
            html.escape(line) for line in learned_lines(learned, lang)))
    return "\n\n".join(out)


def settings_keyboard(chat: ChatSettings, lang: str, tools: Sequence[str],
                      menu: str = "main", *, forget: bool = False,
                      models: Sequence[str] = ()) -> Keyboard:
    """The main menu (one button a setting, and with `forget` one that resets what auto
    mode learned), or the tools', the time zones' or the models' menu (`models`: their
    names, as the bot has them)."""
    back = (Button(phrase(lang, "settings_back"), "cfg:menu:main"),)
    if menu == "models":
        rows = tuple((Button(("• " if name == chat.model else "") + name,
                             f"cfg:model:{name}"),) for name in models)
        return (*rows, back)
    if menu == "tools":
        rows = tuple((Button(("✅ " if name not in chat.tools_off else "⬜ ") + name,
                             f"cfg:tool:{name}"),) for name in tools)
        return (*rows, back)
    if menu == "tz":
        buttons = [Button(("• " if zone == chat.timezone else "") + zone, f"cfg:tz:{zone}")
                   for zone in ZONES]
        return (*(tuple(buttons[i:i + 2]) for i in range(0, len(buttons), 2)), back)
    rows = tuple((Button(_line(field, chat, lang, tools)[:60], f"cfg:{_ACTION[field]}"),)
                 for field in FIELDS)
    if forget:
        rows += ((Button(phrase(lang, "settings_forget_learned"), FORGET_LEARNED),),)
    return rows
