"""/compare's difference line: one short model call, capped, and nothing when it fails."""

from __future__ import annotations

from agent.compare_judge import JUDGE_MARK, MAX_WORDS, capped, judge
from agent.model import ModelClient
from tests.fakes.model import FakeModel, error, text_reply


def test_a_long_judgement_is_cut_to_its_length() -> None:
    assert capped(" ".join(["word"] * 80), "en") == " ".join(["word"] * MAX_WORDS) + "…"
    assert capped("短" * 200, "zh") == "短" * 119 + "…"
    assert capped("They agree.", "en") == "They agree."


async def test_the_judge_asks_once_at_temperature_zero_in_the_questions_language(
        fake_model: FakeModel, client: ModelClient) -> None:
    fake_model.judge = text_reply("两个回答一致。", usage=(90, 10))
    judged = await judge("杭州天气？", "晴。", "晴，18 度。", client=client, lang="zh")
    assert judged is not None and judged.text == "两个回答一致。"
    assert judged.usage.total_tokens == 100
    [body] = fake_model.bodies
    assert body["temperature"] == 0 and "tools" not in body
    assert body["messages"][0]["content"].startswith(JUDGE_MARK)
    assert "written in Chinese" in body["messages"][0]["content"]


async def test_a_failed_or_empty_judgement_gives_no_line(fake_model: FakeModel,
                                                         client: ModelClient) -> None:
    fake_model.judge = error("openai/error_401_invalid_api_key.json", 401)
    assert await judge("q", "a", "b", client=client, lang="en") is None
    fake_model.judge = text_reply("   ")
    assert await judge("q", "a", "b", client=client, lang="en") is None
