"""A test's own reads and writes of the database the bot (or its store) may be using: a SQLite
file, or a PostgreSQL database (`postgresql://` URL), the statements written with `?` as the
store writes them.

SQLite reads and writes are done without blocking the event loop they run on: a blocking
`sqlite3` call waiting for a lock the bot holds keeps the bot from ever finishing the write
that holds it (a deadlock, not a failure), and any such call stalls every chat of the bot
under test while it runs.

PostgreSQL: GLASSBOX_TEST_PG_URL names a server the tests may make databases on (`.ci/run`
and `scripts/pg-test start` make one); `fresh_postgres` gives each test a new, empty
database of its own and drops it after. Without that variable the PostgreSQL variants
skip, except in CI, where they fail: CI always has its server.

A test whose store is opened as it is (no old schema written first) may start from
`Migrated`: the store's migrations applied once for the test process, then copied for
each test (the SQLite file, or a PostgreSQL database made with it as its template).
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import aiosqlite
import asyncpg
import pytest

from bot.store.db import is_postgres_url, numbered
from bot.store.transcripts import Store

Target = Path | str
"""A SQLite file's path, or a PostgreSQL database's URL."""
BACKENDS = ("sqlite", "postgres")


def server_url() -> str:
    """The test server's URL; skips the test where there is none (fails in CI)."""
    url = os.environ.get("GLASSBOX_TEST_PG_URL", "")
    if not url:
        if os.environ.get("CI"):
            pytest.fail("GLASSBOX_TEST_PG_URL is not set: .ci/run starts PostgreSQL for CI")
        pytest.skip("PostgreSQL variant: set GLASSBOX_TEST_PG_URL (scripts/pg-test start)")
    return url


def _with_database(url: str, name: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path="/" + name))


@asynccontextmanager
async def fresh_postgres() -> AsyncIterator[str]:
    """The URL of a new, empty database on the test server, dropped after."""
    async with new_database(server_url()) as url:
        yield url


@asynccontextmanager
async def new_database(server: str) -> AsyncIterator[str]:
    """The URL of a new, empty database on the server at `server`, dropped after."""
    async with _dropped(await create_database(server)) as url:
        yield url


@asynccontextmanager
async def _dropped(url: str) -> AsyncIterator[str]:
    """`url`, its database dropped after."""
    try:
        yield url
    finally:
        await drop_database(url)


async def create_database(server: str, template: str | None = None) -> str:
    """A new database on the server at `server`, empty or a copy of the database of the URL
    `template` (which nobody may be connected to): its URL. From PostgreSQL 15 on, the
    copy is of the template's files (STRATEGY FILE_COPY), not of its pages one by one
    through the write-ahead log: on the tests' cluster, which never flushes, some five times
    faster for a database as small as a test's."""
    name = "glassbox_test_" + secrets.token_hex(6)
    admin = await asyncpg.connect(server)
    try:
        copied = ""
        if template:
            copied = f' TEMPLATE "{_name_of(template)}"'
            if admin.get_server_version().major >= 15:
                copied += " STRATEGY FILE_COPY"
        await admin.execute(f'CREATE DATABASE "{name}"{copied}')
    finally:
        await admin.close()
    return _with_database(server, name)


def _name_of(url: str) -> str:
    return urlsplit(url).path.lstrip("/")


async def drop_database(url: str) -> None:
    """Drop the database of `url` (made by create_database), whoever is still connected."""
    await _as_admin(_with_database(url, "postgres"),
                    f'DROP DATABASE IF EXISTS "{_name_of(url)}" WITH (FORCE)')


async def _as_admin(server: str, statement: str) -> None:
    admin = await asyncpg.connect(server)
    try:
        await admin.execute(statement)
    finally:
        await admin.close()


@asynccontextmanager
async def small_plan(url: str, connections: int) -> AsyncIterator[str]:
    """The URL of `url`'s database as a role of its own that may open at most `connections`
    connections (a small managed plan: its server refuses the next with "too many
    connections"), made the database's owner for the test (the role is dropped after)."""
    role = "plan_" + secrets.token_hex(6)
    name = urlsplit(url).path.lstrip("/")
    await _as_admin(url, f'CREATE ROLE "{role}" LOGIN CONNECTION LIMIT {connections};'
                         f' ALTER DATABASE "{name}" OWNER TO "{role}";'
                         f' GRANT ALL ON SCHEMA public TO "{role}"')
    parts = urlsplit(url)
    try:
        yield urlunsplit(parts._replace(netloc=f"{role}@{parts.hostname}:{parts.port}"))
    finally:
        await _as_admin(url, f'ALTER DATABASE "{name}" OWNER TO CURRENT_USER;'
                             f' REASSIGN OWNED BY "{role}" TO CURRENT_USER;'
                             f' DROP OWNED BY "{role}"')
        await _as_admin(_with_database(url, "postgres"), f'DROP ROLE "{role}"')


@asynccontextmanager
async def database(backend: str, sqlite_path: Path) -> AsyncIterator[Target]:
    """Where a store of `backend` ("sqlite" or "postgres") lives for one test."""
    if backend == "sqlite":
        yield sqlite_path
        return
    async with fresh_postgres() as url:
        yield url


class Migrated:
    """Stores with every migration applied, made once (the first time each backend is asked
    for) and copied for each test: a bot or store opened on a copy finds nothing to do."""

    def __init__(self, folder: Path) -> None:
        self._sqlite = folder / "migrated.sqlite3"
        self._sqlite_made = False
        self._postgres: str | None = None

    @asynccontextmanager
    async def copy(self, backend: str, sqlite_path: Path) -> AsyncIterator[Target]:
        """A migrated store of `backend` for one test (at `sqlite_path` for SQLite)."""
        if backend == "sqlite":
            if not self._sqlite_made:
                await (await Store.open(self._sqlite)).close()
                self._sqlite_made = True
            sqlite_path.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(self._sqlite, sqlite_path)
            yield sqlite_path
            return
        server = server_url()
        if self._postgres is None:
            self._postgres = await create_database(server)
            await (await Store.open(self._postgres)).close()
        async with _dropped(await create_database(server, template=self._postgres)) as url:
            yield url

    def drop(self) -> None:
        """Drop the PostgreSQL template, if one was made."""
        if self._postgres is not None:
            asyncio.run(drop_database(self._postgres))


async def query(target: Target, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """The rows of one statement (a SELECT, or on SQLite a PRAGMA)."""
    [rows] = await query_each(target, [(sql, params)])
    return rows


async def query_each(target: Target, statements: Sequence[tuple[str, Sequence[Any]]]
                     ) -> list[list[tuple[Any, ...]]]:
    """The rows of each of `statements` (SQL, parameters), read on one connection: a
    PostgreSQL connection costs the server a process of its own, so a test reading every
    column of the database opens one, not one a column."""
    if is_postgres_url(target):
        conn = await asyncpg.connect(str(target))
        try:
            return [[tuple(row) for row in await conn.fetch(numbered(sql), *params)]
                    for sql, params in statements]
        finally:
            await conn.close()
    async with aiosqlite.connect(target) as db:
        return [[tuple(row) for row in await db.execute_fetchall(sql, params)]
                for sql, params in statements]


async def table_columns(target: Target, table: str) -> list[str]:
    """The columns of `table`, in order."""
    sql = ("SELECT column_name FROM information_schema.columns WHERE table_name = ?"
           " ORDER BY ordinal_position") if is_postgres_url(target) else (
           "SELECT name FROM pragma_table_info(?) ORDER BY cid")
    return [row[0] for row in await query(target, sql, (table,))]


async def execute(target: Target, sql: str, params: Sequence[Any] = ()) -> None:
    """One statement, committed."""
    await execute_many(target, sql, [params])


async def execute_many(target: Target, sql: str, rows: Iterable[Sequence[Any]]) -> None:
    """One statement for each of `rows`, in one transaction."""
    if is_postgres_url(target):
        conn = await asyncpg.connect(str(target))
        try:
            await conn.executemany(numbered(sql), list(rows))
        finally:
            await conn.close()
        return
    async with aiosqlite.connect(target) as db:
        await db.executemany(sql, rows)
        await db.commit()


class Cuttable:
    """A TCP relay on 127.0.0.1 in front of a PostgreSQL server, to take it away and give it
    back as a network fault or a server restart would: `cut` drops every connection through
    it and refuses new ones, `restore` listens again on the same port. `freeze` makes it a
    server that hangs (connections stay open, old and new, and nothing goes either way);
    `thaw` lets what was held go on. `connections` counts the connections opened through it
    (refused ones too: the server's refusal is an answer on a connection)."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self._server_at = (parts.hostname or "127.0.0.1", parts.port or 5432)
        self._url = parts
        self._listener: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._flowing = asyncio.Event()
        self._flowing.set()
        self.port = 0
        self.connections = 0

    @property
    def url(self) -> str:
        user = self._url.username or ""
        return urlunsplit(self._url._replace(netloc=f"{user}@127.0.0.1:{self.port}"))

    async def __aenter__(self) -> Cuttable:
        await self.restore()
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.cut()

    async def restore(self) -> None:
        self._listener = await asyncio.start_server(self._relay, "127.0.0.1", self.port)
        self.port = self._listener.sockets[0].getsockname()[1]

    async def cut(self) -> None:
        if self._listener is not None:
            self._listener.close()
            await self._listener.wait_closed()
            self._listener = None
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    def freeze(self) -> None:
        self._flowing.clear()

    def thaw(self) -> None:
        self._flowing.set()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        up_reader, up_writer = await asyncio.open_connection(*self._server_at)
        self._writers |= {writer, up_writer}

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while data := await src.read(65536):
                    await self._flowing.wait()
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                dst.transport.abort()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        self._writers -= {writer, up_writer}
