"""convert_currency against a fake Frankfurter replaying the wire samples, and its errors."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from agent import AgentSettings, ModelClient
from agent.tool import ToolError
from agent.tools import Toolbox
from testkit.fakes.model import FakeModel
from testkit.fakes.server import Reply
from testkit.fakes.tools import observe, run_tool
from testkit.fakes.upstreams import FakeFrankfurter, html_error, not_json, sample, slow


@pytest.fixture
def frankfurter() -> Iterator[FakeFrankfurter]:
    with FakeFrankfurter() as fake:
        yield fake


@pytest.fixture
def tool_settings(frankfurter: FakeFrankfurter) -> dict[str, Any]:
    return {"agent_tools": "convert_currency", "frankfurter_url": frankfurter.base_url,
            "tool_http_timeout_s": 0.5}


async def test_usd_to_cny_from_the_wire_sample(box: Toolbox, frankfurter: FakeFrankfurter) -> None:
    text = await run_tool(box, "convert_currency", amount=100, from_currency="USD",
                          to_currency="CNY")
    assert text == ("100 USD = 729.94 CNY "
                    "(rate 1 USD = 7.2994 CNY, ECB reference rate of 2025-04-11)")
    (request,) = frankfurter.requests
    assert request.path == "/v1/latest"
    assert request.query == {"from": ["USD"], "to": ["CNY"]}


async def test_chinese_names_and_chinese_words(box: Toolbox) -> None:
    text = await run_tool(box, "convert_currency", amount=1000, from_currency="美元",
                          to_currency="人民币")
    assert text == ("1,000 USD = 7,299.40 CNY"
                    "（汇率 1 USD = 7.2994 CNY，欧洲央行 2025-04-11 的参考汇率）")


@pytest.mark.parametrize(("name", "code"), [
    ("欧元", "EUR"), ("日元", "JPY"), ("英镑", "GBP"), ("港币", "HKD"), ("港元", "HKD"),
    ("韩元", "KRW"), ("yen", "JPY"), ("Euros", "EUR"), ("gbp", "GBP"), (" rmb ", "CNY"),
])
async def test_common_names_resolve(box: Toolbox, frankfurter: FakeFrankfurter, name: str,
                                    code: str) -> None:
    text = await run_tool(box, "convert_currency", from_currency="USD", to_currency=name,
                          lang="en")
    assert text.startswith("1 USD = ") and f" {code} (rate 1 USD = " in text
    assert frankfurter.requests[-1].query["to"] == [code]


async def test_small_results_keep_significant_digits(box: Toolbox) -> None:
    text = await run_tool(box, "convert_currency", from_currency="JPY", to_currency="USD")
    assert text.startswith("1 JPY = 0.007001 USD (rate 1 JPY = 0.0070008 USD")


async def test_same_currency_needs_no_request(box: Toolbox,
                                              frankfurter: FakeFrankfurter) -> None:
    assert await run_tool(box, "convert_currency", amount=5, from_currency="EUR",
                          to_currency="欧元") == "5 EUR = 5.00 EUR"
    assert frankfurter.requests == []


async def test_unknown_currency_names_the_supported_ones(
        box: Toolbox, frankfurter: FakeFrankfurter) -> None:
    with pytest.raises(ToolError) as caught:
        await run_tool(box, "convert_currency", from_currency="USD", to_currency="Bitcoin")
    assert str(caught.value).startswith("Unsupported currency 'Bitcoin'. Supported: AUD, BGN,")
    assert "CNY" in str(caught.value) and "USD" in str(caught.value)
    with pytest.raises(ToolError, match="不支持的货币 “卢布”。支持的货币：AUD"):
        await run_tool(box, "convert_currency", from_currency="卢布", to_currency="人民币")
    assert frankfurter.requests == []


@pytest.mark.parametrize(("reply", "expected"), [
    (sample("frankfurter/v1_error_404_not_found.json", 404),
     "Unsupported currency 'USD/CNY'. Supported: AUD"),
    (sample("frankfurter/v1_error_422_bad_currency_pair.json", 422),
     "Frankfurter answered with error 422: bad currency pair"),
    (sample("frankfurter/v2_error_422_invalid_currency.json", 422),
     "Frankfurter answered with error 422: invalid currency: XYZ"),
    (html_error(502), "Frankfurter answered with error 502"),
    (not_json(), "Frankfurter sent a reply that is not JSON."),
    (Reply.json({"amount": 1.0, "base": "USD", "date": "2025-04-11", "rates": {}}),
     "Frankfurter sent no USD→CNY rate."),
    (slow(3), "Frankfurter did not answer in time."),
])
async def test_upstream_errors_become_clear_texts(box: Toolbox, frankfurter: FakeFrankfurter,
                                                  reply: Reply, expected: str) -> None:
    frankfurter.fail("/v1/latest", reply)
    with pytest.raises(ToolError) as caught:
        await run_tool(box, "convert_currency", from_currency="USD", to_currency="CNY")
    assert expected in str(caught.value)


async def test_through_the_loop(fake_model: FakeModel, client: ModelClient,
                                settings: AgentSettings, box: Toolbox) -> None:
    seen = await observe(fake_model, client, settings, box, "How much is 250 dollars in yuan?",
                         "convert_currency",
                         {"amount": 250, "from_currency": "USD", "to_currency": "CNY"})
    assert seen.ok
    assert seen.text == ("250 USD = 1,824.85 CNY "
                         "(rate 1 USD = 7.2994 CNY, ECB reference rate of 2025-04-11)")
