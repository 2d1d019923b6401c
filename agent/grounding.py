"""What backs each figure of an answer: the figure ledger (agent/ledger.py).

A small model that could not look something up often answers with a figure anyway; the run
lists each figure with what backs it (agent/lookups.py), and front ends mark the unbacked
ones quietly (bot/view/grounding.py). Each figure is checked against stated rules, first
one to hold wins: the same value, date or time as an observation, the question or the
history (exact, or rounded to the figure's own precision); a unit conversion of such a
value; an amount through an exchange rate a source states; sums, differences, products,
ratios and means of two or three backed figures. No rule: unbacked. A mark on a backed
figure teaches a class to ignore marks, so every rule is tested and the whole is measured
for precision and recall on hand-labelled answers (bench/grounding.py).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from agent.figures import Figure, Kind, figures
from agent.ledger import Backing, Entry, Rule
from agent.prompts import Turn
from agent.units import CURRENCIES, Unit, conversions

MAX_FIGURES = 300
"""Figures of one answer that get an entry; later ones are left unchecked (and unmarked)."""
MAX_OPERANDS = 16
"""Source figures arithmetic combines in pairs (120 pairs); the first MAX_TRIPLES in threes."""
MAX_TRIPLES = 10
MAX_NEAR = 6
"""Backed figures of the same sentence of the answer that arithmetic may use too."""
_SENTENCE = re.compile(r"[.!?。！？;；\n]")


@dataclass(frozen=True, slots=True)
class _Source:
    figure: Figure
    backing: Backing
    n: int


@dataclass(frozen=True, slots=True)
class _Rate:
    frm: Unit
    to: Unit
    value: Decimal
    text: str


def ledger(answer: str, observations: Sequence[str], question: str = "",
           history: Sequence[Turn] = ()) -> tuple[Entry, ...]:
    """Each figure of `answer` (in order) with what backs it."""
    texts = [*((Backing.OBSERVATION, n, text) for n, text in enumerate(observations, 1)),
             (Backing.QUESTION, 0, question),
             *((Backing.HISTORY, 0, f"{t.question}\n{t.answer}") for t in history)]
    sources = [_Source(f, backing, n) for backing, n, text in texts
               for f in figures(text, answer=False)]
    rates = [rate for _, _, text in texts for rate in _rates(text)]
    found = figures(answer)[:MAX_FIGURES]
    entries = [_direct(f, sources) or _converted(f, sources) for f in found]
    for i, figure in enumerate(found):  # rates may use an amount the answer chose
        if entries[i] is None:
            entries[i] = _through_rate(figure, sources, rates, found, entries, answer)
    pool, operands = _pool([s for s in sources if s.figure.kind == Kind.NUMBER])
    for i, figure in enumerate(found):
        if entries[i] is None and figure.kind == Kind.NUMBER:
            near = [f for f, e in zip(found, entries, strict=True)
                    if e is not None and f is not figure and f.kind == Kind.NUMBER
                    and _same_sentence(answer, f, figure)][:MAX_NEAR]
            entries[i] = _computed(figure, pool, near, operands)
    return tuple(e or _entry(f, Backing.UNBACKED) for f, e in zip(found, entries, strict=True))


def unfounded(entries: Iterable[Entry]) -> tuple[str, ...]:
    """The unbacked figures' texts, in order, each once."""
    return tuple(dict.fromkeys(e.text for e in entries if e.unbacked))


def _entry(f: Figure, backing: Backing, rule: Rule = Rule.NONE, source: int = 0,
           inputs: tuple[str, ...] = ()) -> Entry:
    return Entry(f.start, f.end, f.text, backing, rule, source, inputs)


def _half(f: Figure) -> Decimal:
    return Decimal(1).scaleb(f.exponent) / 2


def _near(f: Figure, value: Decimal) -> bool:
    return abs(f.value - value) <= _half(f)


def _compatible(a: Unit, b: Unit) -> bool:
    return a == b or Unit.NONE in (a, b)


def _year_like(f: Figure) -> bool:
    return f.unit == Unit.NONE and f.exponent == 0 and 1000 <= f.value <= 2100


def _direct(f: Figure, sources: Sequence[_Source]) -> Entry | None:
    """The same value, date or time as a source (exact, or rounded to `f`'s precision)."""
    for s in sources:
        rule = _same(f, s.figure)
        if rule is not None:
            return _entry(f, s.backing, rule, s.n)
    return None


def _same(f: Figure, s: Figure) -> Rule | None:
    if f.kind == Kind.NUMBER and s.kind == Kind.NUMBER:
        if not _compatible(f.unit, s.unit):
            return None
        if f.value == s.value:
            return Rule.EXACT
        return Rule.ROUNDED if _near(f, s.value) else None
    if f.kind == Kind.DATE and s.kind == Kind.DATE:
        agree = all(a is None or a == b for a, b in zip(f.date, s.date, strict=True))
        return Rule.DATE if agree else None
    if f.kind == Kind.NUMBER and s.kind == Kind.DATE and _year_like(f):
        return Rule.DATE if s.date[0] == f.value else None
    if f.kind == Kind.DATE and s.kind == Kind.NUMBER and f.date[1:] == (None, None):
        return Rule.DATE if _year_like(s) and s.value == f.date[0] else None
    if f.kind == Kind.TIME and s.kind == Kind.TIME:
        (fh, fm, f_half), (sh, sm, s_half) = f.time, s.time
        hours_agree = fh == sh or (not (f_half and s_half) and fh % 12 == sh % 12)
        return Rule.TIME if fm == sm and hours_agree else None
    return None


def _converted(f: Figure, sources: Sequence[_Source]) -> Entry | None:
    """A unit conversion of a source's value, to `f`'s unit (or, for a figure without a
    unit, of three digits or more, to any unit of the same kind)."""
    if f.kind != Kind.NUMBER:
        return None
    for s in sources:
        if s.figure.kind != Kind.NUMBER:
            continue
        for unit, value in conversions(s.figure.value, s.figure.unit):
            fits = f.unit == unit or (f.unit == Unit.NONE and (f.digits >= 3 or unit == Unit.NONE))
            if fits and _near(f, value):
                return _entry(f, Backing.COMPUTED, Rule.CONVERTED, s.n, (s.figure.text,))
    return None


def _rates(text: str) -> list[_Rate]:
    """The exchange rates `text` states: "100 USD = 729.94 CNY", "1 USD = 7.2994 CNY"."""
    found = [f for f in figures(text, answer=False) if f.unit in CURRENCIES]
    out = []
    for a, b in itertools.pairwise(found):
        if a.unit != b.unit and a.value and b.value and "=" in text[a.end:b.start]:
            pair = f"{a.text} = {b.text}"
            out += [_Rate(a.unit, b.unit, b.value / a.value, pair),
                    _Rate(b.unit, a.unit, a.value / b.value, pair)]
    return out


def _through_rate(f: Figure, sources: Sequence[_Source], rates: Sequence[_Rate],
                  found: Sequence[Figure], entries: list[Entry | None],
                  answer: str) -> Entry | None:
    """An amount through a stated rate: of a source's amount, or of an amount the answer
    chose for a worked example in the same sentence (which the example then backs)."""
    if f.kind != Kind.NUMBER or (f.unit not in CURRENCIES and f.unit != Unit.NONE):
        return None
    for rate in rates:
        if f.unit not in (rate.to, Unit.NONE) or (f.digits < 3 and f.exponent >= 0):
            continue
        for s in sources:
            if s.figure.unit == rate.frm and _near(f, s.figure.value * rate.value):
                return _entry(f, Backing.COMPUTED, Rule.RATE, s.n, (s.figure.text, rate.text))
        for j, x in enumerate(found):
            if (x.unit == rate.frm and _same_sentence(answer, x, f)
                    and _near(f, x.value * rate.value)):
                if entries[j] is None:
                    entries[j] = _entry(x, Backing.COMPUTED, Rule.EXAMPLE, 0, (rate.text,))
                return _entry(f, Backing.COMPUTED, Rule.RATE, 0, (x.text, rate.text))
    return None


def _same_sentence(answer: str, a: Figure, b: Figure) -> bool:
    lo, hi = (a, b) if a.start < b.start else (b, a)
    return _SENTENCE.search(answer, lo.end, hi.start) is None


_Value = tuple[Decimal, Unit, Rule, tuple[str, ...]]


def _pool(sources: Sequence[_Source]) -> tuple[list[_Value], list[Figure]]:
    """What arithmetic on the first source figures gives: every pair, and the first few
    in threes (a bounded search: at most 840 + 360 values)."""
    operands = list({(s.figure.value, s.figure.unit): s.figure for s in sources}.values())
    operands = operands[:MAX_OPERANDS]
    out: list[_Value] = []
    for a, b in itertools.combinations(operands, 2):
        out += _pairs(a, b)
    for a, b, c in itertools.combinations(operands[:MAX_TRIPLES], 3):
        if a.unit == b.unit == c.unit:
            texts = (a.text, b.text, c.text)
            total = a.value + b.value + c.value
            out += [(total, a.unit, Rule.SUM, texts), (total / 3, a.unit, Rule.MEAN, texts)]
        if a.unit == b.unit == c.unit == Unit.NONE:
            out.append((a.value * b.value * c.value, Unit.NONE, Rule.PRODUCT, texts))
    return out, operands


def _pairs(a: Figure, b: Figure) -> list[_Value]:
    """Sums, differences and means of two figures of one unit; products and ratios where
    the units allow (a percentage counts as a fraction)."""
    texts = (a.text, b.text)
    out: list[_Value] = []
    if a.unit == b.unit:
        out += [(a.value + b.value, a.unit, Rule.SUM, texts),
                (a.value - b.value, a.unit, Rule.DIFFERENCE, texts),
                (b.value - a.value, a.unit, Rule.DIFFERENCE, texts[::-1]),
                ((a.value + b.value) / 2, a.unit, Rule.MEAN, texts)]
        if a.value and b.value:
            out += [(a.value / b.value, Unit.NONE, Rule.RATIO, texts),
                    (b.value / a.value, Unit.NONE, Rule.RATIO, texts[::-1])]
    (x, xu), (y, yu) = _factor(a), _factor(b)
    if Unit.NONE in (xu, yu):
        unit = yu if xu == Unit.NONE else xu
        out.append((x * y, unit, Rule.PRODUCT, texts))
        if y and yu == Unit.NONE:
            out.append((x / y, xu, Rule.RATIO, texts))
        if x and xu == Unit.NONE:
            out.append((y / x, yu, Rule.RATIO, texts[::-1]))
    return out


def _factor(f: Figure) -> tuple[Decimal, Unit]:
    return (f.value / 100, Unit.NONE) if f.unit == Unit.PERCENT else (f.value, f.unit)


def _computed(f: Figure, pool: Sequence[_Value], near: Sequence[Figure],
              operands: Sequence[Figure]) -> Entry | None:
    """Arithmetic on backed figures (the sources' and the sentence's): exact, or within
    `f`'s precision when `f` has three significant digits or more (fewer would match too
    much by chance)."""
    extra = [v for i, a in enumerate(near) for b in [*near[i + 1:], *operands]
             for v in _pairs(a, b)]
    for value, unit, rule, inputs in itertools.chain(pool, extra):
        if not _compatible(f.unit, unit):
            continue
        if f.value == value or (f.digits >= 3 and _near(f, value)):
            return _entry(f, Backing.COMPUTED, rule, 0, inputs)
    return None
