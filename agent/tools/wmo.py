"""The WMO weather interpretation codes Open-Meteo reports, in Chinese and English.

English follows the Open-Meteo docs table (tests/wire/open-meteo/wmo_weather_codes.json).
"""

from __future__ import annotations

from agent.lang import pick

WMO_CODES: dict[int, tuple[str, str]] = {
    0: ("晴", "clear sky"),
    1: ("大致晴朗", "mainly clear"),
    2: ("局部多云", "partly cloudy"),
    3: ("阴", "overcast"),
    45: ("雾", "fog"),
    48: ("雾凇", "depositing rime fog"),
    51: ("小毛毛雨", "light drizzle"),
    53: ("中毛毛雨", "moderate drizzle"),
    55: ("大毛毛雨", "dense drizzle"),
    56: ("轻度冻毛毛雨", "light freezing drizzle"),
    57: ("重度冻毛毛雨", "dense freezing drizzle"),
    61: ("小雨", "slight rain"),
    63: ("中雨", "moderate rain"),
    65: ("大雨", "heavy rain"),
    66: ("轻度冻雨", "light freezing rain"),
    67: ("重度冻雨", "heavy freezing rain"),
    71: ("小雪", "slight snow fall"),
    73: ("中雪", "moderate snow fall"),
    75: ("大雪", "heavy snow fall"),
    77: ("米雪", "snow grains"),
    80: ("小阵雨", "slight rain showers"),
    81: ("中阵雨", "moderate rain showers"),
    82: ("强阵雨", "violent rain showers"),
    85: ("小阵雪", "slight snow showers"),
    86: ("大阵雪", "heavy snow showers"),
    95: ("雷暴", "thunderstorm"),
    96: ("雷暴伴小冰雹", "thunderstorm with slight hail"),
    99: ("雷暴伴大冰雹", "thunderstorm with heavy hail"),
}


def describe(code: int, lang: str) -> str:
    """The weather code in words; an unknown code is named as such."""
    zh, en = WMO_CODES.get(code, (f"天气代码 {code}", f"weather code {code}"))
    return pick(lang, zh, en)
