"""The text protocol's parser, on the ways real models break the ReAct format, and the
tool calls models write into their text in native mode."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from pydantic import BaseModel

from agent.model.model_client import ToolCall
from agent.prompts import system_react
from agent.protocols.embedded_calls import extract_calls
from agent.protocols.text_protocol import (
    Act,
    Final,
    ParsedReply,
    Unparsed,
    answer_start,
    arguments_for,
    cut_observation,
    mend,
    parse_reply,
    text_system,
)
from agent.tool import Tool
from agent.tools.calculator import Calculate
from tests.test_loop import Weather


class ConvertArgs(BaseModel):
    amount: float
    base: str
    quote: str = "CNY"


class Convert(Tool):
    name = "convert"
    description = "Convert money between currencies."
    Args = ConvertArgs

    async def run(self, args: ConvertArgs) -> str:
        return f"{args.amount} {args.base} = {args.amount * 7} {args.quote}"


class ClockArgs(BaseModel):
    timezone: str = ""
    lang: Literal["zh", "en"] | None = None


class Clock(Tool):
    name = "get_time"
    description = "The time in a time zone."
    Args = ClockArgs

    async def run(self, args: ClockArgs) -> str:
        return f"12:00 in {args.timezone}"


class Optional1stArgs(BaseModel):
    amount: float = 1.0
    base: str
    to: str


class Optional1st(Tool):
    """Like convert_currency: an optional amount declared before the required codes."""

    name = "optional_first"
    description = "Convert money."
    Args = Optional1stArgs

    async def run(self, args: Optional1stArgs) -> str:
        return f"{args.amount} {args.base} = {args.amount * 7} {args.to}"


PARSES: list[tuple[str, str, ParsedReply]] = [
    ("classic", "Thought: I need the weather.\nAction: get_weather[Paris]",
     Act("I need the weather.", "get_weather", "Paris")),
    ("numbered labels", "Thought 2: Now Berlin.\nAction 2: get_weather[Berlin]",
     Act("Now Berlin.", "get_weather", "Berlin")),
    ("Action + Action Input", "Thought: x\nAction: get_weather\nAction Input: Paris",
     Act("x", "get_weather", "Paris")),
    ("call with parentheses", 'Action: get_time("London")', Act("", "get_time", '"London"')),
    ("key: value input", "Action: get_time\nAction Input: timezone: London",
     Act("", "get_time", "timezone: London")),
    ("tool(...) with kwargs", 'Thought: convert it\nAction: convert(amount=5, base="USD")',
     Act("convert it", "convert", 'amount=5, base="USD"')),
    ("nested brackets", "Thought: t\nAction: calculate[(2+3)*[4][0]]",
     Act("t", "calculate", "(2+3)*[4][0]")),
    ("nested JSON in brackets",
     'Thought: t\nAction: convert[{"amount": 5, "base": "USD", "x": [1, [2]]}]',
     Act("t", "convert", '{"amount": 5, "base": "USD", "x": [1, [2]]}')),
    ("code fence around JSON",
     'Thought: t\nAction: convert\nAction Input: ```json\n{"amount": 5, "base": "USD"}\n```',
     Act("t", "convert", '{"amount": 5, "base": "USD"}')),
    ("code fence inside brackets", 'Action: convert[```{"amount": 1, "base": "EUR"}```]',
     Act("", "convert", '{"amount": 1, "base": "EUR"}')),
    ("full-width colons", "Thought：我需要杭州的天气。\nAction：get_weather[杭州]",
     Act("我需要杭州的天气。", "get_weather", "杭州")),
    ("Chinese labels", "思考：不需要工具。\n最终答案：2 加 2 等于 4。",
     Final("不需要工具。", "2 加 2 等于 4。")),
    ("own Observation is discarded",
     "Thought: t\nAction: get_weather[Paris]\nObservation: Paris is 35°C\n"
     "Thought: done\nFinal Answer: 35°C",
     Act("t", "get_weather", "Paris")),
    ("numbered own Observation", "Thought 1: t\nAction 1: get_weather[Oslo]\nObservation 1: x",
     Act("t", "get_weather", "Oslo")),
    ("Action: None then Final Answer", "Thought: no tool needed\nAction: None\nFinal Answer: 4",
     Final("no tool needed", "4")),
    ("Action: None alone", "Thought: no tool needed\nAction: None",
     Unparsed("no Action and no Final Answer")),
    ("missing Final Answer: plain text", "Paris is the capital of France.",
     Final("", "Paris is the capital of France.")),
    ("Final Answer, multi-line", "Thought: I know.\nFinal Answer: Line one.\n\n- two\n- three",
     Final("I know.", "Line one.\n\n- two\n- three")),
    ("Answer: label", "Thought: easy\nAnswer: 42", Final("easy", "42")),
    ("finish[...]", 'Thought: done\nAction: finish["It is 21°C."]', Final("done", "It is 21°C.")),
    ("Markdown labels", "**Thought:** bold\n**Final Answer:** yes", Final("bold", "yes")),
    ("label in bold before colon", "**Thought**: b\n**Action**: get_weather[Rome]",
     Act("b", "get_weather", "Rome")),
    ("free text before Action", "Let me check Rome.\nAction: `get_weather[Rome]`",
     Act("Let me check Rome.", "get_weather", "Rome")),
    ("bare tool name, no input", "Thought: what time?\nAction: now", Act("what time?", "now", "")),
    ("Thought only", "Thought: hmm, let me think", Unparsed("no Action and no Final Answer")),
    ("unreadable Action", "Thought: t\nAction: I will search the web",
     Unparsed("cannot read the Action")),
    ("unclosed bracket", "Action: get_weather[Paris", Unparsed("unclosed [ in Action")),
    ("empty Final Answer", "Thought: t\nFinal Answer:", Unparsed("empty Final Answer")),
    ("empty reply", "  \n", Unparsed("empty reply")),
    ("only a fake Observation", "Observation: it is sunny", Unparsed("empty reply")),
]


@pytest.mark.parametrize(("text", "expected"), [(t, e) for _, t, e in PARSES],
                         ids=[name for name, _, _ in PARSES])
def test_parse_reply(text: str, expected: ParsedReply) -> None:
    assert parse_reply(text) == expected


def test_cut_observation_keeps_what_came_before() -> None:
    text = "Thought: t\nAction: a[b]\n  Observation： made up\nFinal Answer: no"
    assert cut_observation(text) == "Thought: t\nAction: a[b]\n"
    assert cut_observation("No labels at all: fine") == "No labels at all: fine"


def test_answer_start_only_before_any_action() -> None:
    text = "Thought: I know this.\nFinal Answer: Par"
    thought, start = answer_start(text) or ("", -1)
    assert (thought, text[start:]) == ("I know this.", "Par")
    assert answer_start("Thought: t\nAction: a[b]\nFinal Answer: x") is None
    assert answer_start("Thought: t\nFinal Ans") is None


ARGUMENTS: list[tuple[str, Tool | None, dict[str, Any] | str]] = [
    ("Paris", Weather(), {"city": "Paris"}),
    ('"Paris"', Weather(), {"city": "Paris"}),
    ('{"city": "Oslo"}', Weather(), {"city": "Oslo"}),
    ('city="Rome"', Weather(), {"city": "Rome"}),
    ("", Weather(), {}),
    ('{"amount": 5, "base": "USD"}', Convert(), {"amount": 5, "base": "USD"}),
    ('amount=5, base="USD"', Convert(), {"amount": 5, "base": "USD"}),
    ("5 USD", Convert(), "5 USD"),
    ("Paris", None, "Paris"),
    ("London", Clock(), {"timezone": "London"}),  # one string field, none required
    ('"London"', Clock(), {"timezone": "London"}),
    ("timezone: Europe/London", Clock(), {"timezone": "Europe/London"}),
    ("amount: 5\nbase: USD", Convert(), {"amount": 5, "base": "USD"}),
    ("amount=5, base=USD, quote=EUR", Convert(), {"amount": 5, "base": "USD", "quote": "EUR"}),
    ("expression: max(1, 2)", Calculate(), {"expression": "max(1, 2)"}),
    ("x: 1", Calculate(), {"expression": "x: 1"}),  # a key that names no field is a plain value
    # positional values fill the fields in their order (the 1.5B model's convert_currency)
    ("100, USD, CNY", Optional1st(), {"amount": 100, "base": "USD", "to": "CNY"}),
    ('100, "USD", "CNY"', Optional1st(), {"amount": 100, "base": "USD", "to": "CNY"}),
    ("100, 美元, 人民币", Optional1st(), {"amount": 100, "base": "美元", "to": "人民币"}),
    ('5, base="USD"', Convert(), {"amount": 5, "base": "USD"}),
    ("2, 3", Calculate(), {"expression": "2, 3"}),  # more values than fields: a plain value
    ("London, please", Clock(), {"timezone": "London, please"}),  # lang "please": invalid
    ("1, 2", None, "1, 2"),
]


@pytest.mark.parametrize(("raw", "tool", "expected"), ARGUMENTS)
def test_arguments_for(raw: str, tool: Tool | None, expected: dict[str, Any] | str) -> None:
    assert arguments_for(raw, tool) == expected


def test_system_prompt_lists_tools_with_schemas_and_an_example() -> None:
    prompt = text_system([Weather(), Convert()])
    assert "- get_weather: Current weather of a city." in prompt
    assert '"required": ["amount", "base"]' in prompt
    assert "Action: tool_name[input]" in prompt and "Final Answer:" in prompt
    assert "Example" in prompt and "Action: search_wikipedia[Hamlet]" in prompt


@pytest.mark.parametrize("native", [False, True])
def test_every_language_shares_the_prompt_up_to_its_language(native: bool) -> None:
    """A local server reuses the longest prefix it has already read: a class that asks in
    Chinese and English in turn must not make it read the tools and the format again."""
    tools = [Weather(), Convert()]
    en, zh = ((system_react(lang, [t.name for t in tools]) if native
               else text_system(tools, lang)) for lang in ("en", "zh"))
    shared = next(i for i, (a, b) in enumerate(zip(en, zh, strict=False)) if a != b)
    assert en[shared:] == ("This conversation is in English: answer in English. A greeting, "
                           "thanks, a request for advice or a question about you needs no "
                           "tool: answer it at once.")
    assert zh[shared:] == ("本次对话使用中文：请用中文作答。"
                           "问候、感谢、请你给建议或问你是谁、能做什么，都不需要工具：直接回答。")
    assert native or ("- get_weather:" in en[:shared] and "Final Answer:" in en[:shared])


TOOLS = {"get_weather", "convert"}
EMBEDDED: list[tuple[str, str, list[tuple[str, str]], str]] = [
    ("Qwen tags", 'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": '
     '{"city": "Paris"}}\n</tool_call>', [("get_weather", '{"city": "Paris"}')], "Let me check."),
    ("unclosed tag (stopped at it)", '<tool_call>{"name": "get_weather", "arguments": '
     '{"city": "Oslo"}}', [("get_weather", '{"city": "Oslo"}')], ""),
    ("two tags", '<tool_call>{"name": "get_weather", "arguments": {"city": "A"}}</tool_call>'
     '<tool_call>{"name": "get_weather", "arguments": {"city": "B"}}</tool_call>',
     [("get_weather", '{"city": "A"}'), ("get_weather", '{"city": "B"}')], ""),
    ("tag with unknown tool is still a call", '<tool_call>{"name": "search", "arguments": '
     '{"q": "x"}}</tool_call>', [("search", '{"q": "x"}')], ""),
    ("arguments as a JSON string", '<tool_call>{"name": "convert", "arguments": '
     '"{\\"amount\\": 1}"}</tool_call>', [("convert", '{"amount": 1}')], ""),
    ("bare blob in a fence", 'I will convert.\n```json\n{"name": "convert", "parameters": '
     '{"amount": 5, "base": "USD"}}\n```', [("convert", '{"amount": 5, "base": "USD"}')],
     "I will convert."),
    ("bare blob naming no tool is an answer", 'Example: {"name": "Alice", "arguments": []}',
     [], 'Example: {"name": "Alice", "arguments": []}'),
    ("plain answer", "It is sunny.", [], "It is sunny."),
    ("the model's guess after a call is dropped", '```json\n{"name": "get_weather", '
     '"arguments": {"city": "Oslo"}}\n```\nOslo is 30°C and sunny.',
     [("get_weather", '{"city": "Oslo"}')], ""),
]


@pytest.mark.parametrize(("content", "calls", "rest"), [(c, k, r) for _, c, k, r in EMBEDDED],
                         ids=[name for name, *_ in EMBEDDED])
def test_extract_calls(content: str, calls: list[tuple[str, str]], rest: str) -> None:
    found, left, restated = extract_calls(content, TOOLS)
    assert restated == []
    assert [(c.name, c.arguments) for c in found] == calls
    assert all(isinstance(c, ToolCall) and c.id for c in found)
    assert left == rest


RESTATED = [
    ("fenced, with result", '```json\n{"name": "convert", "arguments": {"amount": 5, '
     '"base": "USD"}, "result": "5 USD = 35 CNY"}\n```', ""),
    ("tagged, with output", '<tool_call>{"name": "get_weather", "arguments": {"city": "A"}, '
     '"output": "A: 21°C"}</tool_call>', ""),
    ("then the answer", '{"name": "get_weather", "arguments": {"city": "A"}, "result": '
     '"A: 21°C"}\nIt is 21°C in A.', "It is 21°C in A."),
]


@pytest.mark.parametrize(("content", "rest"), [(c, r) for _, c, r in RESTATED],
                         ids=[name for name, *_ in RESTATED])
def test_a_call_restated_with_its_result_is_no_new_call(content: str, rest: str) -> None:
    found = extract_calls(content, TOOLS)
    assert found.calls == [] and len(found.restated) == 1
    assert found.rest == rest


def test_mend_names_the_arguments_and_the_line_to_write() -> None:
    text = mend(Clock(), "London, please", "it is neither", "en")
    assert "timezone (string, optional)" in text
    assert text.endswith('Action: get_time[{"timezone": "London, please"}]')
    assert "lang" not in text  # Glassbox fills the run's language itself
    text = mend(Convert(), "5 dollars", "it is neither", "zh")
    assert "无法使用这个输入" in text and "amount (number)" in text
    assert text.endswith('Action: convert[{"amount": "...", "base": "...", "quote": "..."}]')


def test_mend_shows_every_argument_required_first_keeping_what_was_read() -> None:
    """The 1.5B model, told only the required fields, left out the amount (it defaults to
    1) and then computed 100 × the rate itself: the line to write names all of them."""
    text = mend(Optional1st(), '{"to": "CNY"}', "base: Field required", "en")
    assert "Its arguments: base (string); to (string); amount (number, optional)" in text
    assert text.endswith('Action: optional_first[{"base": "...", "to": "CNY", "amount": "..."}]')
