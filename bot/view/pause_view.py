"""Walkthrough mode as the chat shows it: the decision line under a proposed action, the buttons of
a pause, and the question that asks for new arguments. Pure, like every view."""

from __future__ import annotations

from typing import Any, Literal

from agent.prompts import args_text
from bot.view.buttons import Button, Keyboard
from bot.view.i18n import phrase, text
from bot.view.spans import CODE, B, I, Span, squeeze
from bot.view.transcript import CallView

Choice = Literal["run", "edit", "skip", "stop"]
CHOICES: tuple[Choice, ...] = ("run", "edit", "skip", "stop")


def decision_spans(call: CallView, lang: str) -> list[Span]:
    """The line under a walkthrough action: waiting, or who decided what (empty otherwise)."""
    if call.awaiting:
        return [("⏸ ", ()), (phrase(lang, "pause_waiting"), (B,))]
    by = squeeze(call.decided_by)
    if call.decision == "run":
        return [("▶ ", ()), (phrase(lang, "pause_ran", by=by), (I,))]
    if call.decision == "skip":
        return [("⏭ ", ()), (phrase(lang, "pause_skipped", by=by), (I,))]
    if call.decision == "stop":
        key = "pause_stopped" if by else "pause_timed_out"
        return [("⏹ ", ()), (phrase(lang, key, by=by), (I,))]
    if call.decision == "edit":
        proposed = "" if call.model_arguments is None else args_text(call.model_arguments)
        return [("✏️ ", ()), (phrase(lang, "pause_edited", by=by), (I,)),
                (f"{call.tool}({squeeze(proposed)})", (CODE,))]
    return []


def pause_buttons(lang: str, key: int, pause: int) -> Keyboard:
    """▶ Run, ✏️ Edit, ⏭ Skip, ⏹ Stop under a paused run: `step:<run>:<pause>:<choice>`,
    so a tap on an earlier pause's buttons is stale, not a decision about this one."""
    return (tuple(Button(phrase(lang, f"pause_button_{choice}"), f"step:{key}:{pause}:{choice}")
                  for choice in CHOICES),)


def edit_prompt(lang: str, tool: str, arguments: dict[str, Any] | str, fields: list[str],
                error: str = "") -> str:
    """The question for new arguments (HTML), after the exact error of a reply that did
    not fit, if any."""
    ask = text(lang, "pause_edit_prompt", call=f"{tool}({args_text(arguments)})",
               fields=", ".join(fields) or "-")
    return (text(lang, "pause_edit_invalid", error=error) + "\n\n" + ask) if error else ask
