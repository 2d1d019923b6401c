"""The real tools against failing upstreams, through the whole bot: a 5xx, a reply slower
than the timeout, a huge reply, a body that is not JSON. Each becomes an observation the
model and the class see; the run ends with an answer and the next question is answered."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agent.events import Observation, ObservationFailure
from agent.tool import ToolError
from agent.tools.calculator import Calculate
from testkit.botkit import ALICE, GROUP, Glassbox
from testkit.fakes.model import text_reply, tool_reply
from testkit.fakes.server import Reply
from testkit.fakes.upstreams import (
    FakeFrankfurter,
    FakeOpenMeteo,
    FakeWikipedia,
    html_error,
    not_json,
    slow,
)
from tests.faults.kit import glassbox, runs_of, still_answers


@dataclass
class Upstreams:
    meteo: FakeOpenMeteo
    money: FakeFrankfurter
    wiki: FakeWikipedia


@pytest.fixture
def upstreams() -> Iterator[Upstreams]:
    with FakeOpenMeteo() as meteo, FakeFrankfurter() as money, FakeWikipedia() as wiki:
        yield Upstreams(meteo, money, wiki)


@contextlib.asynccontextmanager
async def with_tools(tmp_path: Path, up: Upstreams, **extra: Any) -> AsyncIterator[Glassbox]:
    """The bot with its real toolbox, every service pointing at a fake."""
    async with glassbox(tmp_path, tools=None, open_meteo_geocoding_url=up.meteo.geocoding_url,
                        open_meteo_forecast_url=up.meteo.forecast_url,
                        frankfurter_url=up.money.base_url, wikipedia_api_url=up.wiki.api_url,
                        wikipedia_rest_url=up.wiki.rest_url, **extra) as gb:
        yield gb


async def observed(gb: Glassbox, tool: str, args: dict[str, Any]) -> tuple[str, str]:
    """Ask; the model calls `tool(args)`, then answers. (The stored observation, the chat's
    final text.)"""
    gb.model.push(tool_reply((tool, args)), text_reply("Sorry, the service let me down."))
    asked = gb.tg.send(GROUP, ALICE, f"/ask please use {tool}")
    final = await gb.answer_to(GROUP, asked)
    run = (await runs_of(gb, GROUP))[-1]
    assert run.status == "done"
    [obs] = [e for e in (await gb.services.store.events(run.id))["main"]
             if isinstance(e, Observation)]
    sent_back = gb.model.bodies[1]["messages"][-1]
    assert sent_back["role"] == "tool" and sent_back["content"] == obs.text
    assert "Sorry, the service let me down." in final.text
    return obs.text, final.text


async def test_an_upstream_5xx_is_an_observation(tmp_path: Path, upstreams: Upstreams) -> None:
    upstreams.meteo.fail("/v1/search", html_error(503))
    async with with_tools(tmp_path, upstreams) as gb:
        obs, shown = await observed(gb, "get_weather", {"city": "Berlin"})
        assert "error 503" in obs
        assert "error 503" in shown
        await still_answers(gb, GROUP)


@pytest.mark.parametrize("limit", ["tool_timeout_s", "tool_http_timeout_s"])
async def test_a_reply_slower_than_the_timeout_is_an_observation(
        tmp_path: Path, upstreams: Upstreams, limit: str) -> None:
    upstreams.money.fail("/v1/latest", slow(3.0))
    async with with_tools(tmp_path, upstreams, **{limit: 0.3}) as gb:
        obs, _ = await observed(gb, "convert_currency",
                                {"amount": 10, "from_currency": "USD", "to_currency": "EUR"})
        assert "timed out after 0.3 s" in obs or "did not answer in time" in obs
        await still_answers(gb, GROUP)


async def test_a_huge_reply_is_bounded(tmp_path: Path, upstreams: Upstreams) -> None:
    upstreams.wiki.fail("/en/api/rest_v1/page/summary/Computing", Reply.json({
        "type": "standard", "title": "Computing", "description": "computing " * 100_000,
        "extract": "Computing is any goal-oriented activity. " * 10_000}))
    async with with_tools(tmp_path, upstreams, max_observation_chars=1000) as gb:
        obs, shown = await observed(gb, "search_wikipedia", {"query": "Computing"})
        assert obs.startswith("Wikipedia (en) article 'Computing'")
        assert len(obs) < 1100 and "more characters cut" in obs
        assert len(shown) < 4096
        await still_answers(gb, GROUP)


async def test_a_body_that_is_not_json_is_an_observation(
        tmp_path: Path, upstreams: Upstreams) -> None:
    upstreams.money.fail("/v1/latest", not_json())
    async with with_tools(tmp_path, upstreams) as gb:
        obs, _ = await observed(gb, "convert_currency",
                                {"amount": 10, "from_currency": "USD", "to_currency": "EUR"})
        assert "not JSON" in obs
        await still_answers(gb, GROUP)


async def test_a_redirect_to_another_host_is_refused(tmp_path: Path, upstreams: Upstreams) -> None:
    with FakeFrankfurter() as elsewhere:
        upstreams.money.fail("/v1/latest", Reply(302, b"", {
            "Location": f"{elsewhere.base_url}/latest?from=USD&to=EUR"}))
        async with with_tools(tmp_path, upstreams) as gb:
            obs, _ = await observed(gb, "convert_currency",
                                    {"amount": 10, "from_currency": "USD", "to_currency": "EUR"})
            assert "Frankfurter answered with a redirect elsewhere; not followed." in obs
            run = (await runs_of(gb, GROUP))[-1]
            [stored] = [e for e in (await gb.services.store.events(run.id))["main"]
                        if isinstance(e, Observation)]
            assert stored.failure is ObservationFailure.UPSTREAM_ERROR
            await still_answers(gb, GROUP)
        assert elsewhere.requests == []


async def test_a_redirect_on_the_same_host_is_followed(
        tmp_path: Path, upstreams: Upstreams) -> None:
    """What Wikipedia's REST API does for a redirect page: a 302 to the canonical title."""
    upstreams.wiki.fail("/en/api/rest_v1/page/summary/Ayrton_Senna",
                        Reply(302, b"", {"Location": "Computing"}))
    async with with_tools(tmp_path, upstreams) as gb:
        obs, _ = await observed(gb, "search_wikipedia", {"query": "Ayrton Senna"})
        assert obs.startswith("Wikipedia (en) article 'Computing'")
        await still_answers(gb, GROUP)


CALCULATIONS = [("2²", "2² = 4"), ("10²", "10² = 100"), ("2⁻¹", "2⁻¹ = 0.5"),
                ("2⁽¹⁺¹⁾", "2⁽¹⁺¹⁾ = 4"), ("(1+2)² × 2", "(1+2)² × 2 = 18"),
                ("x₂ + 1", "The character '₂' is not supported"),
                ("½ + 1", "The character '½' is not supported"),
                ("① + 1", "The character '①' is not supported"),
                ("½ 加 1", "The character '½' is not supported")]
"""The last in the run's language (the question is English), whatever the expression's."""


async def test_superscripts_are_powers_and_other_folded_characters_are_refused(
        tmp_path: Path) -> None:
    """NFKC alone read 2² as 22 and 2⁻¹ as 2-1: wrong answers shown as exact."""
    async with glassbox(tmp_path, tools=[Calculate()],
                        agent_max_calls_per_round=len(CALCULATIONS)) as gb:
        gb.model.push(tool_reply(*[("calculate", {"expression": expression})
                                   for expression, _ in CALCULATIONS]),
                      text_reply("Done."))
        asked = gb.tg.send(GROUP, ALICE, "/ask powers please")
        final = await gb.answer_to(GROUP, asked)
        run = (await runs_of(gb, GROUP))[-1]
        observations = [e.text for e in (await gb.services.store.events(run.id))["main"]
                        if isinstance(e, Observation)]
        assert len(observations) == len(CALCULATIONS)
        for (expression, expected), obs in zip(CALCULATIONS, observations, strict=True):
            assert expected in obs, (expression, obs)
        assert "2² = 4" in final.text and "10² = 100" in final.text
        await still_answers(gb, GROUP)


async def test_a_huge_expression_is_refused_before_it_is_read() -> None:
    started = time.perf_counter()
    with pytest.raises(ToolError, match="too long"):
        await Calculate().run(Calculate.Args(expression="1" * 10_000_000))
    assert time.perf_counter() - started < 0.2  # was ~0.8 s, reading all to guess the language
