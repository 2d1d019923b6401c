"""Which figures differ between /compare's two answers, and which of their digits.

A class compares 121,932,631,137,021,795 with 121,932,631,112,635,269 faster when the digits
that differ are marked in both. Figures equal in both answers (the question's own 17% and
2,480) pair with nothing; the rest pair up, each with the other answer's figure of its kind
and unit that shares the longest run of leading digits (then the closest length, then the
earlier one), the likest pairs taken first. Of a pair with as many digits before the point,
the digits that differ place by place are marked; otherwise everything from the first digit
that differs on. A bare single digit counts here ("4" against "5" is the whole difference),
though list numbers, ordinals and versions stay unread, as everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.grounding.backing import Figure, figures
from agent.grounding.units import Unit

MAX_FIGURES = 40
"""Figures of each answer considered: pairing is quadratic, and a class reads a handful."""


@dataclass(frozen=True, slots=True)
class Pair:
    """A figure of each answer that differ: `left` from the first, `right` from the second,
    and the offsets (in each answer's text) of the characters to mark."""

    left: Figure
    right: Figure
    left_marks: tuple[int, ...]
    right_marks: tuple[int, ...]


def differing(first: str, second: str) -> list[Pair]:
    """The pairs of figures that differ between answers `first` and `second`, in the order
    of `first`. A figure pairs only with one of its kind (a date with a date) and not with
    one of another unit (dollars with yuan)."""
    left = [f for f in figures(first, singles=True)[:MAX_FIGURES] if _digits(f.text)]
    right = [f for f in figures(second, singles=True)[:MAX_FIGURES] if _digits(f.text)]
    shared = {_digits(f.text) for f in left} & {_digits(f.text) for f in right}
    left = [f for f in left if _digits(f.text) not in shared]
    right = [f for f in right if _digits(f.text) not in shared]
    # The likest pairs first, whichever answer's order they come in: "0.125 × 3840 = 460"
    # against "480" pairs 460 with 480, not the rate that comes first.
    ranked = sorted(((_likeness(a.text, b.text, j), -i, i, j)
                     for i, a in enumerate(left) for j, b in enumerate(right)
                     if a.kind == b.kind and not _clash(a, b)), reverse=True)
    taken: dict[int, int] = {}
    used: set[int] = set()
    for *_, i, j in ranked:
        if i not in taken and j not in used:
            taken[i] = j
            used.add(j)
    pairs = []
    for i in sorted(taken):
        a, b = left[i], right[taken[i]]
        marks_a, marks_b = _marks(a, b)
        pairs.append(Pair(a, b, marks_a, marks_b))
    return pairs


def _clash(a: Figure, b: Figure) -> bool:
    """Two figures in different units (an amount in dollars and one in yuan)."""
    return a.unit != b.unit and Unit.NONE not in (a.unit, b.unit)


def _digits(text: str) -> str:
    return "".join(c for c in text if c.isdigit())


def _likeness(a: str, b: str, order: int) -> tuple[int, int, int]:
    da, db = _digits(a), _digits(b)
    common = next((i for i, (x, y) in enumerate(zip(da, db, strict=False)) if x != y),
                  min(len(da), len(db)))
    return common, -abs(len(da) - len(db)), -order


def _marks(a: Figure, b: Figure) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Offsets of the digits to mark in each figure's answer."""
    pa = [a.start + i for i, c in enumerate(a.text) if c.isdigit()]
    pb = [b.start + i for i, c in enumerate(b.text) if c.isdigit()]
    da, db = _digits(a.text), _digits(b.text)
    if _whole_digits(a.text) == _whole_digits(b.text):  # place by place
        differs = [i for i in range(max(len(da), len(db)))
                   if i >= len(da) or i >= len(db) or da[i] != db[i]]
        return (tuple(pa[i] for i in differs if i < len(pa)),
                tuple(pb[i] for i in differs if i < len(pb)))
    first = next((i for i, (x, y) in enumerate(zip(da, db, strict=False)) if x != y),
                 min(len(da), len(db)))
    return tuple(pa[first:]), tuple(pb[first:])


def _whole_digits(text: str) -> int:
    """How many digits come before the decimal point."""
    whole = text.split(".")[0] if text.count(".") == 1 else text
    return len(_digits(whole))
