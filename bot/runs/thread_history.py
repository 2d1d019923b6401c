"""The history a follow-up carries: its whole reply thread, oldest first. When the thread
outgrows HISTORY_MAX_CHARS, its older turns are summarised by one short model call, kept
per thread (the summary of the newest run it covers), so a long thread is not summarised
again every turn: the next turn goes on from the last summary.

A run of the thread deleted while its summary is being made (the call takes seconds) must
not come back, in the summary kept nor in what the follow-up sends: the thread is then
read again, as it is now."""

from __future__ import annotations

import logging

from agent.classroom.history_summary import split_history, summarise
from agent.events import Usage
from agent.model.model_client import ModelClient
from agent.prompts import Turn
from bot.store.records import RunRecord
from bot.store.transcripts import Store

log = logging.getLogger(__name__)
READS = 2
"""Times a thread is read while its runs keep being deleted under it; then the follow-up
goes without it."""

History = tuple[Turn, ...]


async def thread_history(store: Store, client: ModelClient, last: RunRecord, budget: int,
                         lang: str) -> tuple[History, Usage]:
    """The thread ending with `last` as history, older turns summarised when it does not
    fit in `budget` characters; the tokens new summaries took. A failed summary call
    leaves the history to be cut as before."""
    used = Usage()
    for _ in range(READS):
        history, usage = await _read(store, client, last, budget, lang)
        used += usage
        if history is not None:
            return history, used
    log.warning("the thread of run %s kept changing while it was read; the follow-up goes"
                " without it", last.id)
    return (), used


async def _read(store: Store, client: ModelClient, last: RunRecord, budget: int,
                lang: str) -> tuple[History | None, Usage]:
    """One reading of the thread (see `thread_history`); None if a run of it was deleted
    while its summary was made."""
    runs = [run for run in await store.threads.runs(last) if run.answer]
    turns = [Turn(run.question, run.answer) for run in runs]
    older, recent = split_history(turns, budget)
    if not older:
        return tuple(recent), Usage()
    ids = [run.id for run in runs[:len(older)]]
    kept = await store.threads.summaries(ids)
    if ids[-1] in kept:
        return (Turn("", kept[ids[-1]], summary=True), *recent), Usage()
    start, earlier = 0, ""
    for index in range(len(ids) - 1, -1, -1):
        if ids[index] in kept:
            start, earlier = index + 1, kept[ids[index]]
            break
    thread = [run.id for run in runs]
    try:
        summary, usage = await summarise(client, older[start:], earlier, lang)
    except Exception as err:  # the model is down or refused: cut, as without summaries
        log.warning("summarising thread of run %s failed (%s); cutting it instead", last.id,
                    err)
        summary, usage = "", Usage()
    if not summary:
        return (tuple(turns) if await store.threads.present(thread) else None), usage
    if not await store.threads.keep_summary(ids[-1], summary, thread):
        return None, usage
    return (Turn("", summary, summary=True), *recent), usage
