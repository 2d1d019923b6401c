"""The bot with its real toolbox (opened in post_init) against fake upstream services."""

from __future__ import annotations

from pathlib import Path

from tests.botkit import GROUP, people, running
from tests.fakes.model import FakeModel, text_reply, tool_reply
from tests.fakes.telegram import FakeTelegram
from tests.fakes.upstreams import FakeOpenMeteo

BOB = 222


async def test_a_class_asks_the_weather_through_the_real_tool(tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model, FakeOpenMeteo() as meteo:
        people(tg)
        model.push(tool_reply(("get_weather", {"city": "Berlin", "lang": "zh"})),
                   text_reply("柏林现在 **2.3 °C**。"))
        async with running(tg, model, tmp_path / "g.sqlite3", tools=None,
                           agent_tools=("get_weather", "calculate"),
                           open_meteo_geocoding_url=meteo.geocoding_url,
                           open_meteo_forecast_url=meteo.forecast_url) as gb:
            asked = tg.send(GROUP, BOB, "/ask 柏林现在天气怎么样？")
            final = await gb.answer_to(GROUP, asked)
    offered = [t["function"]["name"] for t in model.bodies[0]["tools"]]
    assert sorted(offered) == ["calculate", "get_weather"]
    assert "第 1 轮" in final.text
    assert "get_weather" in final.text
    assert "Berlin, Land Berlin, Germany" in final.text and "2.3 °C" in final.text
    assert "柏林现在 2.3 °C。" in final.text
    assert [r.path for r in meteo.requests] == ["/v1/search", "/v1/forecast"]
