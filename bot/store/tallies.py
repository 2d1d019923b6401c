"""The course's tallies (m017): what the class's counts add up, kept per UTC quarter hour by
triggers on the rows they count, so the figures of a class of 100,000 runs add up a few
thousand tallies instead of reading every run and tool call.

Triggers, not the run service, keep them: every way a row changes (a run's facts kept or
made again, a run forgotten, pruned or deleted with the run it followed, a copy from
another database) changes its tally in the same transaction. A quarter hour, not an hour:
a day in a zone half or a quarter of an hour off UTC (India's, Nepal's) starts inside a
UTC hour. A run counts once its facts are kept (`course_mode` set): until then (while it
runs, or before its facts are made from its steps) the counts read it from its own row.

The same SQL serves SQLite (a trigger per change) and PostgreSQL (one PL/pgSQL function).
"""

from __future__ import annotations

from dataclasses import dataclass


def quarter_hour(time: str) -> str:
    """SQL for the UTC quarter hour a stored time (UTC, ISO text) falls in, as text that
    sorts in time order ('2026-09-01T16:45'): cut from the text, cheaper than a date
    function, and the same in both databases."""
    return (f"substr({time}, 1, 14) || substr('00153045',"
            f" 1 + 2 * (CAST(substr({time}, 15, 2) AS INTEGER) / 15), 2)")


WHEN = ("conversation_kind", "chat_id", "quarter_hour")
"""The key every tally starts with: whose and when."""
COUNT = "count"
"""The name `Tally.create` reads an amount's type under."""


@dataclass(frozen=True, slots=True)
class Tally:
    table: str
    source: str
    """The table whose rows it counts."""
    key: tuple[tuple[str, str], ...]
    """(column, its value as SQL over a source row `{r}`)."""
    amounts: tuple[tuple[str, str], ...]
    """(column, what one source row `{r}` adds to it); the first counts the rows."""
    counts_if: str
    """SQL over `{r}`: whether a source row is counted."""
    changes: tuple[str, ...]
    """The source's columns whose change moves a row from one tally to another."""

    def create(self, types: dict[str, str], options: str = "") -> str:
        """The table: its columns' types by name (COUNT's for the amounts)."""
        columns = [f"{name} {types[name]} NOT NULL" for name, _ in self.key]
        columns += [f"{name} {types[COUNT]} NOT NULL" for name, _ in self.amounts]
        key = ", ".join(name for name, _ in self.key)
        return f"CREATE TABLE {self.table} ({', '.join(columns)}, PRIMARY KEY ({key})) {options}"

    def fill(self) -> str:
        """The tallies of the rows there are (the migration's start)."""
        return f"INSERT INTO {self.table} ({self._names()}) {self.count()}"

    def count(self) -> str:
        """SQL counting the rows there are into tallies, as the triggers keep them."""
        r = self.source
        key = [value.format(r=r) for _, value in self.key]
        return (f"SELECT {', '.join(key)}, "
                + ", ".join(f"sum({value.format(r=r)})" for _, value in self.amounts)
                + f" FROM {r} WHERE {self.counts_if.format(r=r)}"
                f" GROUP BY {', '.join(str(i) for i in range(1, len(key) + 1))}")

    def add(self, r: str) -> str:
        """A trigger's statement adding row `r` (NEW) to its tally."""
        names = ", ".join(name for name, _ in self.key)
        values = ", ".join(value.format(r=r) for _, value in (*self.key, *self.amounts))
        return (f"INSERT INTO {self.table} ({self._names()}) SELECT {values}"
                f" WHERE {self.counts_if.format(r=r)} ON CONFLICT ({names}) DO UPDATE SET "
                + ", ".join(f"{name} = {self.table}.{name} + excluded.{name}"
                            for name, _ in self.amounts))

    def take(self, r: str) -> str:
        """A trigger's statements taking row `r` (OLD) from its tally, and the tally that
        counts no row any more."""
        match = " AND ".join(f"{name} = {value.format(r=r)}" for name, value in self.key)
        rows = self.amounts[0][0]
        return (f"UPDATE {self.table} SET "
                + ", ".join(f"{name} = {name} - ({value.format(r=r)})"
                            for name, value in self.amounts)
                + f" WHERE {match} AND {self.counts_if.format(r=r)};"
                f" DELETE FROM {self.table} WHERE {match} AND {rows} = 0")

    def sqlite_triggers(self) -> str:
        return f"""
            CREATE TRIGGER {self.table}_insert AFTER INSERT ON {self.source}
            BEGIN {self.add('NEW')}; END;
            CREATE TRIGGER {self.table}_delete AFTER DELETE ON {self.source}
            BEGIN {self.take('OLD')}; END;
            CREATE TRIGGER {self.table}_update AFTER UPDATE OF {', '.join(self.changes)}
            ON {self.source} BEGIN {self.take('OLD')}; {self.add('NEW')}; END"""

    def postgres_trigger(self) -> str:
        return f"""
            CREATE FUNCTION {self.table}_count() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP <> 'INSERT' THEN {self.take('OLD')}; END IF;
                IF TG_OP <> 'DELETE' THEN {self.add('NEW')}; END IF;
                RETURN NULL;
            END $$;
            CREATE TRIGGER {self.table}_count AFTER INSERT OR DELETE
            OR UPDATE OF {', '.join(self.changes)} ON {self.source}
            FOR EACH ROW EXECUTE FUNCTION {self.table}_count()"""

    @property
    def columns(self) -> tuple[str, ...]:
        """Its columns after the conversation and the quarter hour every tally starts with."""
        return tuple(name for name, _ in (*self.key, *self.amounts) if name not in WHEN)

    def _names(self) -> str:
        return ", ".join(name for name, _ in (*self.key, *self.amounts))


_AT = (("conversation_kind", "{r}.conversation_kind"), ("chat_id", "{r}.chat_id"),
       ("quarter_hour", quarter_hour("{r}.started_at")))
RUNS = Tally(
    "runs_by_quarter_hour", "runs",
    key=(*_AT, ("course_mode", "{r}.course_mode"), ("status", "{r}.status"),
         ("error_kind", "coalesce({r}.error_kind, '')")),
    amounts=(("runs", "1"), ("compared", "CASE WHEN {r}.differs IS NULL THEN 0 ELSE 1 END"),
             ("differed", "coalesce({r}.differs, 0)"), ("tokens", "{r}.total_tokens"),
             ("quiz_rounds", "coalesce({r}.quiz_rounds, 0)"),
             ("quiz_right", "coalesce({r}.quiz_right, 0)")),
    # A comparison of stored runs asks no model: it is no question of the course's.
    counts_if="{r}.course_mode IS NOT NULL AND {r}.mode != 'runs'",
    changes=("conversation_kind", "chat_id", "started_at", "mode", "course_mode", "status",
             "error_kind", "differs", "total_tokens", "quiz_rounds", "quiz_right"))
TOOL_CALLS = Tally(
    "tool_calls_by_quarter_hour", "tool_calls",
    key=(*_AT, ("tool", "{r}.tool")),
    amounts=(("calls", "1"), ("failed", "1 - {r}.ok")),
    counts_if="true",
    changes=("conversation_kind", "chat_id", "started_at", "tool", "ok"))
TALLIES = (RUNS, TOOL_CALLS)
