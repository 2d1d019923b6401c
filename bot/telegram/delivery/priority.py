"""Who goes first when Telegram's send rate is short (lower goes first)."""

from __future__ import annotations

from enum import IntEnum


class Priority(IntEnum):
    FINAL = 0
    """A run's final state: the answer itself."""
    FIRST = 1
    """A new run's first message (before it, the asker sees nothing but "typing…")."""
    DRAFT = 2
    """An intermediate edit of a running run: the first to be thinned under pressure."""
    NOTICE = 3
    """The bot's own words (a refusal, a usage hint)."""
