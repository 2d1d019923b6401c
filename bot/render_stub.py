"""TEMPORARY stand-in for bot/render.py (helper "render"), so the bot runs end to end before
that lands. Same signatures; deleted when bot/render.py is merged."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Any

from agent.events import Action, Answer, AnswerDelta, Event, Observation, RunFinished, RunStarted
from agent.events import Thought as ThoughtEvent


@dataclass
class _Step:
    tool: str
    arguments: Any
    observation: str | None = None


@dataclass
class _Round:
    number: int
    thought: str = ""
    synthesized: bool = False
    steps: dict[str, _Step] = field(default_factory=dict)


@dataclass
class Transcript:
    """TEMPORARY stand-in for bot/transcript.py's Transcript (same fold, fewer details)."""

    question: str = ""
    rounds: list[_Round] = field(default_factory=list)
    answer: str = ""
    finished: RunFinished | None = None
    notice: str = ""

    def apply(self, event: Event) -> None:
        if isinstance(event, RunStarted):
            self.question = event.question
        elif isinstance(event, RunFinished):
            self.finished = event
        elif isinstance(event, Answer):
            self.answer = event.text
        elif isinstance(event, AnswerDelta):
            self.answer += event.text
        elif event.round:
            if not self.rounds or self.rounds[-1].number != event.round:
                self.rounds.append(_Round(event.round))
            view = self.rounds[-1]
            if isinstance(event, ThoughtEvent):
                view.thought, view.synthesized, self.answer = event.text, event.synthesized, ""
            elif isinstance(event, Action):
                view.steps[event.call_id] = _Step(event.tool, event.arguments)
            elif isinstance(event, Observation) and event.call_id in view.steps:
                view.steps[event.call_id].observation = event.text


def _lines(t: Transcript, lang: str) -> list[str]:
    out = [f"❓ {html.escape(t.question)}"]
    for view in t.rounds:
        heading = f"第 {view.number} 轮" if lang == "zh" else f"Round {view.number}"
        out.append(f"<b>{heading}</b>")
        if view.thought:
            out.append(f"💭 {html.escape(view.thought)}" + (" (auto)" if view.synthesized else ""))
        for step in view.steps.values():
            out.append(f"🔧 {html.escape(step.tool)}({html.escape(str(step.arguments))})")
            if step.observation is not None:
                out.append(f"👀 {html.escape(step.observation[:300])}")
    if t.answer:
        out.append(f"✅ {html.escape(t.answer)}")
    if t.finished is not None:
        f = t.finished
        out.append(f"<i>{f.status} · {f.duration_ms / 1000:.1f}s · {f.rounds} rounds · "
                   f"{f.usage.total_tokens} tokens {html.escape(f.reason)}</i>")
    if t.notice:
        out.append(f"<i>{html.escape(t.notice)}</i>")
    return out


def _pages(lines: list[str]) -> list[str]:
    pages, page = [], ""
    for line in lines:
        if page and len(page) + len(line) > 3500:
            pages.append(page)
            page = ""
        page = f"{page}\n{line}" if page else line
    return [*pages, page]


def render_run(t: Transcript, lang: str, *, live: bool = True) -> list[str]:
    return _pages(_lines(t, lang))


def render_compare(plain_t: Transcript, react_t: Transcript, lang: str, *,
                   live: bool = True) -> list[str]:
    return _pages(["<b>No tools</b>", *_lines(plain_t, lang), "<b>ReAct</b>",
                   *_lines(react_t, lang)])


def to_plain(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page))
