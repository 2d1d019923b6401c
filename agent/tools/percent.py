"""Percentages and discounts as a class writes them, rewritten into the calculator's syntax.

`12.5% * 3840`, `12.5% of 3840`, `3840 的 12.5%`, `百分之12.5`, `3840 * (1 + 5%)`,
`20% off 150`, `150 打八折`: a `%` after a number is a percentage (`percent(12.5)`) when
no operand follows it, or when it is written against the number and a space follows
(`12.5% 3840` then lacks its operator and is refused, with how to write it); `7 % 3` and
`7%3` stay the remainder.
Each rewrite is one regex pass that starts only at the beginning of a number or at a fixed
word, with possessive repeats, so the whole is linear in the text.
"""

from __future__ import annotations

import re

PERCENT = "percent"
"""The calculator's function a percentage becomes: percent(x) is x/100."""

_NUMBER = r"(?<![\w.])(\d[\d_]*+(?:\.\d*+)?|\.\d++)"
"""A number written in digits, matched only from its first character."""

_HUNDREDTHS = re.compile(r"百分之\s*+(\d[\d_]*+(?:\.\d*+)?|\.\d++)")
_WORD_PERCENT = re.compile(_NUMBER + r"\s*+percent\b", re.IGNORECASE)
_ZH_DIGITS = dict(zip("一二三四五六七八九", "123456789", strict=True))
_DISCOUNT = re.compile(
    r"(?:打\s*+)?(?<![\d.])([一二三四五六七八九]{1,2}|[1-9]\.[1-9]|[1-9][1-9]?)\s*+折")
_OF_AFTER = re.compile(r"%\s*+(?:of\b|的)", re.IGNORECASE)
_OF_BEFORE = re.compile(r"的(?=\s*+(?:\d[\d_]*+(?:\.\d*+)?|\.\d++)\s*+%)")
_OFF = re.compile(_NUMBER + r"\s*+%\s*+off(?:\s++of)?\b", re.IGNORECASE)
_PERCENT = re.compile(_NUMBER + r"(?:\s*+%(?=\s*+(?:[)*/+\-,]|$))|%(?=\s))")


def _discount(match: re.Match[str]) -> str:
    """`打八五折` pays 85 %, `打8折` and `八折` 80 %, `9.5折` and `95折` 95 %: a factor,
    multiplying what comes before it when that is a number or a bracket."""
    written = "".join(_ZH_DIGITS.get(ch, ch) for ch in match[1])
    factor = f"(0.{written.replace('.', '')})"
    return " *" + factor if _after_operand(match.string, match.start()) else factor


def _after_operand(text: str, end: int) -> bool:
    """Whether the last non-space character before `end` ends an operand. It walks back
    over the spaces just before a match only, so all matches together read the text once."""
    i = end - 1
    while i >= 0 and text[i].isspace():
        i -= 1
    return i >= 0 and (text[i].isdigit() or text[i] in ").")


def percent_syntax(text: str) -> str:
    """`text` with its percentages and discounts written as the calculator reads them."""
    text = _HUNDREDTHS.sub(r"\1%", text)
    text = _WORD_PERCENT.sub(r"\1%", text)
    text = _DISCOUNT.sub(_discount, text)
    text = _OF_AFTER.sub("% *", text)
    text = _OF_BEFORE.sub("*", text)
    text = _OFF.sub(r"(1 - \1%) *", text)
    return _PERCENT.sub(PERCENT + r"(\1)", text)
