"""What the sources of an answer hold, indexed: each figure of the answer is looked up (a
value within its precision, a date, a time), never compared with every source figure, so
a ledger costs about the same per figure however long the observations are."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Container, Iterable
from dataclasses import dataclass
from decimal import Decimal, localcontext

from agent.grounding.figures import Figure, Kind
from agent.grounding.units import Unit, conversions
from agent.ledger import Backing, Rule

SCAN = 64
"""Source values looked at within one figure's precision (the first SCAN of them)."""


@dataclass(frozen=True, slots=True)
class Source:
    figure: Figure
    backing: Backing
    n: int
    """The observation's number (1 for the first), 0 for the question and the history."""
    backs_percent: bool = True
    """False for a calculation's result whose expression neither divides nor takes a per
    cent ("92 - 80 = 12"): a difference, sum or product is no percentage, so its value backs
    no figure written as one ("rose by 12%"); the same value stated elsewhere still does."""


class _Table:
    """Values sorted, each with the order of its source (the earliest source wins)."""

    def __init__(self) -> None:
        self._pairs: list[tuple[Decimal, int]] = []
        self._values: list[Decimal] = []

    def add(self, value: Decimal, order: int) -> None:
        self._pairs.append((value, order))

    def freeze(self) -> None:
        self._pairs.sort()
        self._values = [value for value, _ in self._pairs]

    def first(self, lo: Decimal, hi: Decimal, skip: Container[int] = ()) -> int | None:
        """The earliest source with a value in [lo, hi], of those not in `skip`."""
        i = bisect_left(self._values, lo)
        found = [order for value, order in self._pairs[i:i + SCAN]
                 if value <= hi and order not in skip]
        return min(found, default=None)


def _key(f: Figure) -> tuple[object, ...]:
    return (f.kind, f.value, f.unit, f.date, f.time)


def year_like(f: Figure) -> bool:
    return f.unit == Unit.NONE and f.exponent == 0 and 1000 <= f.value <= 2100


def half(f: Figure) -> Decimal:
    return Decimal(1).scaleb(f.exponent) / 2


def within(f: Figure) -> tuple[Decimal, Decimal]:
    """The values `f` may round: its value less and plus half its last digit, worked out
    exactly (the default 28 digits rounded 2**100's 31 and lost the value itself)."""
    with localcontext() as ctx:
        ctx.prec = max(ctx.prec, f.value.adjusted() - f.exponent + 3)
        return f.value - half(f), f.value + half(f)


class Sources:
    """The figures of the observations, the question and the history, each value once."""

    def __init__(self, sources: Iterable[Source]) -> None:
        first: dict[tuple[object, ...], Source] = {}
        for s in sources:
            first.setdefault((*_key(s.figure), s.backs_percent), s)
        self.all = list(first.values())
        self._not_percent = frozenset(i for i, s in enumerate(self.all) if not s.backs_percent)
        self._numbers: dict[Unit, _Table] = {}
        self._converted: dict[Unit, _Table] = {}
        self._dates: dict[tuple[int | None, ...], int] = {}
        self._date_years: dict[int, int] = {}
        self._number_years: dict[Decimal, int] = {}
        self._times: dict[tuple[int, int], list[int]] = {}
        for order, s in enumerate(self.all):
            self._add(order, s.figure)
        for table in (*self._numbers.values(), *self._converted.values()):
            table.freeze()

    def _add(self, order: int, f: Figure) -> None:
        if f.kind == Kind.NUMBER:
            self._numbers.setdefault(f.unit, _Table()).add(f.value, order)
            for unit, value in conversions(f.value, f.unit):
                self._converted.setdefault(unit, _Table()).add(value, order)
            if year_like(f):
                self._number_years.setdefault(f.value, order)
        elif f.kind == Kind.DATE:
            for mask in range(8):  # every way of leaving parts out: December 2nd, 2026
                key = tuple(None if mask >> i & 1 else part for i, part in enumerate(f.date))
                self._dates.setdefault(key, order)
            if f.date[0] is not None:
                self._date_years.setdefault(f.date[0], order)
        else:
            self._times.setdefault((f.time[0] % 12, f.time[1]), []).append(order)

    def numbers(self) -> list[Figure]:
        return [s.figure for s in self.all if s.figure.kind == Kind.NUMBER]

    def same(self, f: Figure) -> tuple[Source, Rule] | None:
        """The earliest source with the same value (exact, or rounded to `f`'s precision,
        units agreeing), date or time as `f`."""
        found: list[tuple[int, Rule]] = []
        if f.kind == Kind.NUMBER:
            units = self._numbers if f.unit == Unit.NONE else (f.unit, Unit.NONE)
            skip = self._not_percent if f.unit == Unit.PERCENT else ()
            for unit in units:
                table = self._numbers.get(unit)
                order = table.first(*within(f), skip) if table else None
                if order is not None:
                    rule = Rule.EXACT if self.all[order].figure.value == f.value else Rule.ROUNDED
                    found.append((order, rule))
            if year_like(f) and int(f.value) in self._date_years:
                found.append((self._date_years[int(f.value)], Rule.DATE))
        elif f.kind == Kind.DATE:
            if f.date in self._dates:
                found.append((self._dates[f.date], Rule.DATE))
            if f.date[1:] == (None, None) and Decimal(f.date[0] or 0) in self._number_years:
                found.append((self._number_years[Decimal(f.date[0] or 0)], Rule.DATE))
        else:
            found += [(order, Rule.TIME) for order in self._times.get(
                (f.time[0] % 12, f.time[1]), ()) if _same_time(f, self.all[order].figure)]
        if not found:
            return None
        order, rule = min(found, key=lambda pair: pair[0])
        return self.all[order], rule

    def converted(self, f: Figure) -> Source | None:
        """The earliest source a unit conversion of which is `f` within its precision: to
        `f`'s unit, or for a figure without one (of three digits or more) to any unit."""
        if f.kind != Kind.NUMBER:
            return None
        if f.unit != Unit.NONE:
            units: Iterable[Unit] = (f.unit,)
        else:
            units = self._converted if f.digits >= 3 else (Unit.NONE,)
        orders = [order for unit in units if (table := self._converted.get(unit)) is not None
                  and (order := table.first(*within(f))) is not None]
        return self.all[min(orders)] if orders else None

    def amount(self, unit: Unit, lo: Decimal, hi: Decimal) -> Source | None:
        """The earliest source amount in `unit` between `lo` and `hi`."""
        table = self._numbers.get(unit)
        order = table.first(lo, hi) if table else None
        return None if order is None else self.all[order]


def _same_time(f: Figure, s: Figure) -> bool:
    (fh, fm, f_half), (sh, sm, s_half) = f.time, s.time
    return fm == sm and (fh == sh or (not (f_half and s_half) and fh % 12 == sh % 12))
