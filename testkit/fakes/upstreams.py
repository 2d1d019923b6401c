"""Fake Open-Meteo, Frankfurter and Wikipedia servers for the tools' tests.

Each answers like the real service: wire samples (tests/wire/) byte for byte where one
exists, replies in the same shape built here where none does (a Chinese place, a second
article), and the service's own error bodies for what it refuses. `fail(path, reply)`
makes one path answer with a scripted error instead (5xx, non-JSON, slow).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote

from testkit.fakes.server import FakeServer, Reply, Request, wire

JSON = {"Content-Type": "application/json; charset=utf-8"}


def sample(name: str, status: int = 200) -> Reply:
    """A wire sample, byte for byte."""
    return Reply(status, wire(name), dict(JSON))


def html_error(status: int = 503) -> Reply:
    """What a proxy or an overloaded server sends: an HTML page, not JSON."""
    return Reply(status, b"<html><body><h1>503 Service Unavailable</h1></body></html>",
                 {"Content-Type": "text/html"})


def not_json() -> Reply:
    """A 200 whose body is not JSON (a captive portal, a broken mirror)."""
    return Reply(200, b"<!doctype html><title>Login</title>", {"Content-Type": "text/html"})


def slow(seconds: float) -> Reply:
    """Headers at once, then the body only after `seconds`."""
    return Reply(200, [(seconds, b"{}")], dict(JSON))


class Upstream(FakeServer):
    """A fake service: `route` answers each request unless `fail` scripted its path.
    `latency`: seconds each request takes, as over the network (benchmarks)."""

    def __init__(self, latency: float = 0.0) -> None:
        super().__init__(self._handle)
        self.failures: dict[str, Reply] = {}
        self.latency = latency

    def fail(self, path: str, reply: Reply) -> Upstream:
        self.failures[path] = reply
        return self

    def paths(self) -> list[str]:
        return [r.path for r in self.requests]

    def _handle(self, request: Request) -> Reply:
        if self.latency:
            self.stopping.wait(self.latency)
        if request.path in self.failures:
            return self.failures[request.path]
        return self.route(request)

    def route(self, request: Request) -> Reply:
        raise NotImplementedError


def _one(request: Request, name: str) -> str:
    return request.query.get(name, [""])[0]


# --- Open-Meteo ------------------------------------------------------------------------

def _place(name: str, lat: float, lon: float, country: str, admin1: str,
           **extra: Any) -> dict[str, Any]:
    return {"name": name, "latitude": lat, "longitude": lon,
            "feature_code": "PPLA", "country_code": extra.pop("country_code", "CN"),
            "timezone": extra.pop("timezone", "Asia/Shanghai"), "country": country,
            "admin1": admin1, **extra}


BEIJING_ZH = _place("北京市", 39.9075, 116.39723, "中国", "北京市")
PARIS_FR = _place("Paris", 48.85341, 2.3488, "France", "Île-de-France",
                  country_code="FR", timezone="Europe/Paris")
PARIS_TX = _place("Paris", 33.66094, -95.55551, "United States", "Texas",
                  country_code="US", timezone="America/Chicago", admin2="Lamar")
OSAKA = _place("Osaka", 34.69374, 135.50218, "Japan", "Osaka",
               country_code="JP", timezone="Asia/Tokyo")
HANGZHOU_ZH = _place("杭州市", 30.29365, 120.16142, "中国", "浙江省")
HANGZHOU = _place("Hangzhou", 30.29365, 120.16142, "China", "Zhejiang")
SHANGHAI_ZH = _place("上海市", 31.22222, 121.45806, "中国", "上海市")
SHANGHAI = _place("Shanghai", 31.22222, 121.45806, "China", "Shanghai")
PLACES: dict[str, list[dict[str, Any]]] = {
    "北京": [BEIJING_ZH], "Paris": [PARIS_FR, PARIS_TX], "Osaka": [OSAKA],
    "杭州": [HANGZHOU_ZH], "杭州市": [HANGZHOU_ZH], "Hangzhou": [HANGZHOU],
    "上海": [SHANGHAI_ZH], "Shanghai": [SHANGHAI],
}

FULL_FORECAST: dict[str, Any] = {
    "latitude": 39.875, "longitude": 116.375, "generationtime_ms": 0.1, "utc_offset_seconds":
    28800, "timezone": "Asia/Shanghai", "timezone_abbreviation": "GMT+8", "elevation": 49.0,
    "current_units": {"time": "iso8601", "interval": "seconds", "temperature_2m": "°C",
                      "apparent_temperature": "°C", "relative_humidity_2m": "%",
                      "wind_speed_10m": "km/h", "weather_code": "wmo code"},
    "current": {"time": "2025-04-11T14:00", "interval": 900, "temperature_2m": 21.4,
                "apparent_temperature": 19.8, "relative_humidity_2m": 35,
                "wind_speed_10m": 12.6, "weather_code": 61},
    "daily_units": {"time": "iso8601", "temperature_2m_max": "°C", "temperature_2m_min": "°C",
                    "precipitation_probability_max": "%"},
    "daily": {"time": ["2025-04-11"], "temperature_2m_max": [24.1],
              "temperature_2m_min": [9.3], "precipitation_probability_max": [70]},
}


class FakeOpenMeteo(Upstream):
    """Geocoding at /v1/search, the forecast at /v1/forecast, on one server."""

    @property
    def geocoding_url(self) -> str:
        return self.url + "/v1/search"

    @property
    def forecast_url(self) -> str:
        return self.url + "/v1/forecast"

    def route(self, request: Request) -> Reply:
        if request.path == "/v1/search":
            return self._search(request)
        if request.path == "/v1/forecast":
            return self._forecast(request)
        return Reply.json({"error": True, "reason": "Not Found"}, 404)

    def _search(self, request: Request) -> Reply:
        if not 1 <= int(_one(request, "count") or 10) <= 100:
            return sample("open-meteo/geocoding_error_400.json", 400)
        name = _one(request, "name")
        if name == "Berlin":
            return sample("open-meteo/geocoding_search_berlin_count1.json")
        if name in PLACES:
            count = int(_one(request, "count") or 10)
            return Reply.json({"results": PLACES[name][:count], "generationtime_ms": 0.9})
        return sample("open-meteo/geocoding_search_no_results.json")

    def _forecast(self, request: Request) -> Reply:
        lat = float(_one(request, "latitude"))
        if not -90 <= lat <= 90:
            return sample("open-meteo/forecast_error_400_latitude.json", 400)
        if round(lat) == 53:  # Berlin
            return sample("open-meteo/forecast_current_berlin.json")
        if round(lat) == 35:  # Osaka: the Japanese sample with a weather code and daily
            return sample("open-meteo/forecast_current_weather_code_with_daily.json")
        return Reply.json(FULL_FORECAST)


# --- Frankfurter -----------------------------------------------------------------------

_USD = json.loads(wire("frankfurter/v1_latest_from_USD_full_trimmed.json"))
_KNOWN = json.loads(wire("frankfurter/v1_currencies.json"))


class FakeFrankfurter(Upstream):
    """Frankfurter v1 at /v1: /latest from the USD sample (cross rates through USD)."""

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    def route(self, request: Request) -> Reply:
        if request.path == "/v1/currencies":
            return sample("frankfurter/v1_currencies.json")
        if request.path != "/v1/latest":
            return sample("frankfurter/v1_error_404_not_found.json", 404)
        source, target = _one(request, "from") or "EUR", _one(request, "to")
        if source not in _KNOWN or (target and target not in _KNOWN):
            return sample("frankfurter/v1_error_404_not_found.json", 404)
        if source == target:
            return sample("frankfurter/v1_error_422_bad_currency_pair.json", 422)
        if (source, target) == ("USD", "CNY"):
            return sample("frankfurter/v1_latest_from_USD_to_CNY.json")
        usd = {"USD": 1.0, **_USD["rates"]}
        if source not in usd or target not in usd:
            return Reply.json({"amount": 1.0, "base": source, "date": _USD["date"], "rates": {}})
        rate = float(f"{usd[target] / usd[source]:.5g}")  # ECB rates have 5 digits
        return Reply.json({"amount": 1.0, "base": source, "date": _USD["date"],
                           "rates": {target: rate}})


# --- Wikipedia -------------------------------------------------------------------------

def _hits(*titles: str) -> dict[str, Any]:
    return {"batchcomplete": "", "query": {"searchinfo": {"totalhits": len(titles)},
                                           "search": [{"ns": 0, "title": t, "pageid": i + 1}
                                                      for i, t in enumerate(titles)]}}


SEARCHES: dict[tuple[str, str], dict[str, Any]] = {
    ("en", "Ayrton Senna"): _hits("Ayrton Senna", "Senna (film)"),
    ("zh", "图灵测试"): _hits("图灵测试"),
    ("en", "Vanished page"): _hits("Vanished page"),
}
SUMMARIES: dict[tuple[str, str], dict[str, Any]] = {
    ("zh", "图灵测试"): {
        "type": "standard", "title": "图灵测试", "description": "测试机器能否表现出智能的方法",
        "extract": "图灵测试是英国计算机科学家艾伦·图灵于1950年提出的思想实验，目的是测试机器能否"
                   "表现出与人等价或无法区分的智能。" * 6,
        "content_urls": {"desktop": {"page": "https://zh.wikipedia.org/wiki/图灵测试"}},
    },
    ("en", "Computing"): {
        "type": "standard", "title": "Computing", "description": "Activity involving computers",
        "extract": "Computing is any goal-oriented activity requiring, benefiting from, or "
                   "creating computing machinery.",
        "content_urls": {"desktop": {"page": "https://en.wikipedia.org/wiki/Computing"}},
    },
}


class FakeWikipedia(Upstream):
    """Every language on one server: /{lang}/w/api.php and /{lang}/api/rest_v1."""

    @property
    def api_url(self) -> str:
        return self.url + "/{lang}/w/api.php"

    @property
    def rest_url(self) -> str:
        return self.url + "/{lang}/api/rest_v1"

    def route(self, request: Request) -> Reply:
        lang, _, rest = request.path.lstrip("/").partition("/")
        if rest == "w/api.php":
            query = _one(request, "srsearch")
            if (lang, query) == ("en", "Computing"):
                return sample("wikipedia/mediawiki_search_computing_srlimit2.json")
            if (lang, query) in SEARCHES:
                return Reply.json(SEARCHES[lang, query])
            return sample("wikipedia/mediawiki_search_no_results.json")
        if rest.startswith("api/rest_v1/page/summary/"):
            title = unquote(rest.rsplit("/", 1)[1]).replace("_", " ")
            if (lang, title) == ("en", "Ayrton Senna"):
                return sample("wikipedia/rest_page_summary_ayrton_senna.json")
            if (lang, title) in SUMMARIES:
                return Reply.json(SUMMARIES[lang, title])
            return sample("wikipedia/rest_page_summary_404.json", 404)
        return Reply.json({"error": {"code": "badvalue", "info": "Unrecognized action."}})
