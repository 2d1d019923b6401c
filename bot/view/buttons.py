"""Inline buttons as plain data: the view says what a button reads and carries; delivery turns
them into Telegram's markup when it sends."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Button:
    label: str
    data: str
    """The callback data Telegram sends back when it is tapped (at most 64 bytes)."""


Keyboard = tuple[tuple[Button, ...], ...]
"""Rows of buttons, top to bottom."""
