"""What every handler needs to read an update: the sender's language."""

from __future__ import annotations

from telegram import User

from agent.lang import Lang


def lang_of(user: User | None) -> Lang:
    """The user's Telegram language: Chinese for any `zh…` code, else English."""
    code = (user.language_code or "") if user else ""
    return "zh" if code.lower().startswith("zh") else "en"
