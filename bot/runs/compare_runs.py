"""`/compare N M`: two stored runs of a conversation side by side, asked nothing again; one
short call judges how their answers differ (agent/classroom/compare_judge.py).

The comparison is a run of its own (mode RUNS, numbered next in the chat, so /show,
/export, /history and the board reach it as they reach any run). Each of its two lanes is
a copy of one run's chain, opened by an `Origin` that says which run it was; forgetting
either run forgets the comparison too (bot/store/forgetting.py). A /compare run gives its ReAct
lane; a comparison is no side of another.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from agent.classroom.compare_judge import Side, ToolUses, judge_sides
from agent.events import Answer, Origin, Usage
from agent.lang import detect_lang
from agent.model.model_client import ModelClient
from agent.tool import Tool
from bot.store.kinds import Lane, RunMode, RunStatus
from bot.store.records import Conversation, RunRecord, Scope
from bot.store.transcripts import Store
from bot.view.when import local_time

COPY_BATCH = 1000
"""Steps copied in one statement: within SQLite's bound parameters (4 a step)."""


class Unfit(StrEnum):
    """Why two runs cannot be compared (each has words in the i18n tables)."""

    MISSING = "missing"  # no such run in this chat (or not the asker's, in a private chat)
    SAME = "same"  # a run beside itself
    RUNNING = "running"  # not finished yet
    COMPARISON = "comparison"  # a comparison (of stored runs, of two models) is no side


@dataclass(frozen=True)
class Refused:
    why: Unfit
    n: int


def sides_label(left: RunRecord, right: RunRecord) -> str:
    """What a comparison compares, kept as its `model` (it called none): "#3 Alice ↔ #5 Bob",
    as /history and the export name it."""
    return f"#{left.n} {left.user_name} ↔ #{right.n} {right.user_name}"


async def compare_stored(store: Store, scope: Scope, conversation: Conversation, *,
                         user_id: int | None, user_name: str, left: int, right: int,
                         zone: str, client: ModelClient | None = None,
                         tools: Sequence[Tool] = ()) -> RunRecord | Refused:
    """Store runs `left` and `right` of `scope` side by side as a new run of
    `conversation`, asked by `user_id`; `zone`: the chat's time zone, for the labels.
    With `client`, two runs that each answered are judged as /compare's two answers are
    (the figures that differ, how each side got its own with `tools`, whose sources it
    names); a line that fails the check is not shown."""
    if left == right:
        return Refused(Unfit.SAME, left)
    sides: list[RunRecord] = []
    for n in (left, right):
        record = await store.get(scope, n)
        if record is None:
            return Refused(Unfit.MISSING, n)
        if record.mode in (RunMode.RUNS, RunMode.MODELS):
            return Refused(Unfit.COMPARISON, n)
        if record.status == RunStatus.RUNNING:
            return Refused(Unfit.RUNNING, n)
        sides.append(record)
    first, second = sides
    question = (first.question if first.question == second.question
                else f"{first.question} ↔ {second.question}")
    run = await store.start_run(chat_id=conversation.id, user_id=user_id, user_name=user_name,
                                mode=RunMode.RUNS, question=question,
                                model=sides_label(first, second), kind=conversation.kind)
    answers: list[str] = []
    judged: list[Side] = []
    for lane, record in zip((Lane.LEFT, Lane.RIGHT), sides, strict=True):
        lanes = await store.events(record.id)
        events = lanes.get(Lane.REACT) or lanes.get(Lane.MAIN) or []
        uses = ToolUses(tools)
        for event in events:
            uses.add(event)
        said = [e.text for e in events if isinstance(e, Answer)][-1:]
        if record.status == RunStatus.DONE and said:
            judged.append(Side(f"#{record.n}", said[0], uses.calls))
        origin = Origin(round=0, n=record.n, asker=record.user_name, mode=record.mode,
                        when=local_time(record.started_at, zone, "%Y-%m-%d %H:%M"))
        steps = [(lane, origin), *((lane, e) for e in events)]
        for start in range(0, len(steps), COPY_BATCH):  # a run may have thousands of steps
            await store.append_steps(run.id, steps[start:start + COPY_BATCH])
        answers += said
    await store.add_sources(run.id, [record.id for record in sides])
    usage = Usage()
    if client is not None and len(judged) == 2:  # two answers: how they differ
        judgement = await judge_sides(question, *judged, client=client,
                                      lang=detect_lang(question))
        if judgement is not None:
            await store.append_steps(run.id, [(Lane.RIGHT, judgement)])
            usage = judgement.usage
    await store.finish(run.id, status=RunStatus.DONE, usage=usage, duration_ms=0,
                       answer="\n\n".join(answers))
    return await store.by_id(run.id) or run
