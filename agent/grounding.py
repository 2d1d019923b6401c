"""Which figures of an answer no observation holds: numbers, amounts, times, dates and
percentages that occur in no observation, not in the question and not in the history.

A small model that could not look something up often answers with a figure anyway ("The
current time in London is 10:30 AM"). The run lists such figures on its Answer
(agent/lookups.py), and front ends mark them quietly (bot/view/grounding.py); in /compare,
the no-tools answer's figures are "from the model's memory". A mark on a figure a source
holds is a bug, so matching is lenient: thousands separators do not count, a rounded
value matches what it rounds (21 and 21.4), 10:30 AM matches 10:30, 10:30 PM matches
22:30, and each part of a date or a time matches the same number anywhere in the sources.
Single digits are no figures (list numbers, "2 cities"). Every regex here reads model
text, so each is linear.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

_FIGURE = re.compile(
    r"(?<![A-Za-z0-9_.,:/\-])\d[\d,.:/\-]*+(?:[ \t]?+(?:[AaPp]\.?[Mm]\b\.?|%))?+")
_TIME = re.compile(r"(\d{1,2}):(\d{2})(?::\d{2})?")
_PARTS = re.compile(r"[\-/:]")
_TRAILING = ",.:/-"


@dataclass(frozen=True, slots=True)
class Figure:
    start: int
    end: int
    text: str


def figures(text: str) -> list[Figure]:
    """The figures in `text`, with where each is."""
    found = []
    for match in _FIGURE.finditer(text):
        raw = match.group()
        core = raw.rstrip(_TRAILING)
        end = match.start() + len(core) if core != raw else match.end()
        found.append(Figure(match.start(), end, text[match.start():end]))
    return found


def unfounded(answer: str, sources: Iterable[str]) -> list[str]:
    """The figures of `answer` (as written, in order, each once) that no source holds."""
    known = _Known()
    for text in sources:
        for figure in figures(text):
            known.add(figure.text)
    out: dict[str, None] = {}  # ordered, each once
    for figure in figures(answer):
        if figure.text not in out and _counts(figure.text) and not known.holds(figure.text):
            out[figure.text] = None
    return list(out)


def _split(text: str) -> tuple[str, str]:
    """(the figure without an am/pm or % suffix, the suffix in lower case)."""
    body = text.rstrip(" \t.%AaPpMm")
    return body.rstrip(_TRAILING), text[len(body):].strip().lower().replace(".", "")


def _number(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", ""))
    except InvalidOperation:
        return None


def _counts(text: str) -> bool:
    """Whether a figure is worth checking: more than one digit, or a percentage."""
    body, suffix = _split(text)
    return sum(ch.isdigit() for ch in body) > 1 or suffix == "%"


class _Known:
    """What the sources hold: whole numbers, each part of dates and times, and times."""

    def __init__(self) -> None:
        self.numbers: set[Decimal] = set()
        self.times: set[tuple[int, int]] = set()
        self._sorted: list[Decimal] | None = None

    def add(self, text: str) -> None:
        self._sorted = None
        body, suffix = _split(text)
        time = _TIME.fullmatch(body)
        if time:
            self.times.add(_clock(int(time[1]), int(time[2]), suffix))
        number = _number(body)
        if number is not None:
            self.numbers.add(number)
        for part in _PARTS.split(body):
            value = _number(part)
            if value is not None:
                self.numbers.add(value)

    def holds(self, text: str) -> bool:
        body, suffix = _split(text)
        time = _TIME.fullmatch(body)
        if time:
            hour, minute = _clock(int(time[1]), int(time[2]), suffix)
            hours = (hour,) if suffix in ("am", "pm") else (hour, (hour + 12) % 24)
            return any((h, minute) in self.times for h in hours)
        number = _number(body)
        if number is not None:
            return self._rounds(number)
        parts = [_number(part) for part in _PARTS.split(body) if part]
        return all(p is not None and self._rounds(p) for p in parts)

    def _rounds(self, value: Decimal) -> bool:
        """Whether `value` is a known number, or one rounded to `value`'s decimals."""
        if value in self.numbers:
            return True
        exponent = value.as_tuple().exponent
        if not isinstance(exponent, int):
            return False
        if self._sorted is None:
            self._sorted = sorted(self.numbers)
        half = Decimal(1).scaleb(exponent) / 2
        i = bisect_left(self._sorted, value - half)  # the nearest known at or above it
        return i < len(self._sorted) and self._sorted[i] <= value + half


def _clock(hour: int, minute: int, suffix: str) -> tuple[int, int]:
    if suffix == "pm" and hour < 12:
        hour += 12
    elif suffix == "am" and hour == 12:
        hour = 0
    return hour, minute
