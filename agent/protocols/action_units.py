"""An action's figures keep their units: a percentage of the question written into a
calculation as a bare number is refused, with the exact way to write it.

Asked "What is 8% of 2500?", a small model called calculate("8*2500"): the 8 of the question
is 8%, and written bare it is the number 8 (20,000 instead of 200). The calculator reads
percentages as a class writes them (agent/tools/percent.py), so the refusal gives the
expression back with the % in place, as its other refusals give the way to write them.
A number the question also has without a % (50% of 50), or an expression that already
divides by 100 or writes a %, is left alone.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from agent.grounding.figures import Kind, figures
from agent.grounding.units import Unit
from agent.protocols.tool_calls import ParsedCall
from agent.words import say

_BARE = re.compile(r"(?<![\w.])\d++(?:\.\d++)?+(?![\w.%])")
_PER_CENT_ALREADY = re.compile(r"%|/\s*+100(?![\d.])|百分之")


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


def units_kept(parsed: ParsedCall, question: str, lang: str) -> ParsedCall:
    """`parsed`, refused when it is a calculation that lost a percentage's unit."""
    args = parsed.arguments
    if parsed.error or parsed.call.name != "calculate" or not isinstance(args, dict):
        return parsed
    expression = args.get("expression")
    if not isinstance(expression, str):
        return parsed
    fixed = with_units(expression, question)
    if fixed == expression:
        return parsed
    return ParsedCall(parsed.call, args, say(lang, "call_unit_lost", expression=expression,
                                             fixed=fixed))
