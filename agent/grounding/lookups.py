"""What a run's answer rests on: the figures no source holds, and the lookups that failed.

Wraps a run's steps. On the Answer it puts the figure ledger (what backs each figure of
the answer, by which rule: agent/grounding/backing.py) and the figures nothing backs; when a tool's
calls failed and none of that tool's later calls succeeded, Glassbox says in a Remark,
before the answer, what it could not look up, and which of the answer's figures were
therefore not looked up. When a run that looked things up answers a comparison naming a
side it never looked up (agent/grounding/sides.py), a Remark says that side rests on no observation.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Sequence
from typing import Protocol

from agent.events import Action, Answer, Event, Observation, Remark
from agent.grounding.backing import ledger, lent, unfounded
from agent.grounding.sides import not_looked_up
from agent.prompts import Turn, args_text
from agent.words import count, say

REMARK_KIND = "lookups_failed"
SIDE_REMARK_KIND = "side_not_looked_up"


class ReadPhotos(Protocol):
    """The photos a run gave the model (agent.model.photo_calls.GivenPhotos), as grounding
    sees them: `text` is the question with what Glassbox read from them, once the model's
    endpoint refused them, else None."""

    text: str | None


def lookups_failed_remark(lang: str, calls: Sequence[str], unfounded: Sequence[str]) -> str:
    """Which lookups failed; and only when the answer has figures no source holds (the
    grounding marks them), that those were not looked up: a remark judges no answer that
    nothing backs ("I could not find Atlantis" is no failure)."""
    sep = say(lang, "list_sep")
    text = say(lang, "remark_lookups_failed", calls=sep.join(calls))
    if unfounded:
        text += count(lang, "remark_not_looked_up", len(unfounded), figures=sep.join(unfounded))
    return text


async def grounded(steps: AsyncIterator[Event], question: str, history: Sequence[Turn],
                   lang: str, photos: ReadPhotos | None = None) -> AsyncIterator[Event]:
    """`steps`, with the Answer's unfounded figures listed and failed lookups noted. What
    Glassbox read from `photos` after the model's endpoint refused them backs figures as the
    question does, as it does when Glassbox read them first."""
    observations: list[str] = []
    actions: dict[str, Action] = {}
    failed: dict[str, list[str]] = {}  # tool -> its failed calls since its last success
    async for event in steps:
        if isinstance(event, Action):
            actions[event.call_id] = event
        elif isinstance(event, Observation):
            observations.append(lent(event.text, event.ok))
            if event.ok:
                failed.pop(event.tool, None)
            else:
                action = actions.get(event.call_id)
                call = f"{event.tool}({args_text(action.arguments) if action else ''})"
                if call not in failed.setdefault(event.tool, []):
                    failed[event.tool].append(call)
        elif isinstance(event, Answer):
            calls = [call for tool_calls in failed.values() for call in tool_calls]
            asked = photos.text if photos is not None and photos.text else question
            entries = ledger(event.text, observations, asked, history)
            event = dataclasses.replace(event, unfounded=unfounded(entries), ledger=entries)
            if calls:
                yield Remark(round=event.round, kind=REMARK_KIND,
                           text=lookups_failed_remark(lang, calls, event.unfounded))
            if actions:
                looked = [args_text(a.arguments) for a in actions.values()] + observations
                unseen = [name for name in not_looked_up(question, looked)
                          if name.lower() in event.text.lower()]
                if unseen:
                    yield Remark(round=event.round, kind=SIDE_REMARK_KIND, text=count(
                        lang, "remark_side_not_looked_up", len(unseen),
                        names=say(lang, "list_sep").join(unseen)))
        yield event
