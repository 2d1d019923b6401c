"""The protocol's own text is never shown as a thought or as the answer.

Whatever a model writes, an `Action: tool[input]` line or a chat template's tag
(`<tools></tools>`, which a small model copies from the template's "within <tools></tools>
XML tags") is protocol, not conversation, and so is the Thought label a reply opens with.
Wraps a run's steps: a Thought loses such text (and is dropped when nothing else is left),
and so does the Answer (a forced last round answered "Thought: I need to calculate ..."
shows the model's words, unlabelled, as the answer they stand as; an answer the text
protocol could not read keeps its labels, as it is shown as the model's raw text). An Answer that is
nothing but protocol (a forced last round answered with one more call) is not shown:
Glassbox says in a Remark that the model asked for another call instead of answering, and
the run ends as an error whose reason says so, in the run's language.

While a round's answer streams, its deltas are held as long as its first line may still be
protocol (empty, a tag, a label); the Answer then says what it is.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import AsyncIterator

from agent.events import Answer, AnswerDelta, Event, Remark, RunFinished, Thought
from agent.protocols.text_protocol import protocol_free, unlabelled
from agent.words import say

REMARK_KIND = "call_as_answer"
ERROR_KIND = "call_as_answer"
"""RunFinished.error_kind of a run whose last reply was a call, not an answer."""

_MAY_BE_PROTOCOL = re.compile(
    r"[ \t>*#_`-]*+(?:<|(?:th|tho|thou|thoug|though|thought|ac|act|acti|actio|action)"
    r"(?:[ \t]|$|[:：*_])|思|行|动)", re.IGNORECASE)
"""A first line that may still turn out to be a label or a tag (read once per answer)."""


def _first_line_open(text: str) -> bool:
    """Whether the streamed `text` may still be protocol: its first line is unfinished or
    starts like a tag or a Thought/Action label."""
    stripped = text.lstrip()
    if not stripped:
        return True
    line, newline, _ = stripped.partition("\n")
    if _MAY_BE_PROTOCOL.match(line):
        return True
    return not newline and len(line) < len("Thought")


async def no_protocol_shown(steps: AsyncIterator[Event], lang: str) -> AsyncIterator[Event]:
    """`steps`, without protocol text in any Thought or Answer."""
    held: list[AnswerDelta] = []
    streamed = ""
    holding = True
    ended_without_answer = False
    async for event in steps:
        if isinstance(event, AnswerDelta):
            if holding:
                held.append(event)
                streamed += event.text
                holding = _first_line_open(streamed)
                if holding:
                    continue
                event = dataclasses.replace(held[0], text=streamed)
                held.clear()
            yield event
            continue
        if isinstance(event, Thought):
            text = unlabelled(protocol_free(event.text))
            if text:
                yield dataclasses.replace(event, text=text) if text != event.text else event
            continue
        if isinstance(event, Answer):
            held.clear()
            streamed, holding = "", True
            # An unparsed answer is shown as the model wrote it (and marked so): its labels stay.
            text = protocol_free(event.text)
            if not event.unparsed:
                text = unlabelled(text)
            if not text:
                ended_without_answer = True
                yield Remark(round=event.round, kind=REMARK_KIND,
                           text=say(lang, "call_as_answer_remark"))
                continue
            event = dataclasses.replace(event, text=text) if text != event.text else event
        elif isinstance(event, RunFinished) and ended_without_answer:
            event = dataclasses.replace(event, status="error", error_kind=ERROR_KIND,
                                        reason=say(lang, "call_as_answer_reason"))
        yield event
