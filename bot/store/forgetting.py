"""Deleting runs and what was made from them (/forget, /forget all, TRANSCRIPT_RETENTION_DAYS).

A run's steps, message ids and API session row go with it (their foreign keys cascade). A
thread summary is kept under the newest run it covers and quotes every earlier run of its
thread, so deleting a run deletes the summaries kept under it and under every run that
follows it in a reply thread (a summary is only a cache: the next follow-up makes one again
from what remains). A deleted run's replies take its parent as theirs, so a thread goes on
with the runs that remain. Then, on SQLite, the deleted text leaves the disk too: the
connection overwrites freed content (`secure_delete`, set at open) and the write-ahead log,
which still holds the pages as they were, is copied back and emptied.

A summary made while runs are deleted cannot bring them back: keeping one locks the runs it
was made from (bot/store/threads.py), and the deletion below locks its runs before it looks
for summaries, both in id order, so one of the two waits for the other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.store.db import Db, Dialect, SqliteDb
from bot.store.kinds import ConversationKind
from bot.store.records import Conversation


async def delete_runs(db: Db, where: str, params: Sequence[Any]) -> list[tuple[Conversation, int]]:
    """Delete the runs `where` (a WHERE clause over `runs`) selects, and what was made from
    them, in one transaction; the conversation and id of each run deleted (the comparisons
    copied from them too)."""
    where = (f"{where} OR runs.id IN (SELECT run_sources.run_id FROM run_sources"
             f" WHERE run_sources.source_id IN (SELECT runs.id FROM runs {where}))")
    params = (*params, *params)
    doomed = f"SELECT id FROM runs {where}"
    async with db.transaction() as conn:
        if db.dialect is Dialect.POSTGRES:
            await conn.fetch(f"{doomed} ORDER BY id FOR UPDATE", params)
        await conn.execute(
            f"WITH RECURSIVE later(id) AS ({doomed}"
            " UNION SELECT runs.id FROM runs JOIN later ON runs.parent_id = later.id)"
            " DELETE FROM thread_summaries WHERE run_id IN (SELECT id FROM later)", params)
        await conn.execute(
            "UPDATE runs SET parent_id = (SELECT gone.parent_id FROM runs AS gone"
            " WHERE gone.id = runs.parent_id)"
            f" WHERE runs.parent_id IN ({doomed}) AND runs.id NOT IN ({doomed})",
            (*params, *params))
        rows = await conn.fetch(
            f"DELETE FROM runs {where} RETURNING conversation_kind, chat_id, id", params)
    if rows and isinstance(db, SqliteDb):
        await db.checkpoint()
    return [(Conversation(ConversationKind(kind), int(chat_id)), int(run_id))
            for kind, chat_id, run_id in rows]
