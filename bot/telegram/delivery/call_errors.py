"""What a failed Bot API call means for delivery: may it be made again? Is the page shown,
or its message gone?

An edit, a delete or an answer to a button tap does the same thing twice as once, so any
network error may be retried. A send does not: if Telegram carried it out and only the
reply was lost, a second try shows a second copy of the message. The bot's request class
(wire/telegram_request.py) tells the cases apart (`never_reached`): surely not sent (no
connection), maybe sent or timed out (after the request went out), or refused (an error
status: a JSON 5xx, a proxy's 502 page).

A 400 says a message is gone only in Telegram's own words ("message to edit not found":
someone deleted it; "chat not found": no one to write to). Any other 400 refuses that one
page; it must not stop the later states of the run.
"""

from __future__ import annotations

import datetime as dtm
from enum import Enum, auto

from telegram.error import BadRequest, RetryAfter

from wire.wire_errors import GlassboxError


class Refused(GlassboxError):
    """Telegram answered a page with a 400 that is none of bad_request's named cases: the page
    is not shown, and nothing is gone."""


class PageRejection(Enum):
    """What a 400 to a page's send or edit means."""

    SHOWN = auto()
    """"message is not modified": the message shows the page already."""
    DELETED = auto()
    """"message to edit not found": someone deleted it; the page is sent again."""
    NO_CHAT = auto()
    """"chat not found": there is no one to write to."""
    ENTITIES = auto()
    """"can't parse entities": the page goes again as plain text."""
    REFUSED = auto()
    """Any other 400: only this page is refused."""


def bad_request(err: BadRequest) -> PageRejection:
    """What Telegram's 400 `err` to a page's send or edit means, in its own words."""
    lowered = err.message.lower()
    if "not modified" in lowered:
        return PageRejection.SHOWN
    if "message to edit not found" in lowered:
        return PageRejection.DELETED
    if "chat not found" in lowered:
        return PageRejection.NO_CHAT
    if "can't parse entities" in lowered:
        return PageRejection.ENTITIES
    return PageRejection.REFUSED


class ReplyLost(GlassboxError):
    """A send may have been carried out, but its reply never arrived: the message may be in
    the chat, and its id is unknown."""


def retry_after_s(err: RetryAfter) -> float:
    """`retry_after` in seconds: a timedelta (build_app opts in to PTB's next major);
    PTB still types it `int | timedelta`."""
    wait = err.retry_after
    return wait.total_seconds() if isinstance(wait, dtm.timedelta) else float(wait)
