"""Reading a run's message as a class saw it: every state it showed (each send and edit the
fake Bot API accepted, in order), and the one rule over them all: no state shows a Thought
or an Answer that a later state contradicts (a later state may add, never take back).

Streams are scripted slowly (`slow`) so that the states in between reach the chat too.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from testkit.fakes.model import DashScope, sse
from testkit.fakes.server import Reply

_ROUND = re.compile(r"— (?:Round (\d+)|第 (\d+) 轮) —")
_THOUGHT = ("💭 Thought: ", "💭 思考：")
_ANSWER = ("💬 Answer", "💬 回答")
_ENDS = ("#", "⏱", "⏳", "❌", "⏹", "⚠️")


@dataclass
class State:
    """What one state of the message claims: each round's Thought and the Answer."""

    thoughts: dict[int, str] = field(default_factory=dict)
    answer: str = ""


def read(text: str) -> State:
    """The claims of one shown state (the chain open or folded: the fold only quotes)."""
    state = State()
    rnd = 0
    lines = text.split("\n")
    for i, line in enumerate(lines):
        found = _ROUND.search(line)
        if found:
            rnd = int(found[1] or found[2])
        for label in _THOUGHT:
            if line.startswith(label):
                state.thoughts[rnd] = line[len(label):].strip()
        if line.startswith(_ANSWER) and i + 1 < len(lines) and not state.answer:
            body = [part for part in lines[i + 1:] if part.strip()]
            first = next((part for part in body if not part.startswith(_ENDS)), "")
            state.answer = first.strip()
    return state


def assert_never_contradicted(versions: Sequence[str]) -> None:
    """A Thought or an Answer once shown stays, and only grows (a draft's last, unsettled
    characters aside); nothing is taken back."""
    states = [read(text) for text in versions]
    for i, earlier in enumerate(states):
        for later in states[i + 1:]:
            for rnd, thought in earlier.thoughts.items():
                assert rnd in later.thoughts, f"round {rnd}'s Thought was taken back"
                assert later.thoughts[rnd].startswith(_settled(thought)), (
                    f"round {rnd}'s Thought changed: {thought!r} → {later.thoughts[rnd]!r}")
            if earlier.answer:
                assert later.answer.startswith(_settled(earlier.answer)), (
                    f"the Answer changed: {earlier.answer!r} → {later.answer!r}")


def _settled(text: str) -> str:
    """A streamed text without its last few characters (a Markdown mark may still close)."""
    return text[:-3] if len(text) > 3 else ""


def slow(*, content: Sequence[str] = (), reasoning: Sequence[str] = (),
         calls: Sequence[tuple[str, dict[str, Any] | str]] = (), delay: float = 0.06) -> Reply:
    """One streamed completion in DashScope's format, a chunk every `delay` seconds: the
    reasoning pieces, the content pieces, then the tool calls (if any)."""
    ds = DashScope()
    chunks: list[dict[str, Any]] = []
    for piece in reasoning:
        chunks.append(ds.chunk({"content": None, "reasoning_content": piece,
                                "role": "assistant"}))
    for piece in content:
        chunks.append(ds.chunk({"content": piece, "role": "assistant"}))
    for index, (name, args) in enumerate(calls):
        raw = args if isinstance(args, str) else json.dumps(args)
        chunks.append(ds.chunk({"content": None, "tool_calls": [{
            "index": index, "id": f"call_{uuid.uuid4().hex[:22]}", "type": "function",
            "function": {"name": name, "arguments": raw}}], "role": "assistant"}))
    chunks.append(ds.chunk({}, finish="tool_calls" if calls else "stop"))
    chunks.append(ds.usage(60, 20))
    return sse(chunks, delay=delay)
