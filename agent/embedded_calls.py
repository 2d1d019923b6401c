"""Tool calls a model wrote into its text instead of `tool_calls`.

Servers started without a tool-call parser pass Qwen/Hermes-style
`<tool_call>{"name": ..., "arguments": {...}}</tool_call>` through as content, and some
models write a bare `{"name": ..., "arguments": ...}` object. A tagged call is taken
whatever its name (the runner reports an unknown tool); a bare object only when it names
one of our tools, so an answer that merely shows such JSON is left alone.

The content is the model's, so reading it stays linear: no regex here can backtrack over
what it read, a bare object is not looked for again inside JSON that a failed decode already
read, and JSON nested past Python's recursion limit is not a call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Container
from typing import Any

from agent.model import ToolCall
from agent.textmode import clean_input

_TAGGED = re.compile(r"<tool_call>(?P<body>.*?)(?:</tool_call>|\Z)", re.DOTALL)
_BARE = re.compile(r"\{\s*+\"(?:name|arguments|parameters)\"\s*+:")
_EMPTY_FENCE = re.compile(r"```[\w-]*+\s*+```")
_DECODER = json.JSONDecoder()


def extract_calls(content: str, tools: Container[str]) -> tuple[list[ToolCall], str]:
    """The calls written in `content`, and the text around them."""
    calls: list[ToolCall] = []
    spans: list[tuple[int, int]] = []
    for match in _TAGGED.finditer(content):
        call = _call(clean_input(match.group("body")), len(calls))
        if call is not None:
            calls.append(call)
            spans.append(match.span())
    if not calls:
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
                calls.append(call)
                spans.append((match.start(), end))
    rest, last = [], 0
    for start, end in spans:
        rest.append(content[last:start])
        last = end
    rest.append(content[last:])
    return calls, _unfence("".join(rest))


def _call(value: Any, index: int) -> ToolCall | None:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (json.JSONDecodeError, RecursionError):
            return None
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        return None
    args = value.get("arguments", value.get("parameters", {}))
    text = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
    return ToolCall(f"call_text_{index}", value["name"], text)


def _unfence(text: str) -> str:
    """What is left once the calls are cut out, without empty code fences."""
    return _EMPTY_FENCE.sub("", text).strip()
