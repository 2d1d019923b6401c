"""The outbox: every message the bot sends goes through here, paced like the rest of its chat.

A run's live message, a one-off reply (help, a refusal, a /history page), an edit of an
earlier message and a document all use the same `LiveMessage` machinery, so each gets the
chat's turn, the 429 waits, the network retries and the plain-text fallback. The bot's own
replies wait behind every run's output in the chat (see pacer). A `notice` (a refusal, a
usage hint) of one kind goes to one sender in one chat at most once per `notice_cooldown_s`:
a user who sends the same wrong thing 300 times gets one answer, not 300 in the group's
send rate, while a different notice (/start, then /help; an empty /ask, then one too long) is
always answered.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum

from telegram import Bot, InputFile

from bot.runs.quota import Cooldowns
from bot.telegram.delivery.live_message import LiveMessage, Upload
from bot.telegram.delivery.pacer import Pacer
from bot.view.buttons import Keyboard


class Notice(StrEnum):
    """What a notice is: repeats of one kind (for one command) within the cooldown are
    dropped, other kinds are not."""

    HELP = "help"
    USAGE = "usage"
    TOO_LONG = "too_long"
    QUOTA = "quota"
    BUSY = "busy"
    NOTHING_TO_STOP = "nothing_to_stop"
    TOO_OFTEN = "too_often"
    NOT_YOURS = "not_yours"
    ADMINS_ONLY = "admins_only"
    NOT_ALLOWED = "not_allowed"
    FAILED = "failed"


class Outbox:
    def __init__(self, bot: Bot, pacer: Pacer) -> None:
        self.bot, self.pacer = bot, pacer
        self._notices = Cooldowns(1, pacer.limits.notice_cooldown_s)

    def live(self, chat_id: int, reply_to: int | None, *, button: Keyboard | None = None,
             on_gone: Callable[[], None] = lambda: None) -> LiveMessage:
        """A new live message replying to `reply_to`, with `button` under it while it runs;
        `on_gone` is called if Telegram stops letting it write there."""
        return LiveMessage(self.bot, self.pacer, chat_id, reply_to, button=button,
                           on_gone=on_gone)

    def editing(self, chat_id: int, message_ids: list[int]) -> LiveMessage:
        """A live message over messages already in the chat."""
        return LiveMessage.editing(self.bot, self.pacer, chat_id, message_ids)

    async def say(self, chat_id: int, reply_to: int | None, html: str | list[str],
                  buttons: Keyboard | None = None) -> list[int]:
        """Send a message of the bot's own (or several pages, later ones replying to the
        first); the message ids."""
        return await self._own(chat_id, reply_to).finish(
            [html] if isinstance(html, str) else html, buttons)

    async def notice(self, chat_id: int, reply_to: int | None, sender_id: int, html: str,
                     kind: Notice, about: str = "") -> None:
        """A refusal or hint to `sender_id`; dropped if they had the same one here (its
        `kind`, and `about`: the command it answers) within the cooldown."""
        if not self._notices.take((chat_id, sender_id, kind, about)):
            await self.say(chat_id, reply_to, html)

    def _own(self, chat_id: int, reply_to: int | None) -> LiveMessage:
        """A message of the bot's own: it waits behind the runs' messages in the chat."""
        return LiveMessage(self.bot, self.pacer, chat_id, reply_to, button=None, notice=True)

    async def edit(self, chat_id: int, message_id: int, html: str,
                   buttons: Keyboard | None = None) -> None:
        """Rewrite one of the bot's messages in place."""
        await LiveMessage.editing(self.bot, self.pacer, chat_id, [message_id],
                                  notice=True).finish([html], buttons)

    async def send_document(self, chat_id: int, reply_to: int | None, data: bytes,
                            filename: str, caption: str) -> None:
        """Upload a file with an HTML caption, in reply to `reply_to`."""
        await self._own(chat_id, reply_to).upload(Upload.DOCUMENT,
                                                  InputFile(data, filename=filename), caption)

    async def send_photo(self, chat_id: int, reply_to: int | None, png: bytes,
                         caption: str) -> bool:
        """Send a picture with an HTML caption (at most 1,024 characters), in reply to
        `reply_to`; whether it was sent (False: the chat cannot be written to, e.g. a user who
        never started a private chat with the bot)."""
        return await self._own(chat_id, reply_to).upload(
            Upload.PHOTO, InputFile(png, filename="course.png"), caption)
