"""get_weather against a fake Open-Meteo replaying the wire samples, and its errors."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import aiohttp
import pytest

from agent import AgentSettings, ModelClient
from agent.events import ObservationFailure
from agent.tool import ToolError
from agent.tools import Toolbox
from agent.tools.ttl_cache import TtlCache
from agent.tools.weather import GetWeather
from testkit.agentkit import agent_settings
from testkit.fakes.model import FakeModel
from testkit.fakes.server import Reply
from testkit.fakes.tools import observe, open_toolbox, run_tool
from testkit.fakes.upstreams import FakeOpenMeteo, html_error, not_json, sample, slow

QUIET_SPELL_S = 5.5
"""Longer than the model's and Telegram's keep-alive (wire/limits.py KEEPALIVE_S)."""


@pytest.fixture
def meteo() -> Iterator[FakeOpenMeteo]:
    with FakeOpenMeteo() as fake:
        yield fake


@pytest.fixture
def tool_settings(meteo: FakeOpenMeteo) -> dict[str, Any]:
    return {"agent_tools": "get_weather", "open_meteo_geocoding_url": meteo.geocoding_url,
            "open_meteo_forecast_url": meteo.forecast_url, "tool_http_timeout_s": 0.5}


async def test_berlin_from_the_wire_samples_shows_what_the_service_sent(
        box: Toolbox, meteo: FakeOpenMeteo) -> None:
    text = await run_tool(box, "get_weather", city="Berlin")
    assert text == ("Berlin, Land Berlin, Germany (local time 2024-11-23 18:15):\n"
                    "now 2.3 °C, wind 10.7 km/h")
    search, forecast = meteo.requests
    assert search.query["name"] == ["Berlin"] and search.query["language"] == ["en"]
    assert forecast.query["latitude"] == ["52.52437"]
    assert forecast.query["longitude"] == ["13.41053"]
    assert "weather_code" in forecast.query["current"][0]
    assert forecast.query["timezone"] == ["auto"]


async def test_lookups_go_through_the_proxy_the_environment_names(
        meteo: FakeOpenMeteo, monkeypatch: pytest.MonkeyPatch) -> None:
    """Behind a school's proxy (HTTP_PROXY / HTTPS_PROXY) the tools ask through it: here the
    fake service is the proxy, and the service's own host does not exist."""
    monkeypatch.setenv("HTTP_PROXY", meteo.url)
    monkeypatch.setenv("NO_PROXY", "")
    settings = agent_settings("http://127.0.0.1:9", agent_tools="get_weather",
                              open_meteo_geocoding_url="http://open-meteo.invalid/v1/search",
                              open_meteo_forecast_url="http://open-meteo.invalid/v1/forecast")
    async with open_toolbox(settings) as box:
        text = await run_tool(box, "get_weather", city="Berlin")
    assert text.startswith("Berlin, Land Berlin, Germany (local time 2024-11-23 18:15)")
    assert [r.headers["host"] for r in meteo.requests] == ["open-meteo.invalid"] * 2


async def test_weather_code_and_today_from_the_daily_sample(box: Toolbox) -> None:
    text = await run_tool(box, "get_weather", city="Osaka")
    assert text == ("Osaka, Japan (local time 2026-09-20 12:00):\n"
                    "now 27.3 °C, overcast\n"
                    "today: high 27.4 °C, low 22.4 °C, chance of rain 55%")


async def test_chinese_question_gets_chinese_words_and_geocoding(
        box: Toolbox, meteo: FakeOpenMeteo) -> None:
    text = await run_tool(box, "get_weather", city="北京")
    assert text == ("北京市, 中国（当地时间 2025-04-11 14:00）：\n"
                    "现在 21.4 °C，体感 19.8 °C，小雨，湿度 35%，风速 12.6 km/h\n"
                    "今天：最高 24.1 °C，最低 9.3 °C，降水概率 70%")
    assert meteo.requests[0].query["language"] == ["zh"]


async def test_lang_argument_wins_over_the_city_text(box: Toolbox) -> None:
    text = await run_tool(box, "get_weather", city="Osaka", lang="zh")
    assert "现在 27.3 °C，阴" in text and "降水概率 55%" in text


async def test_the_place_is_named_as_found_and_a_region_narrows_it(box: Toolbox) -> None:
    assert (await run_tool(box, "get_weather", city="Paris")).startswith(
        "Paris, Île-de-France, France")
    assert (await run_tool(box, "get_weather", city="Paris, Texas")).startswith(
        "Paris, Texas, United States")


async def test_several_places_give_each_weather_and_which_is_colder(box: Toolbox) -> None:
    for asked in ("Berlin, Paris", "Berlin and Paris", "Berlin; Paris"):
        text = await run_tool(box, "get_weather", city=asked)
        order, berlin, paris = text.split("\n\n")
        assert berlin.startswith("Berlin, Land Berlin, Germany") and "now 2.3 °C" in berlin
        assert paris.startswith("Paris, Île-de-France, France") and "now 21.4 °C" in paris
        assert order == ("Now Berlin (2.3 °C) is colder than Paris (21.4 °C), and Paris is "
                         "warmer than Berlin.")
    text = await run_tool(box, "get_weather", city="Paris, Berlin, Osaka", lang="zh")
    assert text.startswith("现在气温从低到高：Berlin 2.3 °C、Paris 21.4 °C、Osaka 27.3 °C。"
                         "最冷的是Berlin，最暖的是Osaka。")
    text = await run_tool(box, "get_weather", city="Paris; Paris, Texas", lang="zh")
    assert text.startswith("现在气温相同：Paris, Île-de-France, France 21.4 °C、"
                         "Paris, Texas, United States 21.4 °C。")


async def test_two_places_cost_one_geocoding_and_one_forecast_each(
        box: Toolbox, meteo: FakeOpenMeteo) -> None:
    await run_tool(box, "get_weather", city="Berlin, Paris")
    searched = [r.query["name"][0] for r in meteo.requests if r.path == "/v1/search"]
    assert searched == ["Berlin", "Paris"]
    assert meteo.paths().count("/v1/forecast") == 2


async def test_a_comma_that_names_no_place_of_its_own_is_a_region(box: Toolbox) -> None:
    assert "\n\n" not in await run_tool(box, "get_weather", city="Paris, Texas")
    text = await run_tool(box, "get_weather", city="Berlin, Atlantis")
    assert text.startswith("Berlin, Land Berlin, Germany") and "\n\n" not in text


async def test_no_such_place(box: Toolbox) -> None:
    with pytest.raises(ToolError, match="No place named 'Atlantis' found"):
        await run_tool(box, "get_weather", city="Atlantis")
    with pytest.raises(ToolError, match="没有找到名为 “亚特兰蒂斯” 的地方"):
        await run_tool(box, "get_weather", city="亚特兰蒂斯")


async def test_a_place_found_is_kept_and_the_next_lookup_asks_only_for_the_forecast(
        box: Toolbox, meteo: FakeOpenMeteo) -> None:
    first = await run_tool(box, "get_weather", city="Berlin")
    assert await run_tool(box, "get_weather", city=" Berlin ") == first
    assert meteo.paths() == ["/v1/search", "/v1/forecast", "/v1/forecast"]
    meteo.requests.clear()
    await run_tool(box, "get_weather", city="Osaka")  # another place
    await run_tool(box, "get_weather", city="Berlin", lang="zh")  # another language
    await run_tool(box, "get_weather", city="Paris")
    await run_tool(box, "get_weather", city="Paris, Texas")  # another text, another place
    searched = [(r.query["name"][0], r.query["language"][0]) for r in meteo.requests
                if r.path == "/v1/search"]
    assert searched == [("Osaka", "en"), ("Berlin", "zh"), ("Paris", "en"), ("Paris", "en")]
    assert meteo.paths().count("/v1/forecast") == 4


async def test_a_place_not_found_or_a_geocoding_error_is_not_kept(
        box: Toolbox, meteo: FakeOpenMeteo) -> None:
    meteo.fail("/v1/search", html_error(503))
    with pytest.raises(ToolError, match="error 503"):
        await run_tool(box, "get_weather", city="Berlin")
    meteo.failures.clear()
    assert (await run_tool(box, "get_weather", city="Berlin")).startswith("Berlin, Land Berlin")
    for _ in range(2):
        with pytest.raises(ToolError, match="No place named 'Atlantis' found"):
            await run_tool(box, "get_weather", city="Atlantis")
    assert meteo.paths() == ["/v1/search", "/v1/search", "/v1/forecast",
                             "/v1/search", "/v1/search"]


async def test_lookups_of_a_new_place_at_the_same_moment_share_one_geocoding(
        box: Toolbox, meteo: FakeOpenMeteo) -> None:
    """A class asking about the same new city at once: one request to the geocoder, each
    answer its own forecast. A failing lookup is shared the same way and not kept."""
    meteo.latency = 0.2  # the lookups overlap, as over the network
    texts = await asyncio.gather(*(run_tool(box, "get_weather", city="Paris")
                                   for _ in range(8)))
    assert len(set(texts)) == 1 and texts[0].startswith("Paris")
    assert meteo.paths().count("/v1/search") == 1
    assert meteo.paths().count("/v1/forecast") == 8
    meteo.requests.clear()
    meteo.fail("/v1/search", html_error(503))
    failed = await asyncio.gather(*(run_tool(box, "get_weather", city="Osaka")
                                    for _ in range(5)), return_exceptions=True)
    assert all(isinstance(e, ToolError) and "error 503" in str(e) for e in failed), failed
    assert meteo.paths() == ["/v1/search"]
    meteo.failures.clear()
    assert "Osaka" in await run_tool(box, "get_weather", city="Osaka")
    assert meteo.paths() == ["/v1/search", "/v1/search", "/v1/forecast"]


async def test_a_lookup_whose_asker_stopped_still_serves_the_others() -> None:
    """The first asker is cancelled (its run stopped) while the place is being found: the
    lookup goes on for those waiting on it, and its place is kept."""
    cache: TtlCache[str, str] = TtlCache(10, 60.0)
    started, release = asyncio.Event(), asyncio.Event()
    calls = 0

    async def find() -> str:
        nonlocal calls
        calls += 1
        started.set()
        await release.wait()
        return "48.85,2.35"

    first = asyncio.create_task(cache.get_or_fetch("Paris", find))
    await started.wait()
    second = asyncio.create_task(cache.get_or_fetch("Paris", find))
    await asyncio.sleep(0)
    first.cancel()
    release.set()
    assert await second == "48.85,2.35"
    assert first.cancelled()
    assert cache.get("Paris") == "48.85,2.35" and calls == 1


async def test_a_kept_place_is_asked_again_when_old_or_pushed_out(
        box: Toolbox, meteo: FakeOpenMeteo) -> None:
    now = [0.0]
    tool = next(t for t in box.tools if isinstance(t, GetWeather))
    tool.places = TtlCache(2, 60.0, clock=lambda: now[0])

    async def searches(*cities: str) -> list[str]:
        meteo.requests.clear()
        for city in cities:
            await run_tool(box, "get_weather", city=city)
        return [r.query["name"][0] for r in meteo.requests if r.path == "/v1/search"]

    assert await searches("Berlin", "Osaka", "Berlin") == ["Berlin", "Osaka"]
    now[0] = 59.0
    assert await searches("Berlin") == []
    now[0] = 60.0
    assert await searches("Berlin", "Osaka") == ["Berlin", "Osaka"]
    # Two kept at most: Paris pushes out the least recently asked, Berlin.
    assert await searches("Paris", "Osaka", "Berlin") == ["Paris", "Berlin"]


async def test_lookups_seconds_apart_keep_one_connection(
        box: Toolbox, meteo: FakeOpenMeteo, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tools keep an idle connection open (wire/limits.py TOOLS_KEEPALIVE_S, 60 s), so a
    lookup after a quiet spell longer than the model's and Telegram's 5 s does not pay a new
    connection (to a real service: TCP and TLS handshakes). The spell passes on aiohttp's
    clock, which its pool reads to tell an idle connection's age."""
    await run_tool(box, "get_weather", city="Berlin")
    later = time.monotonic() + QUIET_SPELL_S
    monkeypatch.setattr(aiohttp.connector, "monotonic", lambda: later)
    await run_tool(box, "get_weather", city="Berlin")
    assert meteo.paths() == ["/v1/search", "/v1/forecast", "/v1/forecast"]
    assert len({request.peer for request in meteo.requests}) == 1


async def test_a_lookup_after_the_service_closed_the_idle_connection_succeeds(
        box: Toolbox, meteo: FakeOpenMeteo) -> None:
    """A service may close a kept connection before the tools do: the next lookup connects
    again and answers as usual."""
    first = await run_tool(box, "get_weather", city="Berlin")
    meteo.refuse_connections()  # closes the idle connection…
    meteo.accept_connections()  # …and listens again
    assert await run_tool(box, "get_weather", city="Berlin") == first
    assert len({request.peer for request in meteo.requests}) == 2


@pytest.mark.parametrize(("path", "reply", "expected"), [
    ("/v1/search", sample("open-meteo/geocoding_error_400.json", 400),
     "Open-Meteo answered with error 400: Parameter count must be between 1 and 100."),
    ("/v1/forecast", sample("open-meteo/forecast_error_400_latitude.json", 400),
     "Open-Meteo answered with error 400: Latitude must be in range of -90 to 90°."),
    ("/v1/forecast", sample("open-meteo/forecast_error_400_invalid_variable_docs.json", 400),
     "error 400: Cannot initialize WeatherVariable"),
    ("/v1/forecast", sample("open-meteo/error_429_daily_limit.json", 429),
     "Open-Meteo answered with error 429: Daily API request limit exceeded."),
    ("/v1/forecast", html_error(503), "Open-Meteo answered with error 503"),
    ("/v1/search", not_json(), "Open-Meteo sent a reply that is not JSON."),
    ("/v1/forecast", Reply.json({"latitude": 1.0}), "Open-Meteo sent no weather data."),
    ("/v1/forecast", slow(3), "Open-Meteo did not answer in time."),
])
async def test_upstream_errors_become_clear_texts(box: Toolbox, meteo: FakeOpenMeteo,
                                                  path: str, reply: Reply,
                                                  expected: str) -> None:
    meteo.fail(path, reply)
    with pytest.raises(ToolError) as caught:
        await run_tool(box, "get_weather", city="Berlin")
    assert expected in str(caught.value)


async def test_unreachable_service() -> None:
    with FakeOpenMeteo() as gone:
        url = gone.geocoding_url
    settings = agent_settings("http://127.0.0.1:9", agent_tools="get_weather",
                              open_meteo_geocoding_url=url)
    async with open_toolbox(settings) as box:
        with pytest.raises(ToolError, match=r"^Could not reach Open-Meteo\.$"):
            await run_tool(box, "get_weather", city="Berlin")


async def test_through_the_loop(fake_model: FakeModel, client: ModelClient,
                                settings: AgentSettings, box: Toolbox) -> None:
    seen = await observe(fake_model, client, settings, box, "柏林现在天气怎么样？",
                         "get_weather", {"city": "Berlin", "lang": "zh"})
    assert seen.ok
    assert seen.text == "Berlin, Land Berlin, Germany（当地时间 2024-11-23 18:15）：\n" \
                        "现在 2.3 °C，风速 10.7 km/h"


async def test_the_observation_is_in_the_runs_language_whatever_the_model_passes(
        fake_model: FakeModel, client: ModelClient, settings: AgentSettings,
        box: Toolbox) -> None:
    """Glassbox fills `lang` itself: the model is not offered it, and a `"zh"` copied from
    an example into an English run does not make the observation Chinese."""
    seen = await observe(fake_model, client, settings, box, "What is the weather in Berlin?",
                         "get_weather", {"city": "Berlin", "lang": "zh"})
    assert seen.text.startswith("Berlin, Land Berlin, Germany (local time 2024-11-23 18:15)")
    offered = fake_model.bodies[0]["tools"][0]["function"]["parameters"]
    assert "lang" not in offered["properties"] and "lang" not in offered.get("required", [])
    seen = await observe(fake_model, client, settings, box, "柏林现在天气怎么样？",
                         "get_weather", {"city": "Berlin"})
    assert "现在 2.3 °C" in seen.text


async def test_through_the_loop_an_error_is_an_observation(
        fake_model: FakeModel, client: ModelClient, settings: AgentSettings,
        box: Toolbox) -> None:
    seen = await observe(fake_model, client, settings, box, "Weather in Atlantis?",
                         "get_weather", {"city": "Atlantis"})
    assert (seen.ok, seen.failure) == (False, ObservationFailure.TOOL_ERROR)
    assert seen.text == "No place named 'Atlantis' found."


@pytest.mark.parametrize("reply", [html_error(503), Reply.json({"latitude": 1.0}), slow(3)])
async def test_through_the_loop_an_upstream_failure_is_marked_as_such(
        fake_model: FakeModel, client: ModelClient, settings: AgentSettings, box: Toolbox,
        meteo: FakeOpenMeteo, reply: Reply) -> None:
    meteo.fail("/v1/forecast", reply)
    seen = await observe(fake_model, client, settings, box, "Weather in Berlin?",
                         "get_weather", {"city": "Berlin"})
    assert (seen.ok, seen.failure) == (False, ObservationFailure.UPSTREAM_ERROR)
    assert seen.text.startswith("Open-Meteo")
