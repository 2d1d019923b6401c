"""The bot with its real toolbox (opened with the services) against fake upstream services, and
the course notes indexed in its own database."""

from __future__ import annotations

from pathlib import Path

from testkit.botkit import GROUP, people, running
from testkit.dbkit import query
from testkit.fakes.model import FakeModel, text_reply, tool_reply
from testkit.fakes.telegram import FakeTelegram
from testkit.fakes.upstreams import FakeOpenMeteo

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


async def test_a_class_asks_the_course_notes_kept_in_the_bots_database(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "react.md").write_text("# ReAct 循环\n\n思考、行动、观察，直到得出答案。\n", "utf-8")
    db = tmp_path / "g.sqlite3"
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        people(tg)
        model.push(tool_reply(("search_notes", {"query": "ReAct 循环"})),
                   text_reply("课程里说：思考、行动、观察。"))
        async with running(tg, model, db, tools=None, agent_tools=("search_notes",),
                           notes_dir=notes) as gb:
            asked = tg.send(GROUP, BOB, "/ask 课程里 ReAct 循环是什么？")
            final = await gb.answer_to(GROUP, asked)
            # the index is the store's, not a private one
            indexed = await query(db, "SELECT path, size FROM notes_files")
    tool_message = model.bodies[-1]["messages"][-1]
    assert tool_message["role"] == "tool"
    assert tool_message["content"].startswith("[react.md › ReAct 循环]\n思考、行动、观察")
    assert "search_notes" in final.text and "react.md" in final.text
    assert indexed == [("react.md", (notes / "react.md").stat().st_size)]
    assert not Path(f"{db}-wal").exists()  # every connection closed at shutdown, the index's too
