"""The figures of a text, read as what they mean: a number (with its unit and the precision
it is written to), a date (year, month, day, as far as written) or a time of day. English
and Chinese, in Arabic or Chinese numerals (三点五度, 百分之八十, 两千零二十四年, 2487万).

In an answer, some digits are no figures and are not read: code (fenced or inline), links,
list and heading numbers ("10. …", "[11] …"), references to the answer's own parts ("see
point 11", 第三条), ordinals, identifiers and versions (GPT-4, Qwen2.5, Python 3.11, ISO
8601, RFC 9110), and, unless asked for (`singles`), single digits without a unit ("2
cities"): too common to check against sources, but two answers' 4 and 5 do differ. Every
regex reads model text: each is linear (possessive quantifiers, no nested repeats).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from functools import lru_cache

from agent.grounding.units import PATTERN as UNITS
from agent.grounding.units import SIGNS, Unit, unit_of
from agent.grounding.zh_numbers import CHARS as ZH
from agent.grounding.zh_numbers import zh_number


class Kind(StrEnum):
    NUMBER = "number"
    DATE = "date"
    TIME = "time"


@dataclass(frozen=True, slots=True)
class Figure:
    start: int
    end: int
    text: str
    kind: Kind
    value: Decimal = Decimal(0)
    exponent: int = 0
    """The power of ten of its last written digit: it may round anything within half of it."""
    unit: Unit = Unit.NONE
    date: tuple[int | None, int | None, int | None] = (None, None, None)
    """(year, month, day), None for a part not written."""
    time: tuple[int, int, bool] = (0, 0, False)
    """(hour, minute, whether AM/PM or 上午/下午 says which half of the day)."""

    @property
    def digits(self) -> int:
        """Significant digits written."""
        return max(self.value.adjusted() - self.exponent + 1, 1) if self.value else 1


_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december")
_MONTH = ("(?:" + "|".join(sorted({m for n in _MONTHS for m in (n, n[:3])} | {"sept"},
                                  key=len, reverse=True)) + r")\b\.?+")
_ZD = "零〇一二两三四五六七八九十"
_ZMD = rf"(?:\d{{1,2}}|[{_ZD}]{{1,3}})"
_FIRST = rf"[\dA-Za-z{ZH}上下晚凌中早傍负−\-{re.escape(SIGNS)}]"
"""What a figure can start with: looked ahead for first, the pattern skips other text fast."""
_FIGURE = re.compile(
    rf"(?i)(?={_FIRST})(?<![A-Za-z0-9_.\-/])(?:"
    rf"(?P<iso>(?P<iy>\d{{4}})[-/](?P<im>\d{{1,2}})[-/](?P<id>\d{{1,2}}))(?![\d:])"
    rf"|(?P<my>(?P<mym>{_MONTH})[ \t]++(?P<myy>\d{{4}}))(?!\d)"
    rf"|(?P<md>(?P<mdm>{_MONTH})[ \t]++(?P<mdd>\d{{1,2}})(?:st|nd|rd|th)?+"
    r"(?:,?+[ \t]++(?P<mdy>\d{4}))?+)(?![\d:])"
    rf"|(?P<dm>(?P<dmd>\d{{1,2}})(?:st|nd|rd|th)?+[ \t]++(?:of[ \t]++)?+(?P<dmm>{_MONTH})"
    r"(?:,?+[ \t]++(?P<dmy>\d{4}))?+)"
    rf"|(?P<zdate>(?P<zy>\d{{4}}|[{_ZD}千百]{{2,8}})[ \t]?+年"
    rf"(?:(?P<zm>{_ZMD})月(?:(?P<zd>{_ZMD})[日号])?+)?+"
    rf"|(?P<zm2>{_ZMD})月(?P<zd2>{_ZMD})[日号])"
    r"|(?P<clock>(?P<h>\d{1,2}):(?P<mi>\d{2})(?::\d{2})?+(?![\d:])"
    r"(?:[ \t]?+(?P<ap>[ap])\.?+m\b\.?+)?+)"
    r"|(?P<hour>(?P<hh>\d{1,2})[ \t]?+(?P<hap>[ap])\.?+m\b\.?+)"
    rf"|(?P<zclock>(?P<zap>上午|下午|晚上|凌晨|中午|早上|傍晚)?+(?P<zh>\d{{1,2}}|[{_ZD}]{{1,3}})点"
    rf"(?:(?P<zhalf>半)|(?P<zmin>\d{{1,2}}|[{_ZD}]{{1,3}})分|(?![{_ZD}\d]))"
    r"(?(zap)|(?<=[半分])))"
    rf"|(?P<zn>(?P<zneg>零下|负)?+(?P<zpct>百分之)?+(?P<zv>[{ZH}]++(?:点[{_ZD}]++)?+)"
    rf"(?P<zu>{UNITS}|人|岁)?+)"
    rf"|(?P<n>(?P<neg>[-−]|零下|负)?+(?P<sign>[{re.escape(SIGNS)}])?+"
    r"(?P<num>\d{1,3}(?:,\d{3})++(?:\.\d++)?+|\d++(?:\.\d++)?+)(?![\d,.]\d|/\d)"
    r"(?:[ \t]?+(?P<big>万|亿|million\b|billion\b|thousand\b))?+"
    rf"(?:[ \t]?+(?P<unit>{UNITS})(?![A-Za-z]))?+)"
    r")")
MAX_READ = 5_000
"""Numbers, dates and times read of one text: past them a text is no source a class would
check figure by figure, and reading stays cheap however long a hostile text is."""
_COUNTS = frozenset({Unit.HOUR, Unit.MINUTE, Unit.DAY, Unit.YEAR})
_BIG = {"万": 4, "亿": 8, "thousand": 3, "million": 6, "billion": 9}
_CODE_FENCE = re.compile(r"^[ \t]*+(?:```|~~~)", re.M)
_BARE_URL = r"[^\s<>()\[\]]*+(?:\([^\s<>()\[\]]*+\)[^\s<>()\[\]]*+)*+"
_LINK_TARGET = r"[^()\s]++(?:\([^()\s]*+\)[^()\s]*+)*+"
"""A URL's characters, balanced parentheses included (Wikipedia's), as the chat's renderer
reads a Markdown link's target."""
_HIDDEN = re.compile(
    r"`[^`\n]*+`"  # inline code
    rf"|https?://{_BARE_URL}"  # links
    rf"|\]\([ \t]*+{_LINK_TARGET}"  # a Markdown link's target, any scheme
    r"|^[ \t]*+(?:#{1,6}[ \t]*+)?+(?:>[ \t]*+)?+(?:\[\d{1,4}\]|\d{1,4}[.)、](?=[ \t]))"  # labels
    r"|(?i:\b(?:point|step|item|part|section|line|option|no\.|#)[ \t]*+\d++)"  # own parts
    r"|第[\d" + ZH + r"]++"  # Chinese ordinals
    r"|(?i:\b(?:python|iso|rfc|pep|version|http|utf|ipv|gpt|qwen|llama|windows|macos|ios|"
    r"android|java|node|es|ecma|ieee|cve|ubuntu|debian|chrome|firefox|v)[ \t\-]*+\d[\d.]*+)"
    r"|(?<![\d.])\d++(?:\.\d++){2,}+",  # 3.11.2: a version
    re.M)
_WEEKDAY = re.compile(r"(?:星期|礼拜)[一二三四五六日天]|周[一二三四五六日](?![天日个年次])")
"""A weekday's name in any text: 星期五 is Friday, no 5 (a clock's observation names its
weekday, and an answer's 5 hours must not count as backed by it). 每周五天 keeps its 五."""


@lru_cache(maxsize=64)
def figures(text: str, *, answer: bool = True, singles: bool = False,
            limit: int = MAX_READ) -> tuple[Figure, ...]:
    """The figures of `text`, in order, of its first `limit` numbers, dates and times.
    `answer`: read as an answer (a source's digits are all read: a list number of a tool's
    text may be what the answer quotes). `singles`: an answer's bare single digits count
    too (comparing two answers). Kept for the texts last read: a run reads its question and
    observations again for each check of an answer."""
    masked = _mask(text) if answer else _blank_all(text, _WEEKDAY)
    out = []
    for match in itertools.islice(_FIGURE.finditer(masked), limit):
        figure = _read(match, text)
        if figure is None:
            continue
        if answer and not _counts(figure, match, singles):
            continue
        out.append(figure)
    return tuple(out)


def _mask(text: str) -> str:
    """`text` with what holds no figures blanked out (same length, so offsets hold)."""
    chars = list(text)
    fences = [m.start() for m in _CODE_FENCE.finditer(text)]
    for i in range(0, len(fences), 2):  # an unclosed fence runs to the end, as Markdown's
        end = text.find("\n", fences[i + 1]) if i + 1 < len(fences) else len(text)
        _blank(chars, fences[i], len(text) if end < 0 else end)
    for pattern in (_HIDDEN, _WEEKDAY):
        for match in pattern.finditer(text):
            _blank(chars, match.start(), match.end())
    return "".join(chars)


def _blank_all(text: str, pattern: re.Pattern[str]) -> str:
    """`text` with every match of `pattern` blanked out (same length)."""
    return pattern.sub(lambda m: " " * len(m.group()), text)


def _blank(chars: list[str], start: int, end: int) -> None:
    for i in range(start, end):
        if chars[i] != "\n":
            chars[i] = " "


def _counts(figure: Figure, match: re.Match[str], singles: bool) -> bool:
    """Whether an answer's figure is worth checking: not a bare single digit (unless
    `singles`) or a Chinese numeral without a unit (一样, 十分), nor a number glued to
    letters (2nd, 3x)."""
    if figure.kind != Kind.NUMBER:
        return True
    if match.lastgroup == "zn":  # 一天, 两个小时: idioms as often as counts
        small_count = figure.unit in _COUNTS and abs(figure.value) < 10
        return bool(match["zneg"] or match["zpct"] or (match["zu"] and not small_count))
    tail = match.string[match.end():match.end() + 1]
    if tail.isascii() and tail.isalpha():
        return False
    return singles or figure.unit != Unit.NONE or figure.digits > 1 or figure.exponent < 0


def _read(m: re.Match[str], text: str) -> Figure | None:
    start, end = m.start(), m.end()
    while end > start and text[end - 1] in " \t":
        end -= 1
    if text[end - 1] == "." and not text[start:end].lower().endswith(".m."):
        end -= 1  # the sentence's full stop
    raw = text[start:end]
    kind = m.lastgroup  # the alternative that matched: its group closes last
    if kind == "n":
        return _number(m, start, end, raw)
    if kind == "iso":
        return _date(start, end, raw, m["iy"], m["im"], m["id"])
    if kind == "my":
        return _date(start, end, raw, m["myy"], _month(m["mym"]), None)
    if kind == "md":
        return _date(start, end, raw, m["mdy"], _month(m["mdm"]), m["mdd"])
    if kind == "dm":
        return _date(start, end, raw, m["dmy"], _month(m["dmm"]), m["dmd"])
    if kind == "zdate":
        return _date(start, end, raw, m["zy"], m["zm"] or m["zm2"], m["zd"] or m["zd2"])
    if kind in ("clock", "hour"):
        hour, minute = int(m["h"] or m["hh"]), int(m["mi"] or 0)
        half = (m["ap"] or m["hap"] or "").lower()
        return _time(start, end, raw, hour, minute, half == "p" if half else None)
    if kind == "zclock":
        hour, minute = _int(m["zh"]), 30 if m["zhalf"] else _int(m["zmin"] or "0")
        pm = None if not m["zap"] else m["zap"] in ("下午", "晚上", "傍晚") or (
            m["zap"] == "中午" and hour < 3)
        return None if hour is None or minute is None else _time(start, end, raw, hour,
                                                                   minute, pm)
    parsed = zh_number(m["zv"])
    if parsed is None:
        return None
    value, exponent = parsed
    unit = Unit.PERCENT if m["zpct"] else unit_of(m["zu"] or "")
    return Figure(start, end, raw, Kind.NUMBER, -value if m["zneg"] else value, exponent, unit)


def _number(m: re.Match[str], start: int, end: int, raw: str) -> Figure:
    number = Decimal(m["num"].replace(",", ""))
    exponent = number.as_tuple().exponent
    assert isinstance(exponent, int)
    if m["big"]:
        scale = _BIG[m["big"].lower()]
        number, exponent = number.scaleb(scale), exponent + scale
    unit = unit_of(m["unit"] or m["sign"] or "")
    return Figure(start, end, raw, Kind.NUMBER, -number if m["neg"] else number, exponent,
                  unit)


def _date(start: int, end: int, raw: str, year: str | None, month: str | int | None,
          day: str | None) -> Figure | None:
    y, mo, d = _int(year), _int(month), _int(day)
    if (mo is not None and not 1 <= mo <= 12) or (d is not None and not 1 <= d <= 31):
        return None
    return Figure(start, end, raw, Kind.DATE, date=(y, mo, d))


def _time(start: int, end: int, raw: str, hour: int, minute: int,
          pm: bool | None) -> Figure | None:
    if hour > 24 or minute > 59:
        return None
    if pm is not None:
        hour = hour % 12 + (12 if pm else 0)
    return Figure(start, end, raw, Kind.TIME, time=(hour, minute, pm is not None))


def _month(name: str) -> int:
    key = name.lower().rstrip(".")[:3]
    return next(i for i, m in enumerate(_MONTHS, 1) if m.startswith(key))


def _int(text: str | int | None) -> int | None:
    if text is None or isinstance(text, int):
        return text
    if text.isdigit():
        return int(text)
    parsed = zh_number(text)
    return None if parsed is None else int(parsed[0])
