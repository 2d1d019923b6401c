"""What backs each figure of an answer: the figure ledger (agent/ledger.py).

A small model that could not look something up often answers with a figure anyway; the run
lists each figure with what backs it (agent/grounding/lookups.py), and front ends mark the unbacked
ones quietly (bot/view/grounding_marks.py). Each figure is checked against stated rules, first
one to hold wins: the same value, date or time as an observation, the question or the
history (exact, or rounded to the figure's own precision); a unit conversion of such a
value; an amount through an exchange rate a source states; sums, differences, products,
ratios and means of two or three backed figures (the answer's own, for a figure of
fewer than three significant digits). No rule: unbacked. A mark on a backed
figure teaches a class to ignore marks, so every rule is tested and the whole is measured
for precision and recall on hand-labelled answers (bench/grounding.py).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from agent.grounding.figures import Figure, Kind, figures
from agent.grounding.source_index import Source, Sources, half
from agent.grounding.units import CURRENCIES, Unit
from agent.ledger import Backing, Entry, Rule
from agent.prompts import Turn

MAX_FIGURES = 300
"""Figures of one answer that get an entry; later ones are left unchecked (and unmarked)."""
MAX_ANSWER_CHARS = 20_000
"""Of a longer answer, the figures of its first 20,000 characters are checked."""
MAX_OPERANDS = 16
"""Figures arithmetic combines in pairs (120 pairs), of the sources and of the answer's own
backed ones; the first MAX_TRIPLES of each in threes. A bounded search."""
MAX_TRIPLES = 10
MAX_RATES = 8
"""Exchange rates the sources state that amounts are tried through."""
MAX_NEAR = 8
"""Figures either side of an amount in which a worked example's amount is looked for."""
_SENTENCE = re.compile(r"[.!?。！？;；\n]")


@dataclass(frozen=True, slots=True)
class _Rate:
    frm: Unit
    to: Unit
    value: Decimal
    text: str


def ledger(answer: str, observations: Sequence[str], question: str = "",
           history: Sequence[Turn] = ()) -> tuple[Entry, ...]:
    """Each figure of `answer` (in order) with what backs it."""
    return _ledger(answer, tuple(observations), question, tuple(history))


@lru_cache(maxsize=16)
def _ledger(answer: str, observations: tuple[str, ...], question: str,
            history: tuple[Turn, ...]) -> tuple[Entry, ...]:
    """`ledger`, kept for the answers last read: the send-back check reads the answer the
    run then shows."""
    texts = [*((Backing.OBSERVATION, n, text) for n, text in enumerate(observations, 1)),
             (Backing.QUESTION, 0, question),
             *((Backing.HISTORY, 0, f"{t.question}\n{t.answer}") for t in history)]
    read = [(backing, n, text, figures(text, answer=False)) for backing, n, text in texts]
    cuts = [_plain_result(text) for _, _, text, _ in read]
    sources = Sources(Source(f, backing, n, f.start < cut)
                      for (backing, n, _, found), cut in zip(read, cuts, strict=True)
                      for f in found)
    rates = list({(r.frm, r.to, r.value): r for _, _, text, found in read
                  for r in _rates(text, found)}.values())[:MAX_RATES]
    head = _head(answer)
    read_head = figures(head)[:MAX_FIGURES]
    found = [f for i, f in enumerate(read_head) if not _unit_amount(read_head, i, head)]
    entries = [_direct(f, sources) for f in found]
    for i in range(len(found)):  # rates may use an amount the answer chose
        if entries[i] is None:
            entries[i] = _through_rate(i, found, sources, rates, entries, answer)
    sourced, operands = _pool(sources.numbers())
    own, backed = _pool([f for f, e in zip(found, entries, strict=True)
                         if e is not None and f.kind == Kind.NUMBER])
    mixed = [v for a in backed for b in operands for v in _pairs(a, b)]
    times = [s.figure for s in sources.all if s.figure.kind == Kind.TIME][:MAX_OPERANDS]
    times += [f for f, e in zip(found, entries, strict=True)
              if e is not None and f.kind == Kind.TIME][:MAX_OPERANDS]
    for i, figure in enumerate(found):
        if entries[i] is None and figure.kind == Kind.NUMBER:
            entries[i] = _computed(figure, own, sourced, mixed) or _time_gap(figure, times)
    return tuple(e or _entry(f, Backing.UNBACKED) for f, e in zip(found, entries, strict=True))


_CALCULATION = re.compile(r"(?P<expression>[^=\n]++)= (?P<result>[^\s=]++)")
"""A calculation's observation, as the calculate tool writes it: "92 - 80 = 12"."""
_RATIO = re.compile(r"[/÷%％]")
"""What in an expression divides or takes a per cent, so its result may be a ratio."""


def _plain_result(text: str) -> int:
    """Where the result of a calculation that gives no ratio starts in `text` (past its
    end for any other text): such a result backs no per cent (see Source.backs_percent)."""
    m = _CALCULATION.fullmatch(text)
    if m is None or _RATIO.search(m["expression"]):
        return len(text)
    return m.start("result")


def _head(answer: str) -> str:
    """`answer` up to MAX_ANSWER_CHARS, cut at a space so no figure is cut in two."""
    if len(answer) <= MAX_ANSWER_CHARS:
        return answer
    cut = answer.rfind(" ", 0, MAX_ANSWER_CHARS)
    return answer[:cut if cut > 0 else MAX_ANSWER_CHARS]


_RATE_GAP = re.compile(
    r"[\s=≈~:：]*+(?:(?:is|are|equals|about|roughly|buys|gets|to|等于|兑换|兑|大约|约|相当于|"
    r"可以换|能换|换)[\s=≈~:：]*+)*+", re.IGNORECASE)
"""What may stand between a rate's unit amount and its value: "is about", "=", "约等于"."""


def _unit_amount(found: Sequence[Figure], i: int, text: str) -> bool:
    """Whether `found[i]` is the unit amount of a rate ("1 EUR is 7.85 CNY"): one of a
    currency, then an amount of another. It is how a rate is said, no claim to back."""
    f = found[i]
    if f.value != 1 or f.unit not in CURRENCIES or i + 1 >= len(found):
        return False
    after = found[i + 1]
    return (after.unit in CURRENCIES and after.unit != f.unit
            and _RATE_GAP.fullmatch(text, f.end, after.start) is not None)


def lent(observation: str, ok: bool) -> str:
    """What an observation lends the ledger: its text, or nothing for a call that failed.
    A failed call gave no result, and its text may quote the model's own input back
    ("Write it like this: calculate[{"expression": 4368}]"), which backs no figure. An
    empty text keeps the observations' numbers as the chain shows them."""
    return observation if ok else ""


def unfounded(entries: Iterable[Entry]) -> tuple[str, ...]:
    """The unbacked figures' texts, in order, each once."""
    return tuple(dict.fromkeys(e.text for e in entries if e.unbacked))


def _entry(f: Figure, backing: Backing, rule: Rule = Rule.NONE, source: int = 0,
           inputs: tuple[str, ...] = ()) -> Entry:
    return Entry(f.start, f.end, f.text, backing, rule, source, inputs)


def _near(f: Figure, value: Decimal) -> bool:
    return abs(f.value - value) <= half(f)


def _compatible(a: Unit, b: Unit) -> bool:
    return a == b or Unit.NONE in (a, b)


def _direct(f: Figure, sources: Sources) -> Entry | None:
    """The same value, date or time as a source (exact, or rounded to `f`'s precision), or
    a unit conversion of a source's value."""
    same = sources.same(f)
    if same is not None:
        source, rule = same
        return _entry(f, source.backing, rule, source.n)
    converted = sources.converted(f)
    if converted is not None:
        return _entry(f, Backing.COMPUTED, Rule.CONVERTED, converted.n,
                      (converted.figure.text,))
    return None


def _rates(text: str, found: Sequence[Figure]) -> list[_Rate]:
    """The exchange rates `text` (whose figures are `found`) states: "100 USD = 729.94
    CNY", "1 USD = 7.2994 CNY"."""
    found = [f for f in found if f.unit in CURRENCIES]
    out = []
    for a, b in itertools.pairwise(found):
        if a.unit != b.unit and a.value and b.value and "=" in text[a.end:b.start]:
            pair = f"{a.text} = {b.text}"
            out += [_Rate(a.unit, b.unit, b.value / a.value, pair),
                    _Rate(b.unit, a.unit, a.value / b.value, pair)]
    return out


def _through_rate(i: int, found: Sequence[Figure], sources: Sources, rates: Sequence[_Rate],
                  entries: list[Entry | None], answer: str) -> Entry | None:
    """An amount through a stated rate: of a source's amount, or of an amount the answer
    chose for a worked example in the same sentence (which the example then backs)."""
    f = found[i]
    if f.kind != Kind.NUMBER or (f.unit not in CURRENCIES and f.unit != Unit.NONE):
        return None
    for rate in rates:
        if f.unit not in (rate.to, Unit.NONE) or (f.digits < 3 and f.exponent >= 0):
            continue
        lo, hi = sorted(((f.value - half(f)) / rate.value, (f.value + half(f)) / rate.value))
        s = sources.amount(rate.frm, lo, hi)
        if s is not None:
            return _entry(f, Backing.COMPUTED, Rule.RATE, s.n, (s.figure.text, rate.text))
        for j in range(max(0, i - MAX_NEAR), min(len(found), i + MAX_NEAR + 1)):
            x = found[j]
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


def _pool(numbers: Sequence[Figure]) -> tuple[list[_Value], list[Figure]]:
    """What arithmetic on the first figures of `numbers` gives: every pair, and the first
    few in threes (at most 120 pairs and 120 threes); and the figures it used."""
    operands = list({(f.value, f.unit): f for f in numbers}.values())[:MAX_OPERANDS]
    out: list[_Value] = []
    for a, b in itertools.combinations(operands, 2):
        out += _pairs(a, b)
    for a, b, c in itertools.combinations(operands[:MAX_TRIPLES], 3):
        texts = (a.text, b.text, c.text)
        if a.unit == b.unit == c.unit:
            total = a.value + b.value + c.value
            out += [(total, a.unit, Rule.SUM, texts), (total / 3, a.unit, Rule.MEAN, texts)]
        if a.unit == b.unit == c.unit == Unit.NONE:
            out.append((a.value * b.value * c.value, Unit.NONE, Rule.PRODUCT, texts))
    return out, operands


def _pairs(a: Figure, b: Figure) -> list[_Value]:
    """Sums, differences and means of two figures of one unit; products and ratios where
    the units allow (a percentage counts as a fraction); an amount a percentage more or
    less."""
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
    for amount, percent in ((a, b), (b, a)):  # 20% off 150 is 120; 5% more than 3840
        if percent.unit == Unit.PERCENT and amount.unit != Unit.PERCENT:
            rate, pair = percent.value / 100, (amount.text, percent.text)
            out += [(amount.value * (1 + rate), amount.unit, Rule.PERCENT_CHANGE, pair),
                    (amount.value * (1 - rate), amount.unit, Rule.PERCENT_CHANGE, pair)]
    return out


def _factor(f: Figure) -> tuple[Decimal, Unit]:
    return (f.value / 100, Unit.NONE) if f.unit == Unit.PERCENT else (f.value, f.unit)


def _time_gap(f: Figure, times: Sequence[Figure]) -> Entry | None:
    """Hours or minutes between two backed times of day, either way round the clock: Tokyo
    at 18:15 is 9 hours ahead of London at 09:15, as UTC+09:00 is of UTC+00:00. Exact only:
    a weather report's times would back many a rounded count by chance."""
    if f.unit not in (Unit.HOUR, Unit.MINUTE):
        return None
    per = 60 if f.unit == Unit.HOUR else 1
    for a, b in itertools.combinations(times, 2):
        gap = (b.time[0] - a.time[0]) * 60 + b.time[1] - a.time[1]
        for minutes in {gap % 1440, -gap % 1440} - {0}:
            if f.value == Decimal(minutes) / per:
                return _entry(f, Backing.COMPUTED, Rule.TIME_DIFFERENCE, 0, (a.text, b.text))
    return None


def _computed(f: Figure, own: Sequence[_Value], sourced: Sequence[_Value],
              mixed: Sequence[_Value]) -> Entry | None:
    """Arithmetic on backed figures. A figure of three significant digits or more may come
    from any: the sources' (`sourced`), the answer's own backed ones (`own`), one of each
    (`mixed`), within its precision. A shorter one would match too much by chance ("13" is
    7.8 + 5.2 of a weather report): it must be exactly what the answer's own figures give
    ("41 wins and 65 poles, 106 in all", "from 1994 to 2006, 12 years"). A per cent comes
    only from per cents (87% less 35% is 52%): what plain numbers give is no percentage
    ("from 80 to 92, by 12%" is a rise of 15%)."""
    values = itertools.chain(own, sourced, mixed) if f.digits >= 3 else own
    for value, unit, rule, inputs in values:
        if not _compatible(f.unit, unit) or (f.unit == Unit.PERCENT and unit != f.unit):
            continue
        if f.value == value or (f.digits >= 3 and _near(f, value)):
            return _entry(f, Backing.COMPUTED, rule, 0, inputs)
    return None
