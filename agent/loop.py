"""The ReAct loop (and the plain, no-tools run) as async generators of events.

A round is one model call. If the model asks for tools: Thought, then an Action and an
Observation for each call (run concurrently; past AGENT_MAX_CALLS_PER_ROUND calls, one
Observation says the rest were not run), and the results go back to the model. If
it does not: Thought and the Answer, streamed. The loop stops at the round cap or at a
call repeated a third time, and then asks once more, without tools, for the best answer.

How a round talks to the model is the protocol's business (`agent.protocols.rounds.Rounds`):
native function calling (agent/protocols/native.py) or the classic text format
(agent/protocols/text_rounds.py).
`AGENT_MODE=auto` starts native and, when the endpoint refuses `tools` (twice) or the model
writes its calls as text (agent/protocols/auto_rounds.py), goes on in text for that run; the
endpoint starts every run in text only once several runs and chats showed it
(agent/model/endpoint_memory.py).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any

from agent.classroom.confirm import Gate, Reviewed, StopRun
from agent.classroom.planner import make_plan, plan_remark
from agent.classroom.quiz_vote import quiz_vote
from agent.classroom.remarks import forced_answer, no_reasoning_for_answer, no_reasoning_for_calls
from agent.events import Answer, AnswerDelta, Event, Observation, RunStarted, TextDelta, Thought
from agent.grounding.lookups import grounded
from agent.grounding.send_back import FigureCheck
from agent.grounding.sides import Sides
from agent.lang import Lang, detect_lang, run_lang
from agent.model.answer_model import AnswerWriter, Drafts
from agent.model.endpoint_memory import Lesson
from agent.model.model_client import ModelClient
from agent.model.model_errors import ModelError, ModelErrorKind
from agent.model.photo_calls import GivenPhotos
from agent.model.streamed_round import answer_round
from agent.prompts import Turn, history_messages, system_plain, system_react
from agent.protocols.action_units import units_kept
from agent.protocols.auto_rounds import AutoRounds
from agent.protocols.echoed_errors import no_errors_as_answers
from agent.protocols.native import NativeRounds
from agent.protocols.protocol_guard import no_protocol_shown
from agent.protocols.rounds import CallsToRun, Rounds
from agent.protocols.text_protocol import native_system, text_system
from agent.protocols.text_rounds import TextRounds
from agent.protocols.tool_calls import Batch, ParsedCall, ToolRunner, act, names_of
from agent.run_task import RunStats, drive
from agent.settings import AgentSettings
from agent.tool import Tool

log = logging.getLogger(__name__)


def run_react(
    question: str,
    *,
    client: ModelClient,
    settings: AgentSettings,
    tools: Sequence[Tool] = (),
    history: Sequence[Turn] = (),
    cancel: asyncio.Event | None = None,
    planner: bool | None = None,
    gate: Gate | None = None,
    answer_client: ModelClient | None = None,
    lang: Lang | None = None,
    source: str = "",
    photos: GivenPhotos | None = None,
) -> AsyncIterator[Event]:
    """Answer `question` with tools, yielding every step as it happens. `planner` makes
    a plan first (None: the AGENT_PLANNER setting); `gate` asks a person before the calls
    it says need it (walkthrough mode, AGENT_CONFIRM_TOOLS); `answer_client` (LLM_ANSWER_MODEL)
    writes the final answer from the chain. `lang` is the language of Glassbox's own words
    in the run (None: the question's, see agent.lang.run_lang). `source` names the chat
    asking: what auto mode learns counts chats (agent/model/endpoint_memory.py). `photos`
    go to the model with the question, as images (agent/model/photo_calls.py)."""
    lang = lang or run_lang(question, detect_lang(question))
    stats = RunStats()
    plan_first = settings.agent_planner if planner is None else planner
    writer = answer_client and AnswerWriter(answer_client, question, history, lang,
                                            settings.history_max_chars)
    steps = _react(question, client.given(photos) if photos else client, settings, tools,
                   history, lang, stats, plan_first, gate, writer, source)
    shown = no_errors_as_answers(no_protocol_shown(steps, lang), lang)
    return drive(grounded(shown, question, history, lang, photos), stats, lang, cancel)


def run_plain(
    question: str,
    *,
    client: ModelClient,
    settings: AgentSettings,
    history: Sequence[Turn] = (),
    cancel: asyncio.Event | None = None,
    lang: Lang | None = None,
    photos: GivenPhotos | None = None,
) -> AsyncIterator[Event]:
    """Answer `question` with the model alone, yielding the same events."""
    lang = lang or run_lang(question, detect_lang(question))
    stats = RunStats()
    steps = _plain(question, client.given(photos) if photos else client, settings, history,
                   lang, stats)
    return drive(grounded(steps, question, history, lang, photos), stats, lang, cancel)


async def _plain(
    question: str,
    client: ModelClient,
    settings: AgentSettings,
    history: Sequence[Turn],
    lang: str,
    stats: RunStats,
) -> AsyncIterator[Event]:
    yield RunStarted(round=0, mode="plain", question=question, model=client.name)
    messages = _opening(system_plain(lang), question, history, settings, client.photos)
    try:
        stats.rounds = 1
        async for event in answer_round(client, messages, 1, stats):
            yield event
    except ModelError as err:
        yield stats.finished("error", err.reason(lang), err.kind.value)
        return
    yield stats.finished("done")


async def _react(
    question: str,
    client: ModelClient,
    settings: AgentSettings,
    tools: Sequence[Tool],
    history: Sequence[Turn],
    lang: str,
    stats: RunStats,
    plan_first: bool,
    gate: Gate | None = None,
    writer: AnswerWriter | None = None,
    source: str = "",
) -> AsyncIterator[Event]:
    toolmap = names_of(tools)
    yield RunStarted(round=0, mode="react", question=question, model=client.name,
                     tools=tuple(toolmap), answer_model=writer.client.name if writer else "")
    runner = ToolRunner(toolmap, lang, settings.tool_timeout_s, settings.max_observation_chars)
    try:
        remark = ""
        if plan_first:
            plan = await make_plan(_opening("", question, history, settings, client.photos),
                                   client, toolmap, stats)
            if plan is not None:
                remark = "\n\n" + plan_remark(plan)
                yield plan

        sides = Sides(question)
        check = FigureCheck(question, history, tuple(toolmap),
                            sends_back=client.photos is None)

        def text_rounds() -> TextRounds:
            system = text_system(tools, lang) + remark
            return TextRounds(client, _opening(system, question, history, settings,
                                               client.photos), toolmap, lang, stats, sides)

        mode = settings.agent_mode
        if mode == "auto" and client.memory.starts_in_text(Lesson.TOOLS_REJECTED):
            mode = "text"
        # Where a switch to the text format is likely, auto's native rounds begin as the text
        # format's do, so that the switch reads no second prompt.
        native = (native_system(tools, lang)
                  if mode == "auto" and client.memory.wrote_calls_as_text()
                  else system_react(lang, toolmap))
        rounds: Rounds = text_rounds() if mode == "text" else NativeRounds(
            client, _opening(native + remark, question, history, settings, client.photos),
            toolmap, lang, stats, sides)
        if mode == "auto":
            assert isinstance(rounds, NativeRounds)
            rounds = AutoRounds(client, rounds, text_rounds, lang, question, source)
        for attempt in range(2):  # a refusal of tools counts once it is repeated
            started = False
            try:
                async for event in _rounds(rounds, runner, settings, stats, lang, gate,
                                           writer, check):
                    started = True
                    yield event
                break
            except ModelError as err:
                if started or err.kind is not ModelErrorKind.TOOLS_UNSUPPORTED or (
                        mode != "auto"):
                    raise
                log.info("endpoint refused tools for model %s: %s", client.model,
                         "going on in text" if attempt else "asking once more")
        else:
            client.memory.saw(Lesson.TOOLS_REJECTED, source)
            async for event in _rounds(text_rounds(), runner, settings, stats, lang, gate,
                                       writer, check):
                yield event
    except ModelError as err:
        yield stats.finished("error", err.reason(lang), err.kind.value)
    except StopRun as stop:
        yield stats.finished("cancelled", stop.reason, "stopped")
    finally:
        await runner.aclose()


async def _rounds(
    rounds: Rounds,
    runner: ToolRunner,
    settings: AgentSettings,
    stats: RunStats,
    lang: str,
    gate: Gate | None = None,
    writer: AnswerWriter | None = None,
    check: FigureCheck | None = None,
) -> AsyncIterator[Event]:
    """Rounds until an answer, the round cap or a loop, when the last answer is asked for
    without tools; the run's RunFinished ("done" or "max_rounds") comes last. With a
    `writer`, the answer model writes each answer from the chain instead. A round whose
    model gave no reasoning gets Glassbox's Remark saying so, true to that round. With a
    `check`, an answer stating figures an offered tool gives, which nothing backs, is sent
    back to the model once (agent/grounding/send_back.py)."""
    observed = 0
    repeated = False
    for rnd in range(1, settings.agent_max_rounds + 1):
        stats.rounds = rnd
        calls: tuple[ParsedCall, ...] = ()
        reasoned = False
        drafts = Drafts()
        # Whether this round's answer may still go back: until its figures are read, it
        # streams as text whose role is not known yet.
        checking = check is not None and writer is None and check.possible() and (
            rnd < settings.agent_max_rounds)
        thought = ""
        draft: Answer | None = None
        if gate is not None and gate.poller is not None:
            async for event in quiz_vote(gate.poller, rnd, tuple(runner.tools)):
                yield event
        async for item in rounds.round(rnd):
            if isinstance(item, CallsToRun):
                calls = item.calls
                continue
            if writer is not None and drafts.hold(item):
                continue
            if checking and isinstance(item, AnswerDelta):
                item = TextDelta(round=item.round, text=item.text)
            if checking and isinstance(item, Answer):
                draft = item
                continue
            if isinstance(item, Answer) and not reasoned:
                yield no_reasoning_for_answer(rnd, lang, observed=observed)
            if isinstance(item, Thought):
                thought = item.text
            reasoned = reasoned or isinstance(item, Thought)
            if writer is not None:
                writer.chain.add(item)
            yield item
        # The reasoning model's answer, held back while it may still go back (with an
        # answer model, its draft: sent back, it looks the figure up before the answer
        # model writes from the chain).
        held = draft.text if draft is not None else drafts.answer if (
            writer is not None and not calls and check is not None and check.possible()
            and rnd < settings.agent_max_rounds) else ""
        missing = check.unbacked(held) if held and check is not None else []
        if missing:  # the draft was the round's thought; the model looks it up
            assert check is not None
            sent = Thought(round=rnd, text="\n\n".join(t for t in (thought, held) if t))
            if writer is not None:
                writer.chain.add(sent)
            yield sent
            remark, message = check.send_back(rnd, lang, missing)
            yield remark
            rounds.send_back(held, message)
            continue
        if draft is not None:
            if not reasoned:
                yield no_reasoning_for_answer(rnd, lang, observed=observed)
            yield draft
        if not calls:
            if writer is not None:
                async for event in writer.write(drafts, rnd, stats):
                    yield event
            yield stats.finished("done")
            return
        if not reasoned:
            yield no_reasoning_for_calls(rnd, lang, [p.call.name for p in calls])
        if check is not None:
            calls = tuple(units_kept(p, check.question, lang, check.tools,
                                     check.observations) for p in calls)
        batch = Batch.of(calls, settings.agent_max_calls_per_round)
        reviewed = Reviewed(list(batch.run))
        if gate is not None:
            async for event in gate.review(reviewed, rnd, runner.tools, runner.lang):
                yield event
            batch = dataclasses.replace(batch, run=tuple(reviewed.calls))
        earlier = runner.count(batch.run)
        results: dict[str, str] = {}
        async for event in act(batch, earlier, runner, rnd, stats, reviewed.skipped):
            if isinstance(event, Observation):
                results[event.call_id] = event.text
                observed += 1
                if check is not None:
                    check.observed(event.tool, event.text, event.ok)
            if writer is not None:
                writer.chain.add(event)
            yield event
        rounds.record(batch.calls, batch.results(results, runner.lang))
        if any(n >= 2 for n in earlier):
            repeated = True
            break
    tool_rounds = stats.rounds
    stats.rounds += 1
    yield forced_answer(stats.rounds, lang, tool_rounds=tool_rounds, repeated=repeated)
    drafts = Drafts()
    async for event in rounds.last_round(stats.rounds):
        if writer is None or not drafts.hold(event):
            yield event
    if writer is not None:
        async for event in writer.write(drafts, stats.rounds, stats):
            yield event
    yield stats.finished("max_rounds")


def _opening(system: str, question: str, history: Sequence[Turn], settings: AgentSettings,
             photos: GivenPhotos | None = None) -> list[dict[str, Any]]:
    """The first call's messages: the question, with the photos when the model is given
    them."""
    return [
        {"role": "system", "content": system},
        *history_messages(history, settings.history_max_chars),
        {"role": "user", "content": photos.content(question) if photos else question},
    ]


