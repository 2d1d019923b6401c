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
import contextlib
import logging
import re
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from enum import Enum
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import aiosqlite

from bot.store.breaker import Breaker, BreakerState, Failure
from bot.store.connection_turns import ConnectionTurns, NoneOpen
from bot.store.database_url import blank, redact
from wire.wire_errors import GlassboxError

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


BUSY_TIMEOUT_MS = 5000
"""How long a SQLite statement waits for another writer's lock before it fails."""


def is_postgres_url(target: object) -> bool:
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


class DatabaseUnreachable(GlassboxError):
    """The database could not be opened or set up, at start (its words carry no password)."""


class StoreUnavailable(GlassboxError):
    """The database is not answering (PostgreSQL down, restarting, cut off, hanging, or
    without a connection free for us): the statement did not run, or its outcome is not
    known. Callers on a run's path go on without the store."""


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
            await db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
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


STATEMENT_TIMEOUT_S = 10.0
"""How long a statement may wait for a connection, and then for its answer, before the
server counts as not answering (the statements of a run take milliseconds; a batch gets
more for its rows, and the schema's migrations set their own)."""
ROW_TIMEOUT_S = 0.02
"""What a batch of rows (an uploaded file's passages, a copy's 2,000 rows) may take more, per
row, so that a large upload is not taken for a server that hangs."""
PROBE_TIMEOUT_S = 3.0
"""How long the breaker's probe waits for a new connection to answer `SELECT 1`."""
DEFAULT_POOL_SIZE = 5
"""Connections one process keeps at most (DATABASE_POOL_SIZE): two processes overlapping
during a deploy still fit a small plan's 20 with a few to spare."""


def _unanswered() -> tuple[type[BaseException], ...]:
    """asyncpg's ways of saying the server is gone, hangs or is not ready (or that it ended
    our connection mid-use: InternalClientError): a connection that met one is in a state
    nobody knows, and is never given back to the pool as it is."""
    import asyncpg

    return (TimeoutError, OSError, asyncpg.PostgresConnectionError, asyncpg.InterfaceError,
            asyncpg.InternalClientError, asyncpg.exceptions.OperatorInterventionError)


def _terminate(conn: Any) -> None:
    """Drop an acquired connection; one asyncpg saw end has been put back in the pool
    already, and its proxy refuses every call (the error that ended it is the one to tell)."""
    import asyncpg

    with contextlib.suppress(asyncpg.InterfaceError):
        conn.terminate()


@asynccontextmanager
async def _answering(breaker: Breaker) -> AsyncIterator[None]:
    """The server gone, hanging, not ready or full, as our StoreUnavailable; the breaker
    hears of all but the last (a server that says it is full answers)."""
    import asyncpg

    try:
        yield
    except asyncpg.TooManyConnectionsError as err:
        raise StoreUnavailable(f"the database has no connection free for us: {err}") from err
    except TimeoutError as err:
        breaker.failed(Failure.TIMED_OUT, "no answer in time")
        raise StoreUnavailable(f"no answer within {STATEMENT_TIMEOUT_S:g} s") from err
    except _unanswered() as err:
        why = f"{type(err).__name__}: {err}"
        breaker.failed(Failure.UNREACHABLE, why)
        raise StoreUnavailable(why) from err


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
            await self._conn.executemany(numbered(sql), rows,
                                         timeout=STATEMENT_TIMEOUT_S + len(rows) * ROW_TIMEOUT_S)


SESSION_SETTINGS = {"jit": "off"}
"""Set on each of the store's connections. The store's statements are small and touch few
rows, yet the planner prices some above JIT's threshold (the notes search's subqueries, on
tables it has no statistics of yet): LLVM then compiles the statement for a second or more,
at every run of it, to save microseconds of execution."""


class PostgresDb:
    """The pool, behind a circuit breaker (bot/store/breaker.py): every statement waits at
    most STATEMENT_TIMEOUT_S, and none is tried while the server is known to be away."""

    dialect = Dialect.POSTGRES
    path = None

    def __init__(self, pool: Any, url: str) -> None:
        self.pool, self.url = pool, url
        self.breaker = Breaker(self._probe)
        self.turns = ConnectionTurns(pool.get_max_size(), pool.get_size, self._open_one,
                                     self._put_back)

    @classmethod
    async def open(cls, url: str, *, pool_size: int = DEFAULT_POOL_SIZE,
                   timeout_s: float = 10.0) -> PostgresDb:
        """A pool of at most `pool_size` connections on the server at `url`;
        DatabaseUnreachable (password left out) if it cannot be reached or refuses us."""
        import asyncpg  # only a PostgreSQL deployment loads the driver

        try:
            pool = await asyncpg.create_pool(url, min_size=1, max_size=pool_size,
                                             timeout=timeout_s,
                                             command_timeout=STATEMENT_TIMEOUT_S,
                                             server_settings=SESSION_SETTINGS)
        except Exception as err:  # at start, whatever it is: one line, never the password
            raise DatabaseUnreachable(f"cannot reach {described(url)} "
                                      f"({words_of(err, url)})") from None
        return cls(pool, url)

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        async with self.session() as conn:
            return await conn.fetch(sql, params)

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        async with self.session() as conn:
            return await conn.execute(sql, params)

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """All of `rows` or none (asyncpg runs them in one implicit transaction)."""
        rows = list(rows)
        if rows:
            async with self.session() as conn:
                await conn.executemany(sql, rows)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[_PgConn]:
        async with self._connection() as conn:
            started = conn.transaction()
            await started.start()
            try:
                yield _PgConn(conn)
            except _unanswered():
                raise  # nothing to roll back on: the connection is dropped
            except BaseException:
                await started.rollback()
                raise
            await started.commit()

    @asynccontextmanager
    async def session(self) -> AsyncIterator[_PgConn]:
        async with self._connection() as conn:
            yield _PgConn(conn)

    @asynccontextmanager
    async def _connection(self) -> AsyncIterator[Any]:
        """A connection of the pool for a few statements, their failures translated; none
        while the breaker is open."""
        refused = self.breaker.refusal()
        if refused is not None:
            raise StoreUnavailable(refused)
        async with _answering(self.breaker):
            conn = await self._acquire()
            try:
                yield conn
            except _unanswered():
                _terminate(conn)
                raise
            finally:
                await self._release(conn)

    async def _acquire(self) -> Any:
        """A connection within STATEMENT_TIMEOUT_S, in the order statements asked
        (bot/store/connection_turns.py). When the server has no more for us (a small plan,
        another instance holding its share), this waits for one of those the pool has."""
        async with asyncio.timeout(STATEMENT_TIMEOUT_S):
            try:
                await self.turns.take()
            except NoneOpen as none:
                raise none.cause from None
            try:
                return await self.pool.acquire()  # the idle one this turn is for
            except BaseException:
                self.turns.give_back()
                raise

    async def _open_one(self) -> Any:
        """A new connection of the pool, held; None (nothing opened) if one is idle."""
        if self.pool.get_idle_size():
            return None
        return await self.pool.acquire()  # with none idle, the pool opens one

    async def _put_back(self, conn: Any) -> None:
        await self.pool.release(conn, timeout=STATEMENT_TIMEOUT_S)

    async def _release(self, conn: Any) -> None:
        try:
            await self._put_back(conn)
        finally:
            self.turns.give_back()

    async def _probe(self) -> None:
        """Whether the server answers (raises if not), on a connection of its own: the
        pool's may all be waiting on a server that hangs. One that says it has no
        connection free answers."""
        import asyncpg

        try:
            conn = await asyncpg.connect(self.url, timeout=PROBE_TIMEOUT_S)
        except asyncpg.TooManyConnectionsError:
            return
        try:
            await conn.fetchval("SELECT 1", timeout=PROBE_TIMEOUT_S)
        finally:
            conn.terminate()

    async def close(self) -> None:
        """Close the connections, saying goodbye to a server that answers; one that does not
        is not waited for."""
        down = self.breaker.state is not BreakerState.CLOSED
        await self.breaker.close()
        await self.turns.close()
        if not down:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.pool.close(), STATEMENT_TIMEOUT_S)
                return
        self.pool.terminate()


async def open_db(target: Path | str, *, pool_size: int = DEFAULT_POOL_SIZE
                  ) -> SqliteDb | PostgresDb:
    """PostgreSQL for a `postgresql://` (or `postgres://`) URL (at most `pool_size`
    connections), else the SQLite file."""
    if is_postgres_url(target):
        return await PostgresDb.open(str(target), pool_size=pool_size)
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
