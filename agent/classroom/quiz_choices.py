"""Quiz mode's choices: what the class is offered to predict (the round's tools and "answer
directly") and which of them the model took. Pure, so the views that draw a vote need none
of the vote's machinery (agent/classroom/quiz_vote.py)."""

from __future__ import annotations

from collections.abc import Sequence

from agent.events import ANSWER_CHOICE, OTHER_CHOICE

MAX_CHOICES = 10
"""A Telegram poll has at most 10 options in the Bot API versions most clients still speak
(12 since 10.0); the class reads them from the back of the room, too."""


def quiz_choices(tools: Sequence[str], most: int = MAX_CHOICES) -> tuple[str, ...]:
    """The offered tools and "answer directly"; past `most`, the first tools, "another tool"
    and "answer directly"."""
    if len(tools) + 1 <= most:
        return (*tools, ANSWER_CHOICE)
    return (*tools[:most - 2], OTHER_CHOICE, ANSWER_CHOICE)


def taken(choices: Sequence[str], tools: Sequence[str]) -> set[int]:
    """Which choices the model took, given the tools it called in the round (none: it
    answered)."""
    if not tools:
        return {i for i, c in enumerate(choices) if c == ANSWER_CHOICE}
    named = {i for i, c in enumerate(choices) if c in tools}
    if any(tool not in choices for tool in tools):
        named |= {i for i, c in enumerate(choices) if c == OTHER_CHOICE}
    return named
