"""A run's writes after it has started (its steps, its end, its message ids): tried again
when the store refuses one for a moment (a lock held past its busy timeout), and kept in the
store's backlog when the store is down or keeps refusing, so a run that was answered on
screen is not left `running`, without its steps, or unreachable by a reply, in the store."""

from __future__ import annotations

import asyncio
import logging

from bot.store.backlog import Backlog, Write
from bot.store.db import StoreUnavailable

log = logging.getLogger(__name__)

ATTEMPTS = 4
FIRST_DELAY_S = 0.5
"""Waits between attempts double from this: 0.5, 1 and 2 s, on top of the store's own
busy timeout each time."""


async def retried(write: Write, what: str, backlog: Backlog) -> bool:
    """Run `write` until it succeeds, at most ATTEMPTS times: whether it did now. If not,
    `backlog` has it (at once when the store is down: it answers nothing until it is back).
    Each write this is used for may be repeated: it sets a value or inserts what is not
    there."""
    delay = FIRST_DELAY_S
    for attempt in range(1, ATTEMPTS + 1):
        try:
            await write()
        except StoreUnavailable as err:
            log.warning("storing %s waits for the database (%s)", what, err)
            break
        except Exception as err:
            if attempt == ATTEMPTS:
                log.error("storing %s failed %d times; the last: %s", what, attempt, err)
                break
            log.warning("storing %s failed (%s); trying again in %g s", what, err, delay)
            await asyncio.sleep(delay)
            delay *= 2
        else:
            return True
    backlog.keep(write, what)
    return False
