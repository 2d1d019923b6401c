"""Chinese numerals as numbers: 三点五 (3.5), 两千零二十四 (2024), 二〇二四 (2024), 两千五百万
(25,000,000), 百分之八十 (80, a percentage is the caller's to note). Each comes with the
exponent of its precision (两千五百万: 10⁶, 六千三百四十: 1), which a rounding rule allows."""

from __future__ import annotations

from decimal import Decimal

DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6,
          "七": 7, "八": 8, "九": 9}
UNITS = {"十": 1, "百": 2, "千": 3}
BIG = {"万": 4, "亿": 8}
CHARS = "".join(DIGITS) + "".join(UNITS) + "".join(BIG)


def zh_number(text: str) -> tuple[Decimal, int] | None:
    """(value, exponent of its precision) of a Chinese numeral, None if it is not one."""
    whole, _, fraction = text.partition("点")
    if not whole or any(ch not in DIGITS for ch in fraction):
        return None
    parsed = _whole(whole)
    if parsed is None:
        return None
    value, exponent = parsed
    if fraction:
        digits = "".join(str(DIGITS[ch]) for ch in fraction)
        value += Decimal("0." + digits)
        exponent = -len(digits)
    return value, exponent


def _whole(text: str) -> tuple[Decimal, int] | None:
    if all(ch in DIGITS for ch in text):  # 二〇二四: digit by digit
        return Decimal("".join(str(DIGITS[ch]) for ch in text)), 0
    total = section = 0
    digit: int | None = None
    last = 0  # the exponent of the last non-zero term, within its section
    exponent = 0
    for ch in text:
        if ch in DIGITS:
            digit = DIGITS[ch]
        elif ch in UNITS:
            if digit == 0:
                return None
            section += (1 if digit is None else digit) * 10 ** UNITS[ch]
            last, digit = UNITS[ch], None
        elif ch in BIG:
            if digit:
                section, last = section + digit, 0
            digit = None
            if BIG[ch] == 8:
                total = (total + section) * 10**8
            else:
                total += section * 10**4
            exponent = last + BIG[ch]
            section, last = 0, 0
        else:
            return None
    if digit or section:  # 六千三百四十 is as exact as 6340; only 万 and 亿 round
        section += digit or 0
        exponent = 0
    return Decimal(total + section), exponent
