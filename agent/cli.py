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

from agent.answer_model import answer_client
from agent.compare_judge import judge
from agent.confirm import Gate
from agent.events import (
    Action,
    Answer,
    AnswerDelta,
    Decided,
    Event,
    Judgement,
    Note,
    Observation,
    Plan,
    Proposed,
    RunFinished,
    RunStarted,
    Thought,
)
from agent.lang import detect_lang, pick
from agent.loop import run_plain, run_react
from agent.model import ModelClient
from agent.prompts import args_text
from agent.settings import AgentSettings, SettingsError, load_settings
from agent.summary import difference, figures
from agent.terminal_confirm import TerminalConfirmer
from agent.tools import Toolbox

COLORS = {"thought": "36", "action": "33", "ok": "32", "failed": "31", "answer": "1",
          "dim": "2", "heading": "35"}


class Printer:
    """Writes events as they come; `lane` prefixes lines when two runs share the screen."""

    def __init__(self, out: TextIO, *, as_json: bool, color: bool, lang: str) -> None:
        self.out, self.as_json, self.color, self.lang = out, as_json, color, lang
        self.streaming: set[str] = set()

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
        elif isinstance(event, AnswerDelta):
            if live_answer:
                if lane not in self.streaming:
                    self.streaming.add(lane)
                    label = pick(self.lang, "✅ 回答：", "✅ Answer: ")
                    self.out.write(self.paint("answer", label))
                self.out.write(event.text)
        else:
            self._show_step(event, lane, live_answer)
        self.out.flush()

    def _show_step(self, event: Event, lane: str, live_answer: bool) -> None:
        zh = self.lang == "zh"
        if isinstance(event, RunStarted):
            models = f"{event.model} → {event.answer_model}" if event.answer_model else event.model
            self.line(self.paint("dim", f"{models} · {event.mode}"), lane)
        elif isinstance(event, Plan):
            self.line(self.paint("heading", pick(self.lang, "📋 计划", "📋 Plan")), lane)
            for number, step in enumerate(event.steps, 1):
                why = f" — {step.why}" if step.why else ""
                self.line(self.paint("dim", f"  {number}. {step.tool}{why}"), lane)
        elif isinstance(event, Note):
            self.line(self.paint("dim", "📝 Glassbox: " + event.text), lane)
        elif isinstance(event, Thought):
            if lane in self.streaming:  # a draft answer turned out to be a thought
                self.streaming.discard(lane)
                self.out.write("\n")
            label = ("💭 思考（推断）：" if zh else "💭 Thought (synthesised): ") if (
                event.synthesized) else ("💭 思考：" if zh else "💭 Thought: ")
            heading = f"── 第 {event.round} 轮 ──" if zh else f"── Round {event.round} ──"
            self.line(self.paint("heading", heading), lane)
            self.line(self.paint("thought", label + event.text), lane)
        elif isinstance(event, Proposed):
            self.line(self.paint("action", pick(self.lang, "⏸ 提议：", "⏸ Proposed: ")
                                 + f"{event.tool}({args_text(event.arguments)})"), lane)
        elif isinstance(event, Decided):
            self.line(self.paint("dim", decided_line(event, self.lang)), lane)
        elif isinstance(event, Action):
            self.line(self.paint("action", f"🔧 {event.tool}({args_text(event.arguments)})"), lane)
        elif isinstance(event, Observation):
            style = "ok" if event.ok else "failed"
            label = "👀 观察：" if zh else "👀 Observation: "
            self.line(self.paint(style, f"{label}{event.text}  ({event.duration_ms} ms)"), lane)
        elif isinstance(event, Answer):
            if lane in self.streaming:
                self.streaming.discard(lane)
                self.out.write("\n")
            elif not live_answer:
                self.line(self.paint("answer", pick(self.lang, "✅ 回答：", "✅ Answer: "))
                          + event.text, lane)
        elif isinstance(event, Judgement):
            label = pick(self.lang, "⚖️ 模型的评判：", "⚖️ The model's judgement: ")
            self.line(self.paint("heading", label + event.text), "")
        elif isinstance(event, RunFinished):
            text = figures(event, self.lang)
            if event.status != "done":
                text = f"{event.status}: {event.reason} · {text}" if event.reason else (
                    f"{event.status} · {text}")
            self.line(self.paint("dim" if event.status == "done" else "failed", f"⏱ {text}"),
                      lane)


def decided_line(event: Decided, lang: str) -> str:
    by = event.by or pick(lang, "无人", "nobody")
    if event.decision == "edit":
        return pick(lang, f"✏️ {by} 修改为 ", f"✏️ edited by {by}: ") + args_text(
            event.arguments or {})
    words = {"run": ("▶ {by} 确认执行", "▶ run by {by}"),
             "skip": ("⏭ {by} 跳过", "⏭ skipped by {by}"),
             "stop": ("⏹ {by} 停止", "⏹ stopped by {by}")}[event.decision]
    return pick(lang, *words).format(by=by)


async def _drain(stream: AsyncIterator[Event], printer: Printer, lane: str = "",
                 live_answer: bool = True) -> tuple[RunFinished, str]:
    """The run's end and its answer ("" if none), each event printed as it comes."""
    last: RunFinished | None = None
    answer = ""
    async for event in stream:
        printer.show(event, lane, live_answer)
        if isinstance(event, RunFinished):
            last = event
        elif isinstance(event, Answer):
            answer = event.text
    assert last is not None  # drive() always ends a run with RunFinished
    return last, answer


async def _main(args: argparse.Namespace, settings: AgentSettings) -> int:
    question = " ".join(args.question).strip()
    lang = detect_lang(question)
    color = not args.json and not args.no_color and sys.stdout.isatty() and (
        "NO_COLOR" not in os.environ)
    printer = Printer(sys.stdout, as_json=args.json, color=color, lang=lang)
    client = ModelClient(settings)
    answers = answer_client(settings)
    toolbox = await Toolbox.open(settings)
    try:
        confirm = settings.agent_confirm_tools
        gate = Gate(TerminalConfirmer(lang), every=args.step, tools=confirm) if (
            args.step or confirm) else None

        def react() -> AsyncIterator[Event]:
            return run_react(question, client=client, settings=settings, tools=toolbox.tools,
                             gate=gate, answer_client=answers)

        def plain() -> AsyncIterator[Event]:
            return run_plain(question, client=answers or client, settings=settings)

        if args.compare:
            (plain_done, plain_answer), (react_done, react_answer) = await asyncio.gather(
                _drain(plain(), printer, "plain", live_answer=False),
                _drain(react(), printer, "react", live_answer=False))
            if plain_done.status == react_done.status == "done" and plain_answer and (
                    react_answer):
                judged = await judge(question, plain_answer, react_answer, client=client,
                                     lang=lang)
                if judged is not None:
                    printer.show(judged, "react")
            if not args.json:
                printer.line(printer.paint("heading", difference(plain_done, react_done, lang)),
                             "")
            results = [plain_done, react_done]
        else:
            results = [(await _drain(plain() if args.plain else react(), printer))[0]]
    finally:
        await toolbox.aclose()
        await client.close()
        if answers is not None:
            await answers.close()
    return 1 if any(r.status == "error" for r in results) else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m agent", description="Ask Glassbox a question; watch the ReAct chain.")
    parser.add_argument("question", nargs="+", help="the question")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--plain", action="store_true", help="the model alone, no tools")
    mode.add_argument("--compare", action="store_true", help="plain and ReAct at once")
    parser.add_argument("--step", action="store_true",
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
