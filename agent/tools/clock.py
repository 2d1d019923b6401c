"""get_time: the current date, time and weekday in a time zone, city or country."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from pydantic import BaseModel, Field

from agent.tool import Tool, ToolError
from agent.tools.args import QuestionLang, lang_of
from agent.tools.places import split_places
from agent.words import say

# Places people name, in Chinese and English, and the zone they mean. Countries with
# several zones get their capital's (or main population centre's).
_PLACES: dict[str, tuple[str, ...]] = {
    "Asia/Shanghai": ("中国", "北京", "上海", "广州", "深圳", "杭州", "南京", "成都", "重庆",
                      "武汉", "西安", "天津", "苏州", "china", "beijing", "peking", "shanghai",
                      "guangzhou", "shenzhen", "hangzhou", "nanjing", "chengdu", "chongqing",
                      "wuhan", "xian", "xi'an", "tianjin", "suzhou"),
    "Asia/Hong_Kong": ("香港", "hong kong", "hongkong"),
    "Asia/Macau": ("澳门", "macau", "macao"),
    "Asia/Taipei": ("台北", "台湾", "taipei", "taiwan"),
    "Asia/Tokyo": ("日本", "东京", "大阪", "京都", "japan", "tokyo", "osaka", "kyoto"),
    "Asia/Seoul": ("韩国", "首尔", "korea", "south korea", "seoul"),
    "Asia/Singapore": ("新加坡", "singapore"),
    "Asia/Bangkok": ("泰国", "曼谷", "thailand", "bangkok"),
    "Asia/Kuala_Lumpur": ("马来西亚", "吉隆坡", "malaysia", "kuala lumpur"),
    "Asia/Jakarta": ("印度尼西亚", "印尼", "雅加达", "indonesia", "jakarta"),
    "Asia/Manila": ("菲律宾", "马尼拉", "philippines", "manila"),
    "Asia/Ho_Chi_Minh": ("越南", "河内", "胡志明市", "vietnam", "hanoi", "ho chi minh city"),
    "Asia/Kolkata": ("印度", "新德里", "孟买", "india", "new delhi", "delhi", "mumbai"),
    "Asia/Dubai": ("阿联酋", "迪拜", "uae", "dubai"),
    "Europe/Moscow": ("俄罗斯", "莫斯科", "russia", "moscow"),
    "Europe/Istanbul": ("土耳其", "伊斯坦布尔", "turkey", "istanbul"),
    "Europe/London": ("英国", "伦敦", "uk", "united kingdom", "britain", "england", "london"),
    "Europe/Paris": ("法国", "巴黎", "france", "paris"),
    "Europe/Berlin": ("德国", "柏林", "germany", "berlin"),
    "Europe/Rome": ("意大利", "罗马", "italy", "rome"),
    "Europe/Madrid": ("西班牙", "马德里", "spain", "madrid"),
    "Europe/Amsterdam": ("荷兰", "阿姆斯特丹", "netherlands", "amsterdam"),
    "Africa/Cairo": ("埃及", "开罗", "egypt", "cairo"),
    "Africa/Johannesburg": ("南非", "约翰内斯堡", "south africa", "johannesburg"),
    "America/New_York": ("美国", "纽约", "华盛顿", "波士顿", "usa", "us", "united states",
                         "america", "new york", "washington", "boston"),
    "America/Chicago": ("芝加哥", "chicago"),
    "America/Los_Angeles": ("洛杉矶", "旧金山", "西雅图", "硅谷", "los angeles",
                            "san francisco", "seattle", "silicon valley"),
    "America/Toronto": ("加拿大", "多伦多", "canada", "toronto"),
    "America/Vancouver": ("温哥华", "vancouver"),
    "America/Mexico_City": ("墨西哥", "墨西哥城", "mexico", "mexico city"),
    "America/Sao_Paulo": ("巴西", "圣保罗", "brazil", "sao paulo", "são paulo"),
    "Australia/Sydney": ("澳大利亚", "澳洲", "悉尼", "australia", "sydney"),
    "Australia/Melbourne": ("墨尔本", "melbourne"),
    "Pacific/Auckland": ("新西兰", "奥克兰", "new zealand", "auckland"),
    "UTC": ("utc", "gmt", "协调世界时", "格林尼治时间"),
}
_BY_PLACE = {place: zone for zone, places in _PLACES.items() for place in places}
_OFFSET = re.compile(r"^(?:utc|gmt)\s*([+-])\s*(\d{1,2})(?::?(\d{2}))?$")
_SUFFIXES = ("市", "省", "时间", "时区", " time", " timezone")

@cache
def _zones_by_lower() -> dict[str, str]:
    """IANA names by lower case, and by their last part with spaces ('new york')."""
    names: dict[str, str] = {}
    for zone in sorted(available_timezones()):
        names.setdefault(zone.rsplit("/", 1)[-1].replace("_", " ").lower(), zone)
    for zone in available_timezones():
        names[zone.lower()] = zone
    return names


def find_zone(name: str) -> tuple[tzinfo, str] | None:
    """The zone a name means and its label (an IANA name or a UTC offset), or None."""
    key = " ".join(name.strip().lower().split())
    for suffix in _SUFFIXES:
        if key.endswith(suffix) and len(key) > len(suffix):
            key = key[: -len(suffix)].strip()
            break
    zone = _BY_PLACE.get(key) or _zones_by_lower().get(key)
    if zone:
        try:
            return ZoneInfo(zone), zone
        except ZoneInfoNotFoundError:
            return None
    if match := _OFFSET.match(key):
        sign, hours, minutes = match.groups()
        delta = timedelta(hours=int(hours), minutes=int(minutes or 0))
        if delta <= timedelta(hours=14):
            label = f"UTC{sign}{int(hours):02d}:{int(minutes or 0):02d}"
            return timezone(-delta if sign == "-" else delta), label
    return None


def _offset(moment: datetime) -> str:
    seconds = int(moment.utcoffset().total_seconds()) if moment.utcoffset() else 0
    sign = "-" if seconds < 0 else "+"
    hours, minutes = divmod(abs(seconds) // 60, 60)
    return f"UTC{sign}{hours:02d}:{minutes:02d}"


def _hours(seconds: int) -> str:
    """A span of whole seconds in hours as a person writes it: 8, 5.5, 5.75."""
    return f"{seconds / 3600:.2f}".rstrip("0").rstrip(".")


def _places(asked: str) -> list[str]:
    """The places of one input: itself when it is one name ('New York', 'UTC+8'), else its
    parts ('北京, 伦敦')."""
    if find_zone(asked) is not None:
        return [asked]
    return split_places(asked, commas=True) or [asked]


class GetTime(Tool):
    name = "get_time"
    description = (
        "Get the current date, time and weekday in a time zone, city or country. Use it "
        "for any question about today's date, the time now, or the day of the week. For "
        "the time difference between places, give them in one input, separated by commas "
        "('Beijing, London'): it returns each clock and the hours between them."
    )

    class Args(BaseModel):
        timezone: str = Field(
            default="",
            description="An IANA time zone (e.g. 'Europe/London'), a city or country name "
                        "in Chinese or English (e.g. '北京', 'Tokyo'), or 'UTC+8'. "
                        "Leave empty for the class's own time zone.",
            max_length=100,
        )
        lang: QuestionLang = None

    def __init__(self, default_zone: str,
                 clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self.default_zone = default_zone
        self.clock = clock
        """Now, as an aware datetime (tests pass a fixed one)."""

    async def run(self, args: Args) -> str:
        lang = lang_of(args.lang, args.timezone)
        places = _places(args.timezone.strip() or self.default_zone)
        instant = self.clock()
        clocks: list[tuple[str, datetime]] = []
        lines: list[str] = []
        for asked in places:
            found = find_zone(asked)
            if found is None:
                raise ToolError(say(lang, "clock_unknown_zone", asked=asked))
            zone, label = found
            now = instant.astimezone(zone)
            same = asked.lower() == label.lower()
            where = label if same else say(lang, "clock_where", asked=asked, label=label)
            clocks.append((asked, now))
            lines.append(say(lang, "clock_now", where=where, now=now, offset=_offset(now),
                             weekday=say(lang, f"weekday_{now.weekday()}")))
        first, first_now = clocks[0]
        for other, other_now in clocks[1:]:
            lines.append(_difference(lang, first, first_now, other, other_now))
        return "\n".join(lines)


def _difference(lang: str, place: str, now: datetime, other: str, other_now: datetime) -> str:
    """How far `place`'s clock is ahead of or behind `other`'s, at the same instant."""
    ahead = int(now.utcoffset().total_seconds() - other_now.utcoffset().total_seconds())
    if ahead == 0:
        return say(lang, "clock_same", place=place, other=other)
    key = "clock_ahead" if ahead > 0 else "clock_behind"
    n = _hours(abs(ahead))
    hours = say(lang, "clock_hour" if n == "1" else "clock_hours", n=n)
    return say(lang, key, place=place, other=other, hours=hours)
