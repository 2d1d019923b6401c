"""What auto mode learned about each model endpoint (agent/model/endpoint_memory.py), kept in the
store so that a restarted bot starts where it left off: a model known to write its calls
as text is asked in the text format from the first question, not after a wasted round."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

from agent.model.endpoint_memory import EndpointMemory
from bot.store.db import Db, StoreUnavailable

log = logging.getLogger(__name__)


class EndpointsTable:
    """The `endpoint_memory` rows, in the Store's database: one an endpoint that taught
    auto mode something."""

    def __init__(self, db: Db) -> None:
        self._db = db

    async def get(self, endpoint: str,
                  kind: type[EndpointMemory] = EndpointMemory) -> EndpointMemory:
        """The memory of `endpoint`, learning by the rule of `kind`; an unseen endpoint's
        while the database is down."""
        try:
            rows = list(await self._db.fetch(
                "SELECT learned FROM endpoint_memory WHERE endpoint = ?", (endpoint,)))
        except StoreUnavailable as err:
            log.warning("starting without what auto mode learned: the database is down (%s)",
                        err)
            return kind(endpoint)
        if not rows:
            return kind(endpoint)
        learned = json.loads(rows[0][0])
        return kind.restored(endpoint, learned if isinstance(learned, dict) else {})

    async def put(self, memory: EndpointMemory) -> None:
        """Keep what `memory` learned (no row when it learned nothing)."""
        learned = memory.learned()
        if not learned:
            await self._db.execute("DELETE FROM endpoint_memory WHERE endpoint = ?",
                                   (memory.endpoint,))
            return
        await self._db.execute(
            "INSERT INTO endpoint_memory (endpoint, learned, updated_at) VALUES (?, ?, ?)"
            " ON CONFLICT (endpoint) DO UPDATE SET learned = excluded.learned,"
            " updated_at = excluded.updated_at",
            (memory.endpoint, json.dumps(learned), datetime.now(UTC).isoformat()))
