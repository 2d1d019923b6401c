"""search_wikipedia against a fake Wikipedia replaying the wire samples, and its errors."""

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
from testkit.fakes.upstreams import FakeWikipedia, html_error, not_json, sample, slow


@pytest.fixture
def wiki() -> Iterator[FakeWikipedia]:
    with FakeWikipedia() as fake:
        yield fake


@pytest.fixture
def tool_settings(wiki: FakeWikipedia) -> dict[str, Any]:
    return {"agent_tools": "search_wikipedia", "wikipedia_api_url": wiki.api_url,
            "wikipedia_rest_url": wiki.rest_url, "tool_http_timeout_s": 0.5}


async def test_search_then_summary_of_the_best_hit(box: Toolbox, wiki: FakeWikipedia) -> None:
    text = await run_tool(box, "search_wikipedia", query="Ayrton Senna")
    lines = text.split("\n")
    assert lines[0] == ("Wikipedia (en) article 'Ayrton Senna': "
                        "Brazilian Formula One driver (1960–1994)")
    assert lines[1].startswith("Ayrton Senna da Silva was a Brazilian racing driver")
    assert lines[2:] == ["Other matches: Senna (film)",
                         "https://en.wikipedia.org/wiki/Ayrton_Senna"]
    search, summary = wiki.requests
    assert search.path == "/en/w/api.php"
    assert search.query["action"] == ["query"] and search.query["list"] == ["search"]
    assert search.query["srsearch"] == ["Ayrton Senna"]
    assert summary.path == "/en/api/rest_v1/page/summary/Ayrton_Senna"


async def test_the_wire_search_sample_and_its_second_hit(box: Toolbox) -> None:
    text = await run_tool(box, "search_wikipedia", query="Computing")
    assert text.startswith("Wikipedia (en) article 'Computing': Activity involving computers\n")
    assert "Other matches: Cloud computing" in text


async def test_chinese_query_uses_the_chinese_wikipedia_and_bounds_the_extract(
        box: Toolbox, wiki: FakeWikipedia) -> None:
    text = await run_tool(box, "search_wikipedia", query="图灵测试")
    head, extract, url = text.split("\n")
    assert head == "维基百科（zh）条目《图灵测试》：测试机器能否表现出智能的方法"
    assert extract.startswith("图灵测试是英国计算机科学家艾伦·图灵于1950年提出的思想实验")
    assert len(extract) <= 600 and extract.endswith("。")
    assert url == "https://zh.wikipedia.org/wiki/图灵测试"
    search, summary = wiki.requests
    assert search.path == "/zh/w/api.php"
    assert summary.path == "/zh/api/rest_v1/page/summary/%E5%9B%BE%E7%81%B5%E6%B5%8B%E8%AF%95"
    assert summary.headers["accept-language"] == "zh-cn"


async def test_no_results(box: Toolbox) -> None:
    with pytest.raises(ToolError, match="No Wikipedia article found for 'xyzzy plugh'"):
        await run_tool(box, "search_wikipedia", query="xyzzy plugh")
    with pytest.raises(ToolError, match="维基百科上没有找到与 “不存在的东西” 相关的条目"):
        await run_tool(box, "search_wikipedia", query="不存在的东西")


async def test_a_hit_whose_page_is_gone(box: Toolbox) -> None:
    with pytest.raises(ToolError, match="The Wikipedia article 'Vanished page' was not found"):
        await run_tool(box, "search_wikipedia", query="Vanished page")


async def test_mediawiki_errors_come_with_http_200(box: Toolbox, wiki: FakeWikipedia) -> None:
    wiki.fail("/en/w/api.php", Reply.json(
        {"error": {"code": "maxlag", "info": "Waiting for a database server: 5 seconds lagged."}}))
    with pytest.raises(ToolError, match="Wikipedia answered with an error: Waiting for a "
                                        "database server"):
        await run_tool(box, "search_wikipedia", query="Ayrton Senna")


@pytest.mark.parametrize(("path", "reply", "expected"), [
    ("/en/w/api.php", html_error(503), "Wikipedia answered with error 503"),
    ("/en/w/api.php", not_json(), "Wikipedia sent a reply that is not JSON."),
    ("/en/w/api.php", slow(3), "Wikipedia did not answer in time."),
    ("/en/api/rest_v1/page/summary/Ayrton_Senna",
     sample("wikipedia/rest_page_summary_404.json", 404),
     "The Wikipedia article 'Ayrton Senna' was not found."),
    ("/en/api/rest_v1/page/summary/Ayrton_Senna", html_error(500),
     "Wikipedia answered with error 500"),
])
async def test_upstream_errors_become_clear_texts(box: Toolbox, wiki: FakeWikipedia, path: str,
                                                  reply: Reply, expected: str) -> None:
    wiki.fail(path, reply)
    with pytest.raises(ToolError) as caught:
        await run_tool(box, "search_wikipedia", query="Ayrton Senna")
    assert expected in str(caught.value)


async def test_through_the_loop(fake_model: FakeModel, client: ModelClient,
                                settings: AgentSettings, box: Toolbox) -> None:
    seen = await observe(fake_model, client, settings, box, "Who was Ayrton Senna?",
                         "search_wikipedia", {"query": "Ayrton Senna", "lang": "en"})
    assert seen.ok
    assert seen.text.startswith("Wikipedia (en) article 'Ayrton Senna'")
    assert seen.text.endswith("https://en.wikipedia.org/wiki/Ayrton_Senna")
