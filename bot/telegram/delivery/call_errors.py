"""What a failed Bot API call means for delivery: may it be made again? Is the page shown,
or its message gone?

An edit, a delete or an answer to a button tap does the same thing twice as once, so any
network error may be retried. A send does not: if Telegram carried it out and only the
reply was lost, a second try shows a second copy of the message. python-telegram-bot's
HTTPXRequest raises `TimedOut` or `NetworkError` *from* httpx's exception, so `__cause__`
tells the cases apart: without a connection (refused, unreachable, connect or pool timeout)
nothing was written, and an error status (a JSON 5xx, a proxy's 502 page) is an answer saying
the call failed. After the request went out (read timeout, reset, a server that closed the
connection, a failed write) it may have been carried out.

A 400 says a message is gone only in Telegram's own words ("message to edit not found":
someone deleted it; "chat not found": no one to write to). Any other 400 refuses that one
page; it must not stop the later states of the run.
"""

from __future__ import annotations

import datetime as dtm
from typing import Literal

import httpx
from telegram.error import BadRequest, NetworkError, RetryAfter, TelegramError

NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
"""httpx's errors raised before any byte of the request was written."""


class Refused(Exception):
    """Telegram answered a page with a 400 that is none of bad_request's named cases: the page
    is not shown, and nothing is gone."""


def bad_request(err: BadRequest) -> Literal["shown", "deleted", "no chat", "entities",
                                            "refused"]:
    """What a 400 to a page's send or edit means: it `shown` already ("not modified"), its
    message was `deleted` (send it again), there is `no chat`, its `entities` could not be
    parsed (send it as plain text), or only this page is `refused`."""
    lowered = err.message.lower()
    if "not modified" in lowered:
        return "shown"
    if "message to edit not found" in lowered:
        return "deleted"
    if "chat not found" in lowered:
        return "no chat"
    return "entities" if "can't parse entities" in lowered else "refused"


class ReplyLost(Exception):
    """A send may have been carried out, but its reply never arrived: the message may be in
    the chat, and its id is unknown."""


def never_reached(err: NetworkError) -> bool:
    """Whether the failed call surely was not carried out, so making it again cannot do it
    twice."""
    cause = err.__cause__
    if isinstance(cause, httpx.HTTPError):
        return isinstance(cause, NOT_SENT)
    return cause is None or isinstance(cause, TelegramError)  # Telegram answered: it failed


def describe(err: NetworkError) -> str:
    """The error with httpx's exception named (PTB's `TimedOut` alone says only "Timed out")."""
    cause = err.__cause__
    return f"{err} ({type(cause).__name__})" if isinstance(cause, httpx.HTTPError) else str(err)


def retry_after_s(err: RetryAfter) -> float:
    """`retry_after` in seconds: a timedelta (bot/__init__.py opts in to PTB's next major);
    PTB still types it `int | timedelta`."""
    wait = err.retry_after
    return wait.total_seconds() if isinstance(wait, dtm.timedelta) else float(wait)
