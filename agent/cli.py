"""`python -m agent "question"`: the chain live in a terminal, or as JSON lines."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from collections.abc import AsyncIterator
from typing import TextIO

from agent.classroom.compare_judge import ToolUses, judge
from agent.classroom.confirm import Gate
from agent.classroom.remarks import remark_label
from agent.classroom.summary import difference, figures
from agent.events import (
    Action,
    Answer,
    AnswerDelta,
    Decided,
    Delta,
    Event,
    Judgement,
    Observation,
    Plan,
    Proposed,
    Remark,
    RunFinished,
    RunStarted,
    Thought,
    ThoughtDelta,
)
from agent.grounding.backing import unfounded
from agent.lang import detect_lang, run_lang
from agent.loop import run_plain, run_react
from agent.model.memory_keeper import open_keeper
from agent.model.model_clients import ModelClients
from agent.prompts import args_text
from agent.settings import AgentSettings, SettingsError, load_settings
from agent.terminal_confirm import TerminalConfirmer
from agent.tools import Toolbox
from agent.words import count, say

COLORS = {"thought": "36", "action": "33", "ok": "32", "failed": "31", "answer": "1",
          "dim": "2", "heading": "35"}


class Printer:
    """Writes events as they come; `lane` prefixes lines when two runs share the screen.

    The same rules as every front end: text whose role is not known yet streams as neutral
    ✍️ text and is labelled (↑ 💭 Thought or ↑ 💬 Answer) once it is known; Glassbox's own
    notes are labelled as Glassbox's; 💬 marks the answer, ✅/⚠️ only whether a call worked.
    """

    def __init__(self, out: TextIO, *, as_json: bool, color: bool, lang: str) -> None:
        self.out, self.as_json, self.color, self.lang = out, as_json, color, lang
        self.streaming: dict[str, str] = {}
        """What each lane is streaming now: `thought`, `text` or `answer`."""
        self.streamed: dict[str, set[str]] = {}
        """What each lane has streamed in its current round and not yet labelled."""
        self.heading: dict[str, int] = {}
        """The round each lane last printed a heading for."""
        self.react: set[str] = set()

    def paint(self, style: str, text: str) -> str:
        return f"\033[{COLORS[style]}m{text}\033[0m" if self.color else text

    def line(self, text: str, lane: str) -> None:
        prefix = self.paint("dim", f"[{lane}] ") if lane else ""
        self.out.write(prefix + text + "\n")

    def show(self, event: Event, lane: str = "", live_answer: bool = True) -> None:
        if self.as_json:
            data = event.to_dict()
            if lane:
                data["lane"] = lane
            self.out.write(json.dumps(data, ensure_ascii=False) + "\n")
            self.out.flush()
            return
        if isinstance(event, RunStarted):
            if event.mode == "react":
                self.react.add(lane)
            models = f"{event.model} → {event.answer_model}" if event.answer_model else event.model
            self.line(self.paint("dim", f"{models} · {event.mode}"), lane)
        elif isinstance(event, Delta):
            if live_answer:
                self._stream(event, lane)
        else:
            self._stop_stream(lane)
            self._round_heading(event, lane)
            self._show_step(event, lane, self.streamed.get(lane, set()))
            if isinstance(event, Thought | Answer):
                self.streamed.pop(lane, None)
        self.out.flush()

    def _stream(self, event: Delta, lane: str) -> None:
        kind = ("thought" if isinstance(event, ThoughtDelta) else
                "answer" if isinstance(event, AnswerDelta) else "text")
        if self.streaming.get(lane) != kind:
            self._stop_stream(lane)
            self._round_heading(event, lane)
            self.streaming[lane] = kind
            label = {"thought": say(self.lang, "cli_thought"),
                     "answer": say(self.lang, "cli_answer"),
                     "text": "✍️ "}[kind]
            self.out.write(self.paint("answer" if kind == "answer" else "thought", label))
            self.streamed.setdefault(lane, set()).add(kind)
        self.out.write(event.text)

    def _stop_stream(self, lane: str) -> None:
        """End the streamed line of `lane`, if any."""
        if self.streaming.pop(lane, ""):
            self.out.write("\n")

    def _round_heading(self, event: Event, lane: str) -> None:
        if lane not in self.react or event.round < 1 or self.heading.get(lane) == event.round:
            return
        if isinstance(event, RunFinished):
            return
        self.heading[lane] = event.round
        heading = say(self.lang, "cli_round", round=event.round)
        self.line(self.paint("heading", heading), lane)

    def _show_step(self, event: Event, lane: str, streamed: set[str]) -> None:
        if isinstance(event, Plan):
            self.line(self.paint("heading", say(self.lang, "cli_plan")), lane)
            for number, action in enumerate(event.actions, 1):
                why = f" — {action.why}" if action.why else ""
                self.line(self.paint("dim", f"  {number}. {action.tool}{why}"), lane)
        elif isinstance(event, Remark) or (isinstance(event, Thought) and event.synthesized):
            label = say(self.lang, "cli_remark", label=remark_label(self.lang))
            self.line(self.paint("dim", label + event.text), lane)
        elif isinstance(event, Thought):
            if "text" in streamed:  # the neutral text above was (part of) this thought
                self.line(self.paint("thought", say(self.lang, "cli_thought_above")), lane)
            elif "thought" not in streamed:
                self.line(self.paint("thought", say(self.lang, "cli_thought") + event.text),
                          lane)
        elif isinstance(event, Proposed):
            self.line(self.paint("action", say(self.lang, "cli_proposed")
                                 + f"{event.tool}({args_text(event.arguments)})"), lane)
        elif isinstance(event, Decided):
            self.line(self.paint("dim", decided_line(event, self.lang)), lane)
        elif isinstance(event, Action):
            self.line(self.paint("action", f"🔧 {event.tool}({args_text(event.arguments)})"), lane)
        elif isinstance(event, Observation):
            style = "ok" if event.ok else "failed"
            mark = "✅" if event.ok else "⚠️"
            label = say(self.lang, "cli_observation")
            self.line(self.paint(style, f"{label} {mark} {event.text}  ({event.duration_ms} ms)"),
                      lane)
        elif isinstance(event, Answer):
            if "text" in streamed:  # the neutral text above was the answer
                self.line(self.paint("answer", say(self.lang, "cli_answer_above")), lane)
            elif "answer" not in streamed:
                self.line(self.paint("answer", say(self.lang, "cli_answer")) + event.text, lane)
            # The answer has streamed by unmarked: the figures nothing backs follow it.
            if unbacked := unfounded(event.ledger):
                self.line(self.paint("dim", say(self.lang, "cli_unbacked",
                                                figures=", ".join(unbacked))), lane)
        elif isinstance(event, Judgement):
            label = say(self.lang, "cli_judgement")
            self.line(self.paint("heading", label + event.text), "")
        elif isinstance(event, RunFinished):
            text = figures(event, self.lang)
            if event.tool_calls:
                text += " · " + count(self.lang, "figures_tool_calls", event.tool_calls)
            if event.status != "done":
                text = f"{event.status}: {event.reason} · {text}" if event.reason else (
                    f"{event.status} · {text}")
            self.line(self.paint("dim" if event.status == "done" else "failed", f"⏱ {text}"),
                      lane)


def decided_line(event: Decided, lang: str) -> str:
    by = event.by or say(lang, "decided_nobody")
    if event.decision == "edit":
        return say(lang, "decided_edit", by=by) + args_text(event.arguments or {})
    return say(lang, f"decided_{event.decision}", by=by)


async def _drain(stream: AsyncIterator[Event], printer: Printer, lane: str = "",
                 live_answer: bool = True, uses: ToolUses | None = None,
                 ) -> tuple[RunFinished, str]:
    """The run's end and its answer ("" if none), each event printed as it comes (and
    counted in `uses`)."""
    last: RunFinished | None = None
    answer = ""
    async for event in stream:
        printer.show(event, lane, live_answer)
        if uses is not None:
            uses.add(event)
        if isinstance(event, RunFinished):
            last = event
        elif isinstance(event, Answer):
            answer = event.text
    assert last is not None  # drive() always ends a run with RunFinished
    return last, answer


async def _main(args: argparse.Namespace, settings: AgentSettings) -> int:
    question = " ".join(args.question).strip()
    lang = run_lang(question, detect_lang(question))
    color = not args.json and not args.no_color and sys.stdout.isatty() and (
        "NO_COLOR" not in os.environ)
    printer = Printer(sys.stdout, as_json=args.json, color=color, lang=lang)
    clients = ModelClients(settings)
    client, answers = clients.default, clients.answer
    keeper = await open_keeper()
    client.memory = await keeper.load(client.memory.endpoint)
    toolbox = await Toolbox.open(settings)
    try:
        confirm = settings.agent_confirm_tools
        gate = Gate(TerminalConfirmer(lang), every=args.walkthrough, tools=confirm) if (
            args.walkthrough or confirm) else None

        def react() -> AsyncIterator[Event]:
            return run_react(question, client=client, settings=settings, tools=toolbox.tools,
                             gate=gate, answer_client=answers, lang=lang, source="terminal")

        def plain() -> AsyncIterator[Event]:
            return run_plain(question, client=answers or client, settings=settings, lang=lang)

        if args.compare:
            uses = ToolUses(toolbox.tools)
            (plain_done, plain_answer), (react_done, react_answer) = await asyncio.gather(
                _drain(plain(), printer, "plain", live_answer=False),
                _drain(react(), printer, "react", live_answer=False, uses=uses))
            if plain_done.status == react_done.status == "done" and plain_answer and (
                    react_answer):
                judged = await judge(question, plain_answer, react_answer, client=client,
                                     lang=lang, calls=uses.calls)
                if judged is not None:
                    printer.show(judged, "react")
            if not args.json:
                printer.line(printer.paint("heading", difference(plain_done, react_done, lang)),
                             "")
            results = [plain_done, react_done]
        else:
            results = [(await _drain(plain() if args.plain else react(), printer))[0]]
    finally:
        await keeper.save(client.memory)
        await keeper.close()
        await toolbox.aclose()
        await clients.close()
    return 1 if any(r.status == "error" for r in results) else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m agent", description="Ask Glassbox a question; watch the ReAct chain.")
    parser.add_argument("question", nargs="+", help="the question")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--plain", action="store_true", help="the model alone, no tools")
    mode.add_argument("--compare", action="store_true", help="plain and ReAct at once")
    parser.add_argument("--step", action="store_true", dest="walkthrough",
                        help="pause before every action: run, edit, skip or stop it")
    parser.add_argument("--json", action="store_true", help="one JSON object per event and line")
    parser.add_argument("--no-color", action="store_true", help="no ANSI colours")
    args = parser.parse_args(argv)
    try:
        settings = load_settings(AgentSettings)
    except SettingsError as exc:
        print(f"glassbox: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        return asyncio.run(_main(args, settings))
    except KeyboardInterrupt:
        return 130
