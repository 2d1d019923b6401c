"""The period a course's figures cover, as a teacher names it: `/stats` (the last
DEFAULT_DAYS days), `/stats 7d`, `/stats 2026-09-01..2026-12-31`; the page's `from` and
`to`. Days are the chat's own (its time zone); a period is at most MAX_DAYS long."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from enum import StrEnum
from zoneinfo import ZoneInfo

DEFAULT_DAYS = 30
MAX_DAYS = 366
_DAYS = re.compile(r"([0-9]{1,4})[dD天]")
_RANGE = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2})\s*(?:\.\.|–|—|~|至|到)\s*"
                    r"([0-9]{4}-[0-9]{2}-[0-9]{2})")
MAX_WORDS = 60
"""Characters of a period looked at; a longer one is not a period."""


class PeriodProblem(StrEnum):
    """Why words are no period (each front end says it in the asker's language)."""

    UNREADABLE = "unreadable"
    TOO_LONG = "too_long"
    BACKWARDS = "backwards"


@dataclass(frozen=True, slots=True)
class Period:
    """From `first` to `last`, both whole days, in the chat's time zone `zone`."""

    first: date
    last: date
    zone: str

    @property
    def days(self) -> int:
        return (self.last - self.first).days + 1

    def bounds(self) -> tuple[datetime, datetime]:
        """[start, end) in UTC: the first day's midnight to the midnight after the last."""
        tz = ZoneInfo(self.zone)
        start = datetime.combine(self.first, time(), tz)
        end = datetime.combine(self.last + timedelta(days=1), time(), tz)
        return start.astimezone(UTC), end.astimezone(UTC)


def today_in(zone: str, now: datetime | None = None) -> date:
    return (now or datetime.now(UTC)).astimezone(ZoneInfo(zone)).date()


def parse_period(words: str, zone: str, today: date) -> Period | PeriodProblem:
    """The period `words` name ('' for the default), ending no later than `today`'s end."""
    words = words.strip()
    if not words:
        return Period(today - timedelta(days=DEFAULT_DAYS - 1), today, zone)
    if len(words) > MAX_WORDS:
        return PeriodProblem.UNREADABLE
    if match := _DAYS.fullmatch(words):
        days = int(match[1])
        if days < 1:
            return PeriodProblem.UNREADABLE
        if days > MAX_DAYS:
            return PeriodProblem.TOO_LONG
        return Period(today - timedelta(days=days - 1), today, zone)
    if match := _RANGE.fullmatch(words):
        return between(match[1], match[2], zone)
    return PeriodProblem.UNREADABLE


def between(first: str, last: str, zone: str) -> Period | PeriodProblem:
    """The period of two ISO dates (the page's `from` and `to`)."""
    try:
        start, end = date.fromisoformat(first), date.fromisoformat(last)
    except ValueError:
        return PeriodProblem.UNREADABLE
    if end < start:
        return PeriodProblem.BACKWARDS
    if (end - start).days + 1 > MAX_DAYS:
        return PeriodProblem.TOO_LONG
    return Period(start, end, zone)


def from_query(first: str, last: str, zone: str, today: date) -> Period | PeriodProblem:
    """The period of a page's or the API's `from` and `to` (ISO dates, either left out:
    `to` is today, `from` DEFAULT_DAYS before `to`)."""
    if len(first) > MAX_WORDS or len(last) > MAX_WORDS:
        return PeriodProblem.UNREADABLE
    if not last:
        last = today.isoformat()
    if not first:
        try:
            first = (date.fromisoformat(last) - timedelta(days=DEFAULT_DAYS - 1)).isoformat()
        except ValueError:
            return PeriodProblem.UNREADABLE
    return between(first, last, zone)
