"""get_time: zones, cities and countries by name, weekday words in both languages."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from agent import ModelClient
from agent.tool import ToolError
from agent.tools.clock import GetTime
from testkit.agentkit import agent_settings
from testkit.fakes.model import FakeModel
from testkit.fakes.tools import observe, open_toolbox

NOW = datetime(2025, 4, 11, 6, 30, tzinfo=UTC)  # a Friday


async def ask(timezone: str = "", lang: str | None = None) -> str:
    tool = GetTime("Asia/Shanghai", clock=lambda: NOW)
    return await tool.run(GetTime.Args(timezone=timezone, lang=lang))


@pytest.mark.parametrize(("asked", "expected"), [
    ("", "Asia/Shanghai: Friday, 2025-04-11 14:30 (UTC+08:00)"),
    ("Asia/Tokyo", "Asia/Tokyo: Friday, 2025-04-11 15:30 (UTC+09:00)"),
    ("europe/london", "Europe/London: Friday, 2025-04-11 07:30 (UTC+01:00)"),
    ("London", "London (Europe/London): Friday, 2025-04-11 07:30 (UTC+01:00)"),
    ("New York", "New York (America/New_York): Friday, 2025-04-11 02:30 (UTC-04:00)"),
    ("Kathmandu", "Kathmandu (Asia/Kathmandu): Friday, 2025-04-11 12:15 (UTC+05:45)"),
    ("UTC-11", "UTC-11 (UTC-11:00): Thursday, 2025-04-10 19:30 (UTC-11:00)"),
    ("UTC", "UTC: Friday, 2025-04-11 06:30 (UTC+00:00)"),
])
async def test_english_names_and_zones(asked: str, expected: str) -> None:
    assert await ask(asked) == expected


@pytest.mark.parametrize(("asked", "expected"), [
    ("北京", "北京（Asia/Shanghai）：2025年4月11日 星期五 14:30（UTC+08:00）"),
    ("上海市", "上海市（Asia/Shanghai）：2025年4月11日 星期五 14:30（UTC+08:00）"),
    ("东京", "东京（Asia/Tokyo）：2025年4月11日 星期五 15:30（UTC+09:00）"),
    ("伦敦时间", "伦敦时间（Europe/London）：2025年4月11日 星期五 07:30（UTC+01:00）"),
    ("美国", "美国（America/New_York）：2025年4月11日 星期五 02:30（UTC-04:00）"),
])
async def test_chinese_names(asked: str, expected: str) -> None:
    assert await ask(asked) == expected


async def test_lang_argument_chooses_the_words() -> None:
    assert await ask("", lang="zh") == "Asia/Shanghai：2025年4月11日 星期五 14:30（UTC+08:00）"
    assert await ask("Tokyo", lang="zh") == \
        "Tokyo（Asia/Tokyo）：2025年4月11日 星期五 15:30（UTC+09:00）"


@pytest.mark.parametrize(("asked", "expected"), [
    ("北京, 伦敦", "北京比伦敦早 7 小时。"),
    ("伦敦和北京", "伦敦比北京晚 7 小时。"),
    ("Beijing and London", "Beijing is 7 hours ahead of London."),
    ("Paris/Berlin", "Paris and Berlin have the same time."),
    ("London, Paris", "London is 1 hour behind Paris."),
    ("Kathmandu, London", "Kathmandu is 4.75 hours ahead of London."),
])
async def test_several_places_give_each_clock_and_the_hours_between(
        asked: str, expected: str) -> None:
    lines = (await ask(asked)).splitlines()
    assert len(lines) == 3
    assert lines[-1] == expected
    assert lines[0] == await ask(re.split(r", |和| and |/", asked)[0])


async def test_a_zone_with_a_slash_or_a_two_word_city_is_one_place() -> None:
    assert len((await ask("Europe/London")).splitlines()) == 1
    assert len((await ask("Ho Chi Minh City")).splitlines()) == 1


async def test_unknown_place() -> None:
    with pytest.raises(ToolError, match="Unknown time zone or place 'Atlantis'"):
        await ask("Atlantis")
    with pytest.raises(ToolError, match="不认识时区或地点 “火星”"):
        await ask("北京、火星")
    with pytest.raises(ToolError, match="不认识时区或地点 “火星”"):
        await ask("火星")
    with pytest.raises(ToolError, match="Unknown time zone or place 'UTC\\+99'"):
        await ask("UTC+99")


async def test_through_the_loop_with_the_real_clock(fake_model: FakeModel) -> None:
    settings = agent_settings(fake_model.base_url, agent_tools="get_time",
                              default_timezone="Europe/Berlin")
    before = datetime.now(ZoneInfo("Europe/Berlin"))
    client = ModelClient(settings)
    try:
        async with open_toolbox(settings) as box:
            seen = await observe(fake_model, client, settings, box, "What day is it today?",
                                 "get_time", {})
    finally:
        await client.close()
    after = datetime.now(ZoneInfo("Europe/Berlin"))
    match = re.fullmatch(r"Europe/Berlin: (\w+), (\d{4}-\d\d-\d\d) \d\d:\d\d \(UTC\+0[12]:00\)",
                         seen.text)
    assert match, seen.text
    assert (match[1], match[2]) in {(d.strftime("%A"), d.strftime("%Y-%m-%d"))
                                    for d in (before, after)}
