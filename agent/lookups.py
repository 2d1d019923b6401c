"""What a run's answer rests on: the figures no source holds, and the lookups that failed.

Wraps a run's steps. On the Answer it puts the figure ledger (what backs each figure of
the answer, by which rule: agent/grounding.py) and the figures nothing backs; when a tool's
calls failed and none of that tool's later calls succeeded, Glassbox says in a Note,
before the answer, what it could not look up: the answer does not rest on it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Sequence

from agent.events import Action, Answer, Event, Note, Observation
from agent.grounding import ledger, unfounded
from agent.lang import pick
from agent.prompts import Turn, args_text

NOTE_KIND = "lookups_failed"


def lookups_failed_note(lang: str, calls: Sequence[str]) -> str:
    joined = "、".join(calls) if lang == "zh" else ", ".join(calls)
    return pick(
        lang,
        f"这些查询失败了：{joined}。下面的回答并不基于它们；其中相关的数字并非查询所得。",
        f"These lookups failed: {joined}. The answer below does not rest on them; any "
        "figure it gives for them was not looked up.",
    )


async def grounded(steps: AsyncIterator[Event], question: str, history: Sequence[Turn],
                   lang: str) -> AsyncIterator[Event]:
    """`steps`, with the Answer's unfounded figures listed and failed lookups noted."""
    observations: list[str] = []
    actions: dict[str, Action] = {}
    failed: dict[str, list[str]] = {}  # tool -> its failed calls since its last success
    async for event in steps:
        if isinstance(event, Action):
            actions[event.call_id] = event
        elif isinstance(event, Observation):
            observations.append(event.text)
            if event.ok:
                failed.pop(event.tool, None)
            else:
                action = actions.get(event.call_id)
                call = f"{event.tool}({args_text(action.arguments) if action else ''})"
                if call not in failed.setdefault(event.tool, []):
                    failed[event.tool].append(call)
        elif isinstance(event, Answer):
            calls = [call for tool_calls in failed.values() for call in tool_calls]
            if calls:
                yield Note(round=event.round, kind=NOTE_KIND,
                           text=lookups_failed_note(lang, calls))
            entries = ledger(event.text, observations, question, history)
            event = dataclasses.replace(event, unfounded=unfounded(entries), ledger=entries)
        yield event
