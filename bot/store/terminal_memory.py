"""The store as the terminal's endpoint memory (agent/model/memory_keeper.py): with
DATABASE_PATH or DATABASE_URL set, `python -m agent` reads and keeps what auto mode learned
in the bot's own `endpoint_memory` table, so a terminal starts with what the bot learned and
the bot's next start with what the terminal learned.

The terminal learns by its own rule there too (one run teaches it, `OwnMemory`): only
whoever runs the bot can point a terminal at its database, and an admin resets a lesson
in /settings as ever.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from pydantic import SecretStr, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from agent.model.endpoint_memory import EndpointMemory
from agent.model.own_memory import OwnMemory
from bot.store.database_url import DatabaseUrl
from bot.store.db import DatabaseUnreachable, StoreUnavailable
from bot.store.transcripts import Store

log = logging.getLogger(__name__)


class StoreWhere(BaseSettings):
    """DATABASE_PATH and DATABASE_URL as the bot reads them, but with no default: the
    terminal uses the store only when one is set."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8",
                                      extra="ignore")
    database_path: Path | None = None
    database_url: DatabaseUrl = SecretStr("")

    def database(self) -> Path | str | None:
        return self.database_url.get_secret_value() or self.database_path


@dataclass(slots=True)
class StoreKeeper:
    store: Store

    async def load(self, endpoint: str) -> EndpointMemory:
        return await self.store.endpoints.get(endpoint, OwnMemory)

    async def save(self, memory: EndpointMemory) -> None:
        try:
            await self.store.endpoints.put(memory)
        except StoreUnavailable as err:
            log.warning("what auto mode learned is not kept: the database is down (%s)", err)

    async def close(self) -> None:
        await self.store.close()


async def open_keeper() -> StoreKeeper | None:
    """The store's keeper when DATABASE_PATH or DATABASE_URL is set; None (the cache file)
    when neither is, or the store cannot be opened (said once, in words without the
    password)."""
    try:
        where = StoreWhere().database()
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])).upper()}: {e['msg']}"
                             for e in exc.errors(include_input=False))
        log.warning("what auto mode learns is kept in the cache file instead: %s", problems)
        return None
    if where is None:
        return None
    try:
        return StoreKeeper(await Store.open(where, pool_size=1))
    except DatabaseUnreachable as err:
        log.warning("what auto mode learns is kept in the cache file instead: %s", err)
        return None
