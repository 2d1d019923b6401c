"""Tool calls a model wrote into its text instead of `tool_calls`.

Servers started without a tool-call parser pass Qwen/Hermes-style
`<tool_call>{"name": ..., "arguments": {...}}</tool_call>` through as content, and some
models write a bare `{"name": ..., "arguments": ...}` object. A tagged call is taken
whatever its name (the runner reports an unknown tool); a bare object only when it names
one of our tools, so an answer that merely shows such JSON is left alone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Container
from typing import Any

from agent.model import ToolCall
from agent.textmode import clean_input

_TAGGED = re.compile(r"<tool_call>\s*(?P<body>.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_BARE = re.compile(r"\{\s*\"(?:name|arguments|parameters)\"\s*:")
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
        for match in _BARE.finditer(content):
            if spans and match.start() < spans[-1][1]:
                continue  # inside a call already taken
            try:
                value, end = _DECODER.raw_decode(content, match.start())
            except json.JSONDecodeError:
                continue
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
        except json.JSONDecodeError:
            return None
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        return None
    args = value.get("arguments", value.get("parameters", {}))
    text = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
    return ToolCall(f"call_text_{index}", value["name"], text)


def _unfence(text: str) -> str:
    """What is left once the calls are cut out, without empty code fences."""
    return re.sub(r"```[\w-]*\s*```", "", text).strip()
