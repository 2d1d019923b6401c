"""Tool calls a model wrote into its text instead of `tool_calls`.

Servers started without a tool-call parser pass Qwen/Hermes-style
`<tool_call>{"name": ..., "arguments": {...}}</tool_call>` through as content, and some
models write a bare `{"name": ..., "arguments": ...}` object. A tagged call is taken
whatever its name (the runner reports an unknown tool); a bare object only when it names
one of our tools, so an answer that merely shows such JSON is left alone.

Small models, given a tool's result, often write the call again with a `"result"` key
added: such a restatement is not a new call, and it is cut from the text like a call.
What a model writes after a call is its guess at the result, never a fact: it is dropped.

The content is the model's, so reading it stays linear: no regex here can backtrack over
what it read, a bare object is not looked for again inside JSON that a failed decode already
read, and JSON nested past Python's recursion limit is not a call.
"""

from __future__ import annotations

import json
import re
from bisect import bisect
from collections.abc import Container, Iterable
from itertools import islice
from typing import Any, NamedTuple

from agent.model.model_client import ToolCall
from agent.protocols.text_protocol import clean_input

_TAGGED = re.compile(r"<tool_call>(?P<body>.*?)(?:</tool_call>|\Z)", re.DOTALL)
_BARE = re.compile(r"\{\s*+\"(?:name|arguments|parameters)\"\s*+:")
_EMPTY_FENCE = re.compile(r"```[\w-]*+\s*+```")
_CLOSING_FENCE = re.compile(r"\s*+```")
_DECODER = json.JSONDecoder()
_RESULT_KEYS = ("result", "results", "output", "observation", "response", "return")


class Embedded(NamedTuple):
    """What a model's text holds: the calls in it, its text without them (and without what
    follows the last call), and the calls it restated with a result."""

    calls: list[ToolCall]
    rest: str
    restated: list[ToolCall]


def extract_calls(content: str, tools: Container[str]) -> Embedded:
    """The calls written in `content`, and the text around them."""
    calls: list[ToolCall] = []
    restated: list[ToolCall] = []
    spans: list[tuple[int, int]] = []
    for match in _TAGGED.finditer(content):
        try:
            value = json.loads(clean_input(match.group("body")))
        except (json.JSONDecodeError, RecursionError):
            continue
        call = _call(value, len(calls))
        if call is not None:
            (restated if _has_result(value) else calls).append(call)
            spans.append(match.span())
    if not spans:
        read = 0  # how far the last failed decode read (reading it again is quadratic)
        for match in _BARE.finditer(content):
            if match.start() < max(read, spans[-1][1] if spans else 0):
                continue  # inside a call already taken, or in JSON that did not decode
            try:
                value, end = _DECODER.raw_decode(content, match.start())
            except json.JSONDecodeError as exc:
                read = exc.pos
                continue
            except RecursionError:
                break  # nested deeper than any call, and so would be all that follows
            call = _call(value, len(calls))
            if call is not None and call.name in tools:
                (restated if _has_result(value) else calls).append(call)
                spans.append((match.start(), end))
    rest, last = [], 0
    for start, end in spans:
        rest.append(content[last:start])
        last = end
    tail = content[last:]
    if calls:  # after a call the model guesses its result; only a fence closing it stays
        closing = _CLOSING_FENCE.match(tail)
        tail = closing.group() if closing else ""
    rest.append(tail)  # after a restatement the model may well answer
    return Embedded(calls, _unfence("".join(rest)), restated)


def named_as_code(content: str, tools: Iterable[str]) -> str:
    """The first tool that `content` names as code (`` `calculate` `` or `calculate(`), or
    "": a model that writes "I would use the `calculate` function" in an answer talked
    about a call instead of making it. Plain substring search: linear."""
    for name in tools:
        if f"`{name}`" in content or f"{name}(" in content:
            return name
    return ""


_ABOUT_TOOLS = ("tool", "工具")


def asks_about_tools(question: str, tools: Iterable[str]) -> bool:
    """Whether `question` is about the tools themselves ("Which tools do you have?", "What
    does calculate do?"): an answer naming one then answers it, and describes no call it
    should have made. Plain substring search: linear."""
    lowered = question.lower()
    return any(word in lowered for word in (*_ABOUT_TOOLS, *tools))


_NUMBER = re.compile(r"\d++(?:[.,]\d++)*+")
_FENCE = "```"


def computes_in_code(content: str, question: str) -> bool:
    """Whether `content` holds a code block that works with two or more of the question's
    numbers: a small coder model answers "What is 123456789 × 987654321?" with a Python
    snippet instead of a call to `calculate`. An answer with code for anything else, or
    code that does not use the question's figures, is left alone. Linear: the fences are
    found with `str.find`, the numbers with one pass of a possessive pattern."""
    wanted = {m.group().replace(",", "") for m in islice(_NUMBER.finditer(question), 32)}
    if len(wanted) < 2:
        return False
    fences = []
    at = content.find(_FENCE)
    while at >= 0:
        fences.append(at)
        at = content.find(_FENCE, at + len(_FENCE))
    used: dict[int, set[str]] = {}
    for match in _NUMBER.finditer(content, fences[0] if fences else len(content)):
        number = match.group().replace(",", "")
        block = bisect(fences, match.start())  # fences before it: odd inside a block
        if number in wanted and block % 2:
            found = used.setdefault(block, set())
            found.add(number)
            if len(found) >= 2:
                return True
    return False


def _has_result(value: Any) -> bool:
    """Whether a decoded call object carries a result beside name and arguments."""
    return isinstance(value, dict) and any(key in value for key in _RESULT_KEYS)


def _call(value: Any, index: int) -> ToolCall | None:
    """The call a decoded JSON value names, if it is one."""
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        return None
    args = value.get("arguments", value.get("parameters", {}))
    text = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
    return ToolCall(f"call_text_{index}", value["name"], text)


def _unfence(text: str) -> str:
    """What is left once the calls are cut out, without empty code fences."""
    return _EMPTY_FENCE.sub("", text).strip()
