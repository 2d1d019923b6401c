"""Times as the class reads them: in DEFAULT_TIMEZONE, the zone named beside them.

Runs are stored in UTC; /history, the /show header and the export show the class's own
clock time, so "08:00" is the morning lesson, not a time to convert.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from agent.lang import Lang
from bot.view.i18n import phrase


def local_time(moment: datetime, zone: str, fmt: str) -> str:
    """`moment` in the IANA time zone `zone` (already validated by the settings), formatted."""
    return moment.astimezone(ZoneInfo(zone)).strftime(fmt)


def wait_text(span: timedelta, lang: Lang) -> str:
    """A span rounded up to whole minutes: `7 min`, `3 h 12 min` (`7 分钟`, `3 小时 12 分钟`)."""
    minutes = max(1, math.ceil(span.total_seconds() / 60))
    hours, minutes = divmod(minutes, 60)
    if not hours:
        return phrase(lang, "wait_minutes", minutes=minutes)
    return phrase(lang, "wait_hours", hours=hours) + (
        " " + phrase(lang, "wait_minutes", minutes=minutes) if minutes else "")
