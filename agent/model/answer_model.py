"""A second model for the answer (LLM_ANSWER_MODEL): the rounds of thoughts and actions use
LLM_MODEL, and the final answer is written by the answer model from the question and the
whole chain. The reasoning model's own last words become that round's Thought (a later
Thought supersedes a draft answer, as agent/events.py says), and the Answer names the
model that wrote it."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent.events import Action, Answer, AnswerDelta, Event, Observation, Thought
from agent.model.model_client import ModelClient
from agent.model.streamed_round import answer_round
from agent.prompts import Turn, args_text, history_messages
from agent.run_task import RunStats
from agent.settings import AgentSettings
from agent.words import say

CHAIN_CHARS = 12000
"""The chain the answer model reads is cut to its last this many characters."""


def answer_client(settings: AgentSettings) -> ModelClient | None:
    """The answer model's client (a named endpoint, or its own endpoint and key when set),
    or None."""
    name = settings.answer_model
    if not name:
        return None
    point = settings.endpoints()[name]
    return ModelClient(settings.model_copy(update={
        "llm_model": point.model, "openai_base_url": point.base_url,
        "openai_api_key": point.api_key}), name=name)


class Chain:
    """The chain so far as plain text, for the answer model to read."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, event: Event) -> None:
        if isinstance(event, Thought) and event.text:
            self.lines.append(f"[{event.round}] Thought: {event.text}")
        elif isinstance(event, Action):
            self.lines.append(f"[{event.round}] Action: {event.tool}({args_text(event.arguments)})")
        elif isinstance(event, Observation):
            self.lines.append(f"[{event.round}] Observation: {event.text}")

    def text(self) -> str:
        joined = "\n".join(self.lines)
        return joined if len(joined) <= CHAIN_CHARS else "…" + joined[-CHAIN_CHARS:]


def _system(lang: str) -> str:
    return say(lang, "answer_system")


@dataclass
class AnswerWriter:
    """One run's answer model: what it needs besides the chain."""

    client: ModelClient
    question: str
    history: Sequence[Turn]
    lang: str
    history_chars: int
    chain: Chain = field(default_factory=lambda: Chain())

    async def write(self, drafts: Drafts, rnd: int, stats: RunStats) -> AsyncIterator[Event]:
        """The reasoning model's last words as round `rnd`'s Thought, then the answer
        model's answer, streamed; its Answer names the model."""
        yield drafts.as_thought(rnd)
        lang = self.lang
        chain, draft = self.chain.text(), drafts.answer
        user = say(lang, "answer_ask", question=self.question,
                   chain=chain or say(lang, "answer_no_chain"), draft=draft)
        messages: list[dict[str, Any]] = [{"role": "system", "content": _system(lang)},
                                          *history_messages(self.history, self.history_chars),
                                          {"role": "user", "content": user}]
        async for event in answer_round(self.client, messages, rnd, stats):
            if isinstance(event, Answer):
                event = dataclasses.replace(event, model=self.client.name)
            if isinstance(event, (AnswerDelta, Answer)):
                yield event


class Drafts:
    """A round's answer held back while the reasoning model writes it: it becomes the
    round's Thought when the answer model takes over."""

    def __init__(self) -> None:
        self.thought = ""
        self.answer = ""

    def hold(self, item: Event) -> bool:
        """Whether `item` is held back (a draft answer); Thoughts are noted and go on."""
        if isinstance(item, Thought):
            self.thought = item.text
            self.answer = ""
            return False
        if isinstance(item, AnswerDelta):
            return True
        if isinstance(item, Answer):
            self.answer = item.text
            return True
        return False

    def as_thought(self, rnd: int) -> Thought:
        text = "\n\n".join(part for part in (self.thought, self.answer) if part)
        return Thought(round=rnd, text=text)
