"""get_weather: Open-Meteo geocoding, then its forecast: now and today, for the place found,
or for each of several places in one input ('Berlin, Paris'), which it then compares.

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
from agent.tools.places import MAX_PLACES, split_places
from agent.tools.ttl_cache import TtlCache
from agent.tools.upstream import get_json
from agent.words import known, say
from wire.tools_client import HttpClient

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
        "and chance of rain. Use it for any question about weather right now or today. "
        "To compare places, give them in one input, separated by commas ('Berlin, Paris'): "
        "it returns each one's weather and which is colder."
    )

    class Args(BaseModel):
        city: str = Field(
            description="The city or place, as the user named it, e.g. '杭州', 'Berlin', "
                        "'Paris, Texas' (add region or country if the user did), or several "
                        "places: 'Berlin, Paris'.",
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
        places: list[dict[str, Any]] = []
        for text in split_places(args.city.strip(), commas=False):  # a comma: see below
            if len(places) < MAX_PLACES:
                places.extend(await self._place_or_places(text, lang))
        places = places[:MAX_PLACES]
        found = [(place, await self._forecast(place, lang)) for place in places]
        reports = [report(place, data, lang) for place, data in found]
        if len(found) > 1 and (order := coldest_first(found, lang)):
            reports.insert(0, order)  # first: a board shows the top of a long observation
        return "\n\n".join(reports)

    async def _forecast(self, place: dict[str, Any], lang: str) -> dict[str, Any]:
        data = await get_json(self.http, self.forecast_url, {
            "latitude": place["latitude"], "longitude": place["longitude"],
            "current": CURRENT, "daily": DAILY, "timezone": "auto", "forecast_days": 1,
        }, service=SERVICE, lang=lang)
        return data if isinstance(data, dict) else {}

    async def _place(self, city: str, lang: str) -> dict[str, Any]:
        return await self.places.get_or_fetch((city, lang), lambda: self._find(city, lang))

    async def _place_or_places(self, text: str, lang: str) -> list[dict[str, Any]]:
        """'Paris, Texas' is one place, 'Berlin, Paris' two: when the first name has no
        match in the comma's region and every part is a place of its own, each is one."""
        first = await self._place(text.strip(), lang)
        names = [name.strip() for name in text.split(",") if name.strip()]
        if len(names) < 2 or _lies_in(first, names[1]):
            return [first]
        try:  # `first` is the first name's best match: its region matched none
            return [first, *[await self._place(name, lang) for name in names[1:MAX_PLACES]]]
        except PlaceNotFound:
            return [first]

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
            places = [p for p in places if _lies_in(p, region)] or places
        if not places:
            raise PlaceNotFound(say(lang, "weather_no_place", city=city))
        return places[0]


class PlaceNotFound(ToolError):
    """The geocoder knows no place by that name."""


def _lies_in(place: dict[str, Any], region: str) -> bool:
    """Whether the geocoder places `place` in `region` (a state, county or country)."""
    wanted = region.strip().lower()
    return bool(wanted) and any(wanted in str(place.get(key, "")).lower()
                                for key in ("admin1", "admin2", "country", "country_code"))


def coldest_first(found: list[tuple[dict[str, Any], dict[str, Any]]], lang: str) -> str:
    """One line comparing the places' temperatures now: of two, which is colder and which
    warmer; of more, coldest to warmest. A small model otherwise compares two figures
    wrongly ("Paris is colder" of 21.4 against 2.3 °C). Empty when fewer than two
    temperatures came."""
    temps: list[tuple[float, str, str]] = []
    short = [str(place.get("name") or place_name(place)) for place, _ in found]
    for (place, data), name in zip(found, short, strict=True):
        current = _section(data, "current")
        value = _number(current, "temperature_2m")
        if value is not None:
            if short.count(name) > 1:  # Paris and Paris, Texas
                name = place_name(place)
            temps.append((value, name, _shown(current, _section(data, "current_units"),
                                              "temperature_2m", "°C")))
    if len(temps) < 2:
        return ""
    temps.sort(key=lambda t: t[0])
    listing = say(lang, "list_sep").join(f"{name} {shown}" for _, name, shown in temps)
    if temps[0][0] == temps[-1][0]:
        return say(lang, "weather_same", places=listing)
    (_, cold, cold_t), (_, warm, warm_t) = temps[0], temps[-1]
    if len(temps) == 2:  # both ways round, for "which is colder" and "which is warmer"
        return say(lang, "weather_colder_warmer", cold=cold, cold_t=cold_t, warm=warm,
                   warm_t=warm_t)
    return say(lang, "weather_coldest_first", places=listing, coldest=cold, warmest=warm)


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
    current, units = _section(data, "current"), _section(data, "current_units")
    daily, daily_units = _today(data), _section(data, "daily_units")
    temp = _shown(current, units, "temperature_2m", "°C")
    feels = _shown(current, units, "apparent_temperature", "°C")
    humidity = _shown(current, units, "relative_humidity_2m", "%")
    wind = _shown(current, units, "wind_speed_10m", "km/h")
    code = current.get("weather_code")
    sky = describe(code, lang) if isinstance(code, int) else ""
    high = _shown(daily, daily_units, "temperature_2m_max", "°C")
    low = _shown(daily, daily_units, "temperature_2m_min", "°C")
    rain = _shown(daily, daily_units, "precipitation_probability_max", "%")
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


def _section(data: dict[str, Any], key: str) -> dict[str, Any]:
    """One object of the service's reply ('current', 'current_units'), {} if it is not one."""
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def _number(source: dict[str, Any], key: str) -> float | None:
    value = source.get(key)
    return None if isinstance(value, bool) or not isinstance(value, int | float) else value


def _shown(source: dict[str, Any], units: dict[str, Any], key: str, unit: str) -> str:
    """A value with the unit the service named (else `unit`): '2.3 °C', '35%'; '' if none."""
    value = _number(source, key)
    if value is None:
        return ""
    shown = units.get(key, unit) if isinstance(units.get(key, unit), str) else unit
    space = "" if shown in ("%", "") else " "
    return f"{value:g}{space}{shown}"


def _today(data: dict[str, Any]) -> dict[str, Any]:
    """The first day of the `daily` arrays, as one flat dict."""
    daily = data.get("daily")
    if not isinstance(daily, dict):
        return {}
    return {key: values[0] for key, values in daily.items()
            if isinstance(values, list) and values}


def _join(sep: str, parts: list[str]) -> str:
    return sep.join(part for part in parts if part)
