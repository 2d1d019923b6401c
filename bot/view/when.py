"""Times as the class reads them: in DEFAULT_TIMEZONE, the zone named beside them.

Runs are stored in UTC; /history, the /show header and the export show the class's own
clock time, so "08:00" is the morning lesson, not a time to convert.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo


def local_time(moment: datetime, zone: str, fmt: str) -> str:
    """`moment` in the IANA time zone `zone` (already validated by the settings), formatted."""
    return moment.astimezone(ZoneInfo(zone)).strftime(fmt)
