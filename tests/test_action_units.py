"""An action's figures keep their units: a percentage of the question written bare into a
calculation is refused with the exact way to write it, and the calculator then reads it.
Real loop, real calculator, fake model server."""

from __future__ import annotations

import pytest

from agent import AgentSettings, Answer, ModelClient
from agent.events import Observation
from agent.protocols.action_units import refusal, with_units
from agent.tools.calculator import Calculate
from testkit.fakes.model import FakeModel, text_reply, tool_reply
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


TOOLS = ("calculate", "convert_currency")
RATE = "100 USD = 729.94 CNY (1 USD = 7.2994 CNY)"


@pytest.mark.parametrize(("expression", "question", "lang", "refused"), [
    ("150*0.2", "What is 20% off 150?", "en",
     'calculate("150*0.2") works out the discount, not the price after it. Call calculate '
     "again with this expression: 150*(1 - 20%)"),
    ("150*20", "What is 20% off 150?", "en",  # the % restored, then the price
     'calculate("150*20") works out the discount, not the price after it. Call calculate '
     "again with this expression: 150*(1 - 20%)"),
    ("240*0.25", "一件衣服 240 元，优惠 25% 后多少钱？", "zh",
     'calculate("240*0.25") 算的是减掉的部分，不是打折后的价格。'
     "请用这个算式再调用一次 calculate：240*(1 - 25%)"),
    ("350*7.2", "350 美元等于多少人民币？", "zh",
     'calculate("350*7.2") 用了没有工具给出的汇率来换算问题里的金额。请先查汇率：'
     'convert_currency[{"amount": 350, "from_currency": "USD", "to_currency": "CNY"}]'),
    ("250*1.08", "How many US dollars are 250 euros?", "en",
     'calculate("250*1.08") converts the question\'s amount of money at a rate no tool gave. '
     'Look it up: convert_currency[{"amount": 250, "from_currency": "EUR", '
     '"to_currency": "USD"}]'),
    ("100*5/9", "What is 100°F in Celsius?", "en",
     'calculate("100*5/9") uses the question\'s temperature as a plain number, without '
     "changing its scale. Call calculate again with this expression: (100 - 32) * 5 / 9"),
    ("30*1.8", "30 度是多少华氏度？", "zh",
     'calculate("30*1.8") 把问题里的温度当成了普通的数，没有换算温标。'
     "请用这个算式再调用一次 calculate：30 * 9 / 5 + 32"),
])
def test_a_figure_that_lost_its_unit_is_refused_with_the_way_to_write_it(
        expression: str, question: str, lang: str, refused: str) -> None:
    assert refusal(expression, question, lang, TOOLS, [RATE]) == refused


@pytest.mark.parametrize(("expression", "question"), [
    ("150*(1 - 20%)", "What is 20% off 150?"),
    ("150-150*0.2", "What is 20% off 150?"),
    ("150*0.8", "What is 20% off 150?"),
    ("150*0.2", "What is 20% of 150?"),  # of, not off: 30 is right
    ("350*7.2994", "350 美元等于多少人民币？"),  # the observed rate
    ("729.94/4", "Convert 100 US dollars to yuan and share it among 4 students"),
    ("300*0.85", "A jacket costs 300 yuan. How much is it after a 15% discount?"),
    ("100*2", "What is twice 100 dollars?"),  # no other currency: no conversion
    ("(100 - 32) * 5 / 9", "What is 100°F in Celsius?"),
    ("35-30", "It was 30°C, now 35°C: how much warmer is it?"),  # no other scale
])
def test_figures_with_their_units_kept_pass(expression: str, question: str) -> None:
    assert refusal(expression, question, "en", TOOLS, [RATE]) is None


async def test_the_discount_alone_is_refused_and_the_price_is_read(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings,
) -> None:
    fake_model.push(tool_reply(("calculate", {"expression": "150*0.2"})),
                    tool_reply(("calculate", {"expression": "150*(1 - 20%)"})),
                    text_reply("20% off 150 is 120."))
    native = settings.model_copy(update={"agent_mode": "native"})
    events = await events_of(react("What is 20% off 150?", client, native, [Calculate()]))
    refused, read = of(events, Observation)
    assert not refused.ok and refused.text.endswith(
        "Call calculate again with this expression: 150*(1 - 20%)")
    assert read.ok and read.text.endswith("= 120")
    assert of(events, Answer)[0].text == "20% off 150 is 120."
