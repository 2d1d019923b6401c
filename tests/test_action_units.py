"""An action's figures keep their units: a percentage of the question written bare into a
calculation is refused with the exact way to write it, and the calculator then reads it.
Real loop, real calculator, fake model server."""

from __future__ import annotations

import pytest

from agent import AgentSettings, Answer, ModelClient
from agent.events import Observation
from agent.protocols.action_units import with_units
from agent.tools.calculator import Calculate
from tests.fakes.model import FakeModel, text_reply, tool_reply
from tests.test_loop import events_of, of, react


@pytest.mark.parametrize(("expression", "question", "fixed"), [
    ("8*2500", "What is 8% of 2500?", "8%*2500"),
    ("3840 * 12.5", "12.5% 的 3840 是多少？", "3840 * 12.5%"),
    # already per cent, divided by 100, or the number is the question's without a % too
    ("8% * 2500", "What is 8% of 2500?", "8% * 2500"),
    ("2500*8/100", "What is 8% of 2500?", "2500*8/100"),
    ("50*0.5", "What is 50% of 50?", "50*0.5"),
    ("8*2500", "What is 8 times 2500?", "8*2500"),
])
def test_a_bare_percentage_gets_its_unit_back(expression: str, question: str,
                                               fixed: str) -> None:
    assert with_units(expression, question) == fixed


@pytest.mark.parametrize(("question", "refusal"), [
    ("What is 8% of 2500?", 'calculate("8*2500") writes a percentage of the question as a plain '
                            "number, which is 100 times too much. Write it with its %, as the "
                            "question does: 8%*2500"),
    ("2500 的 8% 是多少？", 'calculate("8*2500") 把问题里的百分数写成了普通的数，'
                        "算出来会差 100 倍。请照问题的写法带上 %：8%*2500"),
])
async def test_the_refusal_says_how_and_the_mended_call_is_read(
    question: str, refusal: str, fake_model: FakeModel, client: ModelClient,
    settings: AgentSettings,
) -> None:
    fake_model.push(tool_reply(("calculate", {"expression": "8*2500"})),
                    tool_reply(("calculate", {"expression": "8%*2500"})),
                    text_reply("200"))
    native = settings.model_copy(update={"agent_mode": "native"})
    events = await events_of(react(question, client, native, [Calculate()]))
    refused, read = of(events, Observation)
    assert not refused.ok and refused.text == refusal
    assert read.ok and read.text.endswith("= 200")
    (answer,) = of(events, Answer)
    assert answer.text == "200" and answer.unfounded == ()
