"""The history a follow-up carries: its whole reply thread, oldest first. When the thread
outgrows HISTORY_MAX_CHARS, its older turns are summarised by one short model call, kept
per thread (the summary of the newest run it covers), so a long thread is not summarised
again every turn: the next turn goes on from the last summary.

A run of the thread deleted while its summary is being made (the call takes seconds) must
not come back, in the summary kept nor in what the follow-up sends: that reading is
dropped, and the caller reads the thread again as it is now."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from agent.classroom.history_summary import split_history, summarise
from agent.events import Usage
from agent.model.model_client import ModelClient
from agent.prompts import Turn
from bot.store.records import RunRecord
from bot.store.transcripts import Store

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ThreadHistory:
    turns: tuple[Turn, ...]
    runs: frozenset[int]
    """The stored runs whose text the turns hold, word for word or summarised."""


async def thread_history(store: Store, client: ModelClient, last: RunRecord, max_chars: int,
                         lang: str) -> tuple[ThreadHistory | None, Usage]:
    """The thread ending with `last` as history, older turns summarised when it does not
    fit in `max_chars` characters (None if a run of it was deleted while the summary was
    made); the tokens a new summary took. A failed summary call leaves the history to be
    cut as before."""
    runs = [run for run in await store.threads.runs(last) if run.answer]
    thread = frozenset(run.id for run in runs)
    turns = [Turn(run.question, run.answer) for run in runs]
    older, recent = split_history(turns, max_chars)
    if not older:
        return ThreadHistory(tuple(recent), thread), Usage()
    ids = [run.id for run in runs[:len(older)]]
    kept = await store.threads.summaries(ids)
    if ids[-1] in kept:
        return ThreadHistory((Turn("", kept[ids[-1]], summary=True), *recent), thread), Usage()
    start, earlier = 0, ""
    for index in range(len(ids) - 1, -1, -1):
        if ids[index] in kept:
            start, earlier = index + 1, kept[ids[index]]
            break
    try:
        summary, usage = await summarise(client, older[start:], earlier, lang)
    except Exception as err:  # the model is down or refused: cut, as without summaries
        log.warning("summarising thread of run %s failed (%s); cutting it instead", last.id,
                    err)
        summary, usage = "", Usage()
    if not summary:
        present = await store.threads.present(thread)
        return (ThreadHistory(tuple(turns), thread) if present else None), usage
    if not await store.threads.keep_summary(ids[-1], summary, thread):
        return None, usage
    return ThreadHistory((Turn("", summary, summary=True), *recent), thread), usage
