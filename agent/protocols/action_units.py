"""An action's figures keep their units: a figure of the question written into a
calculation without its unit is refused, with the exact way to write it.

Asked "What is 8% of 2500?", a small model called calculate("8*2500"): the 8 of the question
is 8%, and written bare it is the number 8 (20,000 instead of 200). The calculator reads
percentages as a class writes them (agent/tools/percent.py), so the refusal gives the
expression back with the % in place, as its other refusals give the way to write them.
A number the question also has without a % (50% of 50), or an expression that already
divides by 100 or writes a %, is left alone.

The same for the question's other units: "20% off 150" written `150*0.2` is the discount,
not the price (`150*(1 - 20%)`); "350 美元" multiplied by a rate no tool gave is a
conversion `convert_currency` makes; "100°F in Celsius" written without the 32 of the
scales' offset has lost its °F (`(100 - 32) * 5 / 9`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from decimal import Decimal, InvalidOperation

from agent.grounding.figures import Figure, Kind, figures
from agent.grounding.units import CURRENCIES, PATTERN, Unit, unit_of
from agent.protocols.tool_calls import ParsedCall
from agent.words import say

_BARE = re.compile(r"(?<![\w.])\d++(?:\.\d++)?+(?![\w.%])")
_PER_CENT_ALREADY = re.compile(r"%|/\s*+100(?![\d.])|百分之")
_TAKEN_OFF = re.compile(r"\boff\b|discount|\bsale\b|折扣|优惠|降价|减价|便宜", re.IGNORECASE)
_SUBTRACTS = re.compile(r"-|\boff\b", re.IGNORECASE)
_UNIT_WORD = re.compile(PATTERN, re.IGNORECASE)
_CELSIUS_NAMED = re.compile(r"celsius|centigrade|摄氏|°\s*+c\b|℃", re.IGNORECASE)
_FAHRENHEIT_NAMED = re.compile(r"fahrenheit|华氏|°\s*+f\b|℉", re.IGNORECASE)
_OFFSET = re.compile(r"(?<![\d.])32(?![\d.])")


def _percents(question: str) -> set[Decimal]:
    """The question's percentages whose number it has nowhere without the %."""
    found = [f for f in figures(question, answer=False) if f.kind == Kind.NUMBER]
    bare = {f.value for f in found if f.unit != Unit.PERCENT}
    return {f.value for f in found if f.unit == Unit.PERCENT} - bare


def with_units(expression: str, question: str) -> str:
    """`expression` with each of the question's percentages it writes bare given its %
    back; the same text when there is none."""
    percents = _percents(question)
    if not percents or _PER_CENT_ALREADY.search(expression):
        return expression
    pieces, last = [], 0
    for match in _BARE.finditer(expression):
        try:
            value = Decimal(match.group())
        except InvalidOperation:
            continue
        if value in percents:
            pieces += (expression[last:match.end()], "%")
            last = match.end()
    pieces.append(expression[last:])
    return "".join(pieces)


def _numbers(expression: str) -> list[tuple[re.Match[str], Decimal]]:
    """The numbers written in `expression`, with their values."""
    found = []
    for match in _BARE.finditer(expression):
        try:
            found.append((match, Decimal(match.group())))
        except InvalidOperation:
            continue
    return found


def _discount_only(expression: str, question: str) -> str | None:
    """For a question that takes a percentage off ("20% off 150"), the price after it when
    `expression` works out the discount alone (`150*0.2`, `150*20%`): the percentage as
    `(1 - 20%)`."""
    if not _TAKEN_OFF.search(question) or _SUBTRACTS.search(expression):
        return None
    percents = {f.value for f in figures(question, answer=False)
                if f.kind == Kind.NUMBER and f.unit == Unit.PERCENT}
    for value in percents:
        number = f"{value.normalize():f}"
        share = f"(1 - {number}%)"
        marked = re.search(rf"(?<![\w.]){re.escape(number)}\s*+%", expression)
        if marked:
            return expression[:marked.start()] + share + expression[marked.end():]
        for match, number in _numbers(expression):
            if number == value / 100:
                return expression[:match.start()] + share + expression[match.end():]
    return None


def _money(question: str) -> list[Figure]:
    return [f for f in figures(question, answer=False)
            if f.kind == Kind.NUMBER and f.unit in CURRENCIES]


def _unseen_rate(expression: str, question: str, observed: Sequence[str]) -> str | None:
    """For an amount of money of a question that names another currency, multiplied or
    divided in `expression` by a number that neither the question (nor its percentages as
    factors) nor any observation has, an exchange rate the model knows or guessed: the call
    that looks it up."""
    money = _money(question)
    written = _numbers(expression)
    if not money or len(written) < 2:
        return None
    named = [unit_of(m.group()) for m in _UNIT_WORD.finditer(question)]
    numbers = [f for f in figures(question, answer=False) if f.kind == Kind.NUMBER]
    given = {f.value for f in numbers} | {
        1 + sign * f.value / 100 for f in numbers if f.unit == Unit.PERCENT for sign in (1, -1)}
    seen = {f.value for text in observed for f in figures(text, answer=False)}
    for amount in money:
        target = next((u for u in named if u in CURRENCIES and u != amount.unit), None)
        if target is None or amount.value not in {value for _, value in written}:
            continue
        if all(value in given | seen or value in (1, 100) for _, value in written):
            return None
        call = {"amount": float(amount.value) if amount.exponent < 0 else int(amount.value),
                "from_currency": str(amount.unit), "to_currency": str(target)}
        return f"convert_currency[{json.dumps(call, ensure_ascii=False)}]"
    return None


def _scale_lost(expression: str, question: str) -> str | None:
    """For a question that turns a temperature into the other scale, the conversion when
    `expression` uses its temperature without the scales' offset of 32."""
    if _OFFSET.search(expression):
        return None
    values = {value for _, value in _numbers(expression)}
    for f in figures(question, answer=False):
        if f.kind != Kind.NUMBER or f.value not in values:
            continue
        v = f"{f.value.normalize():f}"
        if f.unit == Unit.FAHRENHEIT and _CELSIUS_NAMED.search(question):
            return f"({v} - 32) * 5 / 9"
        if f.unit == Unit.CELSIUS and _FAHRENHEIT_NAMED.search(question):
            return f"{v} * 9 / 5 + 32"
    return None


def refusal(expression: str, question: str, lang: str, tools: Collection[str] = (),
            observed: Sequence[str] = ()) -> str | None:
    """Why `calculate(expression)` loses a unit of a figure of `question`, and the exact
    way to write it; None when it keeps them."""
    fixed = with_units(expression, question)
    off = _discount_only(fixed, question)
    if off is not None:
        return say(lang, "call_discount_only", expression=expression, fixed=off)
    if fixed != expression:
        return say(lang, "call_unit_lost", expression=expression, fixed=fixed)
    if "convert_currency" in tools:
        call = _unseen_rate(expression, question, observed)
        if call is not None:
            return say(lang, "call_rate_unseen", expression=expression, call=call)
    scale = _scale_lost(expression, question)
    if scale is not None:
        return say(lang, "call_scale_lost", expression=expression, fixed=scale)
    return None


def units_kept(parsed: ParsedCall, question: str, lang: str, tools: Collection[str] = (),
               observed: Sequence[str] = ()) -> ParsedCall:
    """`parsed`, refused when it is a calculation that lost a unit of the question's
    figures (`observed`: the run's observations, whose numbers a calculation may use)."""
    args = parsed.arguments
    if parsed.error or parsed.call.name != "calculate" or not isinstance(args, dict):
        return parsed
    expression = args.get("expression")
    if not isinstance(expression, str):
        return parsed
    problem = refusal(expression, question, lang, tools, observed)
    return parsed if problem is None else ParsedCall(parsed.call, args, problem)
