"""The store's two databases behind one small interface: SQLite (one aiosqlite connection, the
embedded default) and PostgreSQL (an asyncpg pool, when DATABASE_URL names a server).

Statements are written once, with `?` placeholders, in the SQL both understand; the few
that differ ask `db.dialect`. What differs underneath:
- SQLite has one connection: writes go one at a time under a lock, each a transaction of
  its own (WAL: reads never wait). A lock is all SQLite allows anyway.
- PostgreSQL has a pool: statements run side by side on their own connections, a
  transaction holds one connection from BEGIN to COMMIT, and no lock of ours is taken.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from enum import Enum
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import aiosqlite

from bot.store.database_url import blank, redact

log = logging.getLogger(__name__)

Row = Any
"""A row: indexable by position and by column name (sqlite3.Row, asyncpg.Record)."""


class Dialect(Enum):
    SQLITE = "sqlite"
    POSTGRES = "postgres"


class Conn(Protocol):
    """Statements on one connection (inside a transaction, or a session)."""

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; how many rows it changed."""
        ...

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None: ...


class Db(Conn, Protocol):
    dialect: Dialect

    def transaction(self) -> Any:
        """`async with db.transaction() as conn`: statements all committed or none."""
        ...

    def session(self) -> Any:
        """`async with db.session() as conn`: a few statements, in order, on one
        connection, each committed by itself (no transaction around them)."""
        ...

    async def close(self) -> None: ...


def is_postgres_url(target: object) -> bool:
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


class DatabaseUnreachable(Exception):
    """The database could not be opened or set up, at start (its words carry no password)."""


class StoreUnavailable(Exception):
    """The database stopped answering (PostgreSQL down, restarting or cut off): the
    statement did not run. Callers on a run's path go on without the store."""


# --- SQLite ------------------------------------------------------------------------------


class _SqliteConn:
    def __init__(self, db: aiosqlite.Connection) -> None:
        self._db = db

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return list(await self._db.execute_fetchall(sql, params))

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        cursor = await self._db.execute(sql, params)
        return cursor.rowcount

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        await self._db.executemany(sql, rows)


class SqliteDb:
    dialect = Dialect.SQLITE

    def __init__(self, db: aiosqlite.Connection, path: Path) -> None:
        self.raw, self.path = db, path
        self._conn = _SqliteConn(db)
        self._lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: Path) -> SqliteDb:
        path.parent.mkdir(parents=True, exist_ok=True)
        db = await aiosqlite.connect(path, isolation_level=None)
        try:
            db.row_factory = aiosqlite.Row
            await db.execute("PRAGMA journal_mode = WAL")
            await db.execute("PRAGMA synchronous = NORMAL")
            await db.execute("PRAGMA foreign_keys = ON")
            await db.execute("PRAGMA busy_timeout = 5000")
            # A deleted row's bytes are overwritten, not left in the file's free space.
            await db.execute("PRAGMA secure_delete = ON")
        except BaseException:
            await db.close()
            raise
        return cls(db, path)

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return await self._conn.fetch(sql, params)

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """One write: its own transaction (autocommit), one call to the database's thread.
        Under the lock, so it never lands inside another coroutine's open transaction."""
        async with self._lock:
            return await self._conn.execute(sql, params)

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        async with self.transaction() as conn:
            await conn.executemany(sql, rows)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[_SqliteConn]:
        async with self._lock:
            await self.raw.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                await self.raw.execute("ROLLBACK")
                raise
            await self.raw.execute("COMMIT")

    @asynccontextmanager
    async def session(self) -> AsyncIterator[_SqliteConn]:
        async with self._lock:
            yield self._conn

    async def checkpoint(self) -> None:
        """Copy the write-ahead log into the file and empty it: after a deletion, the log
        still holds the pages as they were before it."""
        async with self._lock:
            rows = await self._conn.fetch("PRAGMA wal_checkpoint(TRUNCATE)")
        if rows and rows[0][0]:
            log.warning("the write-ahead log could not be emptied now (another connection"
                        " was reading); a later checkpoint overwrites it")

    async def close(self) -> None:
        await self.raw.close()


# --- PostgreSQL ----------------------------------------------------------------------------

_MARK = re.compile(r"\?")


@lru_cache(maxsize=512)
def numbered(sql: str) -> str:
    """`?` placeholders as PostgreSQL's `$1, $2, …` (our statements hold no `?` in a literal)."""
    count = iter(range(1, 1_000_000))
    return _MARK.sub(lambda _: f"${next(count)}", sql)


def _changed(status: str) -> int:
    """Rows a command changed, from its status ("DELETE 3", "INSERT 0 1")."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


@asynccontextmanager
async def _answering() -> AsyncIterator[None]:
    """asyncpg's ways of saying the server is gone, as our StoreUnavailable."""
    import asyncpg

    try:
        yield
    except (TimeoutError, OSError, asyncpg.PostgresConnectionError, asyncpg.InterfaceError,
            asyncpg.exceptions.OperatorInterventionError) as err:
        raise StoreUnavailable(f"{type(err).__name__}: {err}") from err


class _PgConn:
    """Statements on one acquired connection (the caller translates its failures)."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return list(await self._conn.fetch(numbered(sql), *params))

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        return _changed(await self._conn.execute(numbered(sql), *params))

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        rows = list(rows)
        if rows:
            await self._conn.executemany(numbered(sql), rows)


class PostgresDb:
    dialect = Dialect.POSTGRES
    path = None

    def __init__(self, pool: Any, url: str) -> None:
        self.pool, self.url = pool, url

    @classmethod
    async def open(cls, url: str, *, min_size: int = 1, max_size: int = 10,
                   timeout_s: float = 10.0) -> PostgresDb:
        """A pool on the server at `url`; DatabaseUnreachable (password left out) if it
        cannot be reached or refuses us."""
        import asyncpg  # only a PostgreSQL deployment loads the driver

        try:
            pool = await asyncpg.create_pool(url, min_size=min_size, max_size=max_size,
                                             timeout=timeout_s, command_timeout=60)
        except Exception as err:  # at start, whatever it is: one line, never the password
            raise DatabaseUnreachable(f"cannot reach {described(url)} "
                                      f"({words_of(err, url)})") from None
        return cls(pool, url)

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        async with _answering():
            return list(await self.pool.fetch(numbered(sql), *params))

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        async with _answering():
            return _changed(await self.pool.execute(numbered(sql), *params))

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """All of `rows` or none (asyncpg runs them in one implicit transaction)."""
        rows = list(rows)
        if rows:
            async with _answering():
                await self.pool.executemany(numbered(sql), rows)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[_PgConn]:
        async with _answering(), self.pool.acquire() as conn, conn.transaction():
            yield _PgConn(conn)

    @asynccontextmanager
    async def session(self) -> AsyncIterator[_PgConn]:
        async with _answering(), self.pool.acquire() as conn:
            yield _PgConn(conn)

    async def close(self) -> None:
        await self.pool.close()


async def open_db(target: Path | str) -> SqliteDb | PostgresDb:
    """PostgreSQL for a `postgresql://` (or `postgres://`) URL, else the SQLite file."""
    if is_postgres_url(target):
        return await PostgresDb.open(str(target))
    try:
        return await SqliteDb.open(Path(target))
    except Exception as err:  # a folder it may not create, a file that is no database
        raise DatabaseUnreachable(f"cannot open {described(target)} "
                                  f"({words_of(err, target)})") from None


def described(target: Path | str) -> str:
    """The database at `target` in words, its password left out."""
    if is_postgres_url(target):
        return f"the PostgreSQL database at {redact(str(target))}"
    return f"the SQLite database at {target}"


def words_of(err: BaseException, target: Path | str) -> str:
    """What `err` says, without any secret of `target`'s URL."""
    words = str(err) or type(err).__name__
    return blank(words, target) if isinstance(target, str) else words
