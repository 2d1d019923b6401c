"""The units a figure may carry, as written in English and Chinese, and conversions between
those of one kind (°C/°F/K, km/h, m/s, mph, km/m/mi/ft, hours and minutes, a percentage
and a fraction). A count of hours, days or years is a figure even when it is one digit."""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal
from enum import StrEnum


class Unit(StrEnum):
    NONE = ""
    CELSIUS = "°C"
    FAHRENHEIT = "°F"
    KELVIN = "K"
    KMH = "km/h"
    MS = "m/s"
    MPH = "mph"
    KM = "km"
    M = "m"
    FOOT = "ft"
    MILE = "mi"
    PERCENT = "%"
    AREA = "km²"
    USD = "USD"
    CNY = "CNY"
    EUR = "EUR"
    GBP = "GBP"
    JPY = "JPY"
    HOUR = "h"
    MINUTE = "min"
    DAY = "d"
    YEAR = "yr"


CURRENCIES = frozenset({Unit.USD, Unit.CNY, Unit.EUR, Unit.GBP, Unit.JPY})

_WORDS: dict[str, Unit] = {
    "°c": Unit.CELSIUS, "° c": Unit.CELSIUS, "℃": Unit.CELSIUS, "°": Unit.CELSIUS,
    "degrees": Unit.CELSIUS, "度": Unit.CELSIUS, "摄氏度": Unit.CELSIUS,
    "°f": Unit.FAHRENHEIT, "℉": Unit.FAHRENHEIT, "华氏度": Unit.FAHRENHEIT,
    "k": Unit.KELVIN, "km/h": Unit.KMH, "kph": Unit.KMH, "公里/小时": Unit.KMH,
    "千米/小时": Unit.KMH, "m/s": Unit.MS, "米/秒": Unit.MS, "mph": Unit.MPH,
    "m": Unit.M, "metres": Unit.M, "meters": Unit.M, "metre": Unit.M, "meter": Unit.M,
    "米": Unit.M, "ft": Unit.FOOT, "feet": Unit.FOOT, "英尺": Unit.FOOT,
    "hours": Unit.HOUR, "hour": Unit.HOUR, "小时": Unit.HOUR, "个小时": Unit.HOUR,
    "minutes": Unit.MINUTE, "minute": Unit.MINUTE, "分钟": Unit.MINUTE,
    "days": Unit.DAY, "day": Unit.DAY, "天": Unit.DAY, "years": Unit.YEAR, "year": Unit.YEAR,
    "km": Unit.KM, "kilometres": Unit.KM, "kilometers": Unit.KM, "公里": Unit.KM,
    "千米": Unit.KM, "miles": Unit.MILE, "mile": Unit.MILE, "mi": Unit.MILE, "英里": Unit.MILE,
    "%": Unit.PERCENT, "％": Unit.PERCENT, "percent": Unit.PERCENT, "per cent": Unit.PERCENT,
    "平方千米": Unit.AREA, "平方公里": Unit.AREA, "km²": Unit.AREA,
    "usd": Unit.USD, "us dollars": Unit.USD, "dollars": Unit.USD, "dollar": Unit.USD,
    "美元": Unit.USD, "$": Unit.USD, "cny": Unit.CNY, "yuan": Unit.CNY, "rmb": Unit.CNY,
    "元": Unit.CNY, "元人民币": Unit.CNY, "人民币": Unit.CNY, "块": Unit.CNY, "¥": Unit.CNY,
    "eur": Unit.EUR, "euros": Unit.EUR, "euro": Unit.EUR, "欧元": Unit.EUR, "€": Unit.EUR,
    "gbp": Unit.GBP, "pounds": Unit.GBP, "英镑": Unit.GBP, "£": Unit.GBP,
    "jpy": Unit.JPY, "yen": Unit.JPY, "日元": Unit.JPY,
}

# Longest first, so "km/h" is read before "km" and "元人民币" before "元".
SIGNS = "$¥€£"
"""Currency signs, written before the amount."""
PATTERN = "|".join(re.escape(w) for w in sorted(
    (w for w in _WORDS if w not in SIGNS), key=len, reverse=True))


def unit_of(word: str) -> Unit:
    return _WORDS.get(" ".join(word.lower().split()), Unit.NONE)


_KMH_PER_MS = Decimal("3.6")
_KM_PER_MILE = Decimal("1.609344")
_M_PER_FOOT = Decimal("0.3048")
_Conversion = Callable[[Decimal], Decimal]
_TO: dict[tuple[Unit, Unit], _Conversion] = {
    (Unit.CELSIUS, Unit.FAHRENHEIT): lambda v: v * 9 / 5 + 32,
    (Unit.FAHRENHEIT, Unit.CELSIUS): lambda v: (v - 32) * 5 / 9,
    (Unit.CELSIUS, Unit.KELVIN): lambda v: v + Decimal("273.15"),
    (Unit.KELVIN, Unit.CELSIUS): lambda v: v - Decimal("273.15"),
    (Unit.FAHRENHEIT, Unit.KELVIN): lambda v: (v - 32) * 5 / 9 + Decimal("273.15"),
    (Unit.KELVIN, Unit.FAHRENHEIT): lambda v: (v - Decimal("273.15")) * 9 / 5 + 32,
    (Unit.KMH, Unit.MS): lambda v: v / _KMH_PER_MS,
    (Unit.MS, Unit.KMH): lambda v: v * _KMH_PER_MS,
    (Unit.KMH, Unit.MPH): lambda v: v / _KM_PER_MILE,
    (Unit.MPH, Unit.KMH): lambda v: v * _KM_PER_MILE,
    (Unit.MS, Unit.MPH): lambda v: v * _KMH_PER_MS / _KM_PER_MILE,
    (Unit.MPH, Unit.MS): lambda v: v * _KM_PER_MILE / _KMH_PER_MS,
    (Unit.KM, Unit.MILE): lambda v: v / _KM_PER_MILE,
    (Unit.MILE, Unit.KM): lambda v: v * _KM_PER_MILE,
    (Unit.M, Unit.KM): lambda v: v / 1000,
    (Unit.KM, Unit.M): lambda v: v * 1000,
    (Unit.M, Unit.FOOT): lambda v: v / _M_PER_FOOT,
    (Unit.FOOT, Unit.M): lambda v: v * _M_PER_FOOT,
    (Unit.HOUR, Unit.MINUTE): lambda v: v * 60,
    (Unit.MINUTE, Unit.HOUR): lambda v: v / 60,
    (Unit.PERCENT, Unit.NONE): lambda v: v / 100,
    (Unit.NONE, Unit.PERCENT): lambda v: v * 100,
}


def conversions(value: Decimal, unit: Unit) -> list[tuple[Unit, Decimal]]:
    """`value` in `unit` converted to each other unit of its kind."""
    return [(to, convert(value)) for (frm, to), convert in _TO.items() if frm == unit]
