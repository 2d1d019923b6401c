"""get_weather: Open-Meteo geocoding, then its forecast: now and today, for the place found.

The observation names the place as the geocoder found it (so 'Paris' in Texas shows up
as such) and leaves out any value the service did not send.

A place found is kept for a day (at most PLACES_KEPT of them, the least recently asked
going first), keyed by the exact place text the model passed and the language: a place's
coordinates do not change, and a class asks about its own city again and again, so the
second lookup of the same place asks only for the forecast, which is never kept; lookups
of a new place at the same moment share one request to the geocoder. A place not found, or
a geocoder's error, is not kept: the next lookup asks again (each request costs
the bot CPU).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from agent.tool import Tool, ToolError, UpstreamError
from agent.tools.args import QuestionLang, lang_of
from agent.tools.http import HttpClient, get_json
from agent.tools.ttl_cache import TtlCache
from agent.words import known, say

SERVICE = "Open-Meteo"
CURRENT = "temperature_2m,apparent_temperature,relative_humidity_2m,wind_speed_10m,weather_code"
DAILY = "temperature_2m_max,temperature_2m_min,precipitation_probability_max"
PLACES_KEPT = 500
PLACE_KEPT_S = 24 * 3600.0


class GetWeather(Tool):
    name = "get_weather"
    description = (
        "Get the current weather and today's forecast for a city or place anywhere in the "
        "world: temperature, feels-like, humidity, wind, conditions, today's high and low "
        "and chance of rain. Use it for any question about weather right now or today."
    )

    class Args(BaseModel):
        city: str = Field(
            description="The city or place, as the user named it, e.g. '杭州', 'Berlin', "
                        "'Paris, Texas' (add region or country if the user did).",
            min_length=1, max_length=100,
        )
        lang: QuestionLang = None

    def __init__(self, http: HttpClient, geocoding_url: str, forecast_url: str) -> None:
        self.http = http
        self.geocoding_url = geocoding_url
        self.forecast_url = forecast_url
        self.places: TtlCache[tuple[str, str], dict[str, Any]] = TtlCache(PLACES_KEPT,
                                                                          PLACE_KEPT_S)

    async def run(self, args: Args) -> str:
        lang = lang_of(args.lang, args.city)
        city = args.city.strip()
        place = await self.places.get_or_fetch((city, lang), lambda: self._find(city, lang))
        data = await get_json(self.http, self.forecast_url, {
            "latitude": place["latitude"], "longitude": place["longitude"],
            "current": CURRENT, "daily": DAILY, "timezone": "auto", "forecast_days": 1,
        }, service=SERVICE, lang=lang)
        return report(place, data if isinstance(data, dict) else {}, lang)

    async def _find(self, city: str, lang: str) -> dict[str, Any]:
        """The geocoder's best match; a ', region' part narrows it (Paris, Texas)."""
        name, _, region = (part.strip() for part in city.partition(","))
        data = await get_json(self.http, self.geocoding_url, {
            "name": name or city, "count": 10 if region else 1, "language": lang,
            "format": "json",
        }, service=SERVICE, lang=lang)
        results = data.get("results") if isinstance(data, dict) else None
        places = [p for p in results or [] if isinstance(p, dict)
                  and isinstance(p.get("latitude"), int | float)
                  and isinstance(p.get("longitude"), int | float)]
        if region:
            wanted = region.lower()
            places = [p for p in places if any(
                wanted in str(p.get(key, "")).lower()
                for key in ("admin1", "admin2", "country", "country_code"))] or places
        if not places:
            raise ToolError(say(lang, "weather_no_place", city=city))
        return places[0]


def describe(code: int, lang: str) -> str:
    """A WMO weather code in words; an unknown code is named as such."""
    key = f"wmo_{code}"
    return say(lang, key) if known(key) else say(lang, "wmo_unknown", code=code)


def place_name(place: dict[str, Any]) -> str:
    """'Paris, Texas, United States': the name, its region and country, without repeats."""
    parts: list[str] = []
    for key in ("name", "admin1", "country"):
        value = place.get(key)
        if isinstance(value, str) and value and value not in parts:
            parts.append(value)
    return ", ".join(parts)


def report(place: dict[str, Any], data: dict[str, Any], lang: str) -> str:
    """A few lines in `lang`: the place, the weather now, and today's forecast."""
    current = data.get("current") if isinstance(data.get("current"), dict) else {}
    units = data.get("current_units") if isinstance(data.get("current_units"), dict) else {}
    daily = _today(data)
    daily_units = data.get("daily_units") if isinstance(data.get("daily_units"), dict) else {}

    def val(source: dict[str, Any], src_units: dict[str, Any], key: str, unit: str) -> str:
        value = source.get(key)
        if isinstance(value, bool) or not isinstance(value, int | float):
            return ""
        shown = src_units.get(key, unit) if isinstance(src_units.get(key, unit), str) else unit
        space = "" if shown in ("%", "") else " "
        return f"{value:g}{space}{shown}"

    temp = val(current, units, "temperature_2m", "°C")
    feels = val(current, units, "apparent_temperature", "°C")
    humidity = val(current, units, "relative_humidity_2m", "%")
    wind = val(current, units, "wind_speed_10m", "km/h")
    code = current.get("weather_code")
    sky = describe(code, lang) if isinstance(code, int) else ""
    high = val(daily, daily_units, "temperature_2m_max", "°C")
    low = val(daily, daily_units, "temperature_2m_min", "°C")
    rain = val(daily, daily_units, "precipitation_probability_max", "%")
    if not (temp or sky or high or low):
        raise UpstreamError(say(lang, "weather_no_data", service=SERVICE))

    when = current.get("time") if isinstance(current.get("time"), str) else ""
    name = place_name(place)
    def part(key: str, value: str) -> str:
        return say(lang, key, value=value) if value else ""

    sep = say(lang, "weather_sep")
    now = _join(sep, [part("weather_now", temp), part("weather_feels", feels), sky,
                      part("weather_humidity", humidity), part("weather_wind", wind)])
    today = _join(sep, [part("weather_high", high), part("weather_low", low),
                        part("weather_rain", rain)])
    head = say(lang, "weather_local_time", name=name, when=when.replace("T", " ")) if when \
        else name
    return _join("\n", [say(lang, "weather_head", head=head), now, part("weather_today", today)])


def _today(data: dict[str, Any]) -> dict[str, Any]:
    """The first day of the `daily` arrays, as one flat dict."""
    daily = data.get("daily")
    if not isinstance(daily, dict):
        return {}
    return {key: values[0] for key, values in daily.items()
            if isinstance(values, list) and values}


def _join(sep: str, parts: list[str]) -> str:
    return sep.join(part for part in parts if part)
