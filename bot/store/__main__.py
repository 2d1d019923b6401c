"""`python -m bot.store copy --from SOURCE --to TARGET`: move a class's store from one
database to another (bot/store/copy.py), e.g. from a school server's SQLite file to a PaaS's
PostgreSQL:

    python -m bot.store copy --from sqlite:///data/glassbox.sqlite3 --to postgresql://…

A database is `sqlite:///relative/path`, `sqlite:////absolute/path`, a plain file path, or a
`postgresql://` (`postgres://`) URL. Both are brought to the current schema first. Prints
what each table held and how many rows it copied; exit 2, with one line, when either
database cannot be opened or the target holds another class's runs.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from bot.store import database_url
from bot.store.copy import TargetInUse, copy_store, report_lines
from bot.store.db import DatabaseUnreachable, is_postgres_url
from bot.store.transcripts import Store


def database(value: str) -> Path | str:
    """A database argument as Store.open takes it."""
    if is_postgres_url(value):
        try:
            database_url.check(value)
        except ValueError as err:
            raise argparse.ArgumentTypeError(f"that URL cannot be read: {err}") from None
        return value
    if value.startswith("sqlite:///"):
        return Path(value.removeprefix("sqlite:///"))
    if "://" in value:
        raise argparse.ArgumentTypeError(
            f"expected sqlite:///PATH, a file path or a postgresql:// URL, not "
            f"{database_url.redact(value)}")
    return Path(value)


async def copy(source: Path | str, target: Path | str) -> list[str]:
    opened = await Store.open(source)
    try:
        into = await Store.open(target)
        try:
            return report_lines(await copy_store(opened, into))
        finally:
            await into.close()
    finally:
        await opened.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.store",
                                     description="Glassbox's store: copy it to another database.")
    commands = parser.add_subparsers(dest="command", required=True)
    copying = commands.add_parser("copy", help="copy every run, setting and upload across "
                                               "(again: copies only what is missing)")
    copying.add_argument("--from", dest="source", type=database, required=True)
    copying.add_argument("--to", dest="target", type=database, required=True)
    args = parser.parse_args(argv)
    if isinstance(args.source, Path) and not args.source.is_file():
        print(f"Cannot copy: there is no database file at {args.source}.", file=sys.stderr)
        return 2
    try:
        lines = asyncio.run(copy(args.source, args.target))
    except (DatabaseUnreachable, TargetInUse) as err:
        print(f"Cannot copy: {err}.", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
