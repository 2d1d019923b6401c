"""Handlers: updates in. `register` adds every handler in the one order that works.

python-telegram-bot tries the handlers of a group in the order they were added and stops at
the first that takes the update; groups run in ascending order. So:
1. group -1, the screen: edits, channel posts and chats outside ALLOWED_CHAT_IDS stop here;
2. group 0, the commands and buttons we know (walkthrough's decisions, whose edit replies
   are not follow-ups; voice and photo questions, before /quiz and the asking commands
   that would take a reply to a voice message or a photo as text; quiz mode's reveals and
   votes; questions; then history);
3. group 0, last, the fallbacks: unknown commands, non-text messages, and the catch-all
   button handler, which would swallow every button if it came earlier.
"""

from __future__ import annotations

from telegram.ext import Application

from bot.telegram.handlers import (
    ask_command,
    board_command,
    guards,
    history,
    notes_command,
    pause_taps,
    photo_questions,
    quiz,
    rerun,
    settings_menu,
    stats,
    voice_questions,
)

SCREEN_GROUP = -1


def register(app: Application) -> None:  # type: ignore[type-arg]
    app.add_handler(guards.screen_handler(), group=SCREEN_GROUP)
    app.add_handlers([*pause_taps.handlers(app), *voice_questions.handlers(),
                      *photo_questions.handlers(), *quiz.handlers(), *ask_command.handlers(),
                      *rerun.handlers(),
                      *history.handlers(), *board_command.handlers(), *stats.handlers(),
                      *settings_menu.handlers(),
                      *notes_command.handlers(), *guards.fallback_handlers()])
