"""Where `python -m agent` keeps what auto mode learned about each endpoint between runs.

The agent knows no database: by default the memory is a small file in the user's cache
directory (`own_memory.FileKeeper`). A package installed beside it may offer another keeper
under the entry-point group `glassbox.endpoint_memory`; the bot offers its store, taken
when DATABASE_PATH or DATABASE_URL is set, so the terminal starts with what the bot
learned and the bot's next start with what the terminal learned.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from importlib.metadata import entry_points
from typing import Protocol

from agent.model.endpoint_memory import EndpointMemory
from agent.model.own_memory import FileKeeper, cache_file

log = logging.getLogger(__name__)

KEEPERS = "glassbox.endpoint_memory"
"""The entry-point group of the keepers other packages offer: each names an async
function returning a `MemoryKeeper`, or None when it is not configured."""


class MemoryKeeper(Protocol):
    async def load(self, endpoint: str) -> EndpointMemory:
        """The memory of `endpoint` (an unseen endpoint's when nothing is kept or it cannot
        be read: never an error)."""
        ...

    async def save(self, memory: EndpointMemory) -> None:
        """Keep `memory` (a keeper that cannot write logs it: never an error)."""
        ...

    async def close(self) -> None: ...


async def open_keeper() -> MemoryKeeper:
    """The first keeper an installed package offers and configured, else the cache file."""
    for entry in entry_points(group=KEEPERS):
        try:
            opener: Callable[[], Awaitable[MemoryKeeper | None]] = entry.load()
        except ImportError as exc:
            log.warning("the endpoint memory %s cannot be loaded (%s)", entry.name, exc)
            continue
        keeper = await opener()
        if keeper is not None:
            return keeper
    return FileKeeper(cache_file())
