"""DATABASE_URL as operators write it, against `python -m bot`: a generated password holding
'/', '#', '?' or '@' unencoded, a port out of range, a database that refuses to be set up, a
SQLite file that cannot be opened. Each ends the start in one clear line, exit code 2, that
never quotes the password (nor a piece of it) and says how to write it; the log filter
blanks the password as written and decoded."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import asyncpg
import pytest

from bot.bot_settings import BotSettings
from bot.store import database_url
from bot.telegram.app import redaction
from testkit.agentkit import TEST_KEY
from testkit.bot_process import bot_process, free_port
from testkit.dbkit import fresh_postgres
from testkit.fakes.model import FakeModel
from testkit.fakes.telegram import TOKEN, FakeTelegram

PASSWORD = "Zq9Secret{}Part7x"
"""A generated password; each case puts one delimiter in its middle."""
ENCODE = "percent-encode it ('/' as %2F, '?' as %3F, '#' as %23, '@' as %40"


def start_line(tmp_path: Path, **env: str) -> str:
    """The one line `python -m bot` ends its start with (exit code 2), checked to be alone."""
    with FakeTelegram() as tg, FakeModel() as model, bot_process(tg, model, tmp_path,
                                                                  **env) as bot:
        code = bot.proc.wait(60)
        log = bot.output()
    assert code == 2 and "Traceback" not in log, log
    [line] = log.strip().splitlines()
    return line


def never_quoted(line: str, password: str) -> None:
    for piece in (password, quote(password, safe=""), "Zq9Secret", "Part7x"):
        assert piece not in line, line


@pytest.mark.parametrize("delimiter", ["/", "#", "?", "@"])
def test_a_password_with_a_delimiter_as_it_is_is_refused_without_quoting_it(
        tmp_path: Path, delimiter: str) -> None:
    password = PASSWORD.format(delimiter)
    url = f"postgres://teacher:{password}@127.0.0.1:{free_port()}/glassbox"
    line = start_line(tmp_path, DATABASE_URL=url)
    never_quoted(line, password)
    assert line.startswith("Glassbox cannot start: invalid setting DATABASE_URL: ")
    assert ENCODE in line


@pytest.mark.parametrize("port", ["70000", "0", "54x2"])
def test_a_port_out_of_range_is_one_line(tmp_path: Path, port: str) -> None:
    password = PASSWORD.format("-")
    line = start_line(tmp_path, DATABASE_URL=f"postgresql://teacher:{password}@127.0.0.1:"
                                             f"{port}/glassbox")
    never_quoted(line, password)
    assert line.endswith("DATABASE_URL: Value error, its port must be a number from 1 to "
                         "65535.")


async def test_a_database_that_refuses_to_be_set_up_is_one_line_without_the_password(
        tmp_path: Path) -> None:
    password = PASSWORD.format("/")
    async with fresh_postgres() as admin_url:
        role = "reader_" + admin_url.rsplit("_", 1)[1]
        admin = await asyncpg.connect(admin_url)
        try:  # a role that may connect but not create tables
            await admin.execute(f"CREATE ROLE {role} LOGIN PASSWORD '{password}'")
            await admin.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
            host_and_db = admin_url.split("@", 1)[1]
            url = f"postgresql://{role}:{quote(password, safe='')}@{host_and_db}"
            line = start_line(tmp_path, DATABASE_URL=url)
        finally:
            await admin.execute(f"DROP ROLE IF EXISTS {role}")
            await admin.close()
    never_quoted(line, password)
    assert line.startswith(f"Glassbox cannot start: cannot set up the tables of the PostgreSQL "
                           f"database at postgresql://{role}:***@{host_and_db} (")
    assert "permission denied for schema public" in line


def test_a_sqlite_file_that_cannot_be_opened_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "data").write_text("a file where a folder should be")
    line = start_line(tmp_path, DATABASE_PATH=str(tmp_path / "data" / "g.sqlite3"))
    assert line.startswith(f"Glassbox cannot start: cannot open the SQLite database at "
                           f"{tmp_path}/data/g.sqlite3 (")


def test_the_log_filter_blanks_the_password_as_written_and_decoded() -> None:
    password = PASSWORD.format("/")
    written = quote(password, safe="")
    settings = BotSettings(_env_file=None, telegram_bot_token=TOKEN, openai_api_key=TEST_KEY,
                           database_url=f"postgresql://teacher:{written}@db.example:5432/g")
    shown = redaction(settings).text(f"connecting to postgresql://teacher:{written}@db.example"
                                     f" as teacher with {password}")
    assert written not in shown and password not in shown
    assert shown == ("connecting to postgresql://teacher:[secret]@db.example as teacher with "
                     "[secret]")
    settings = BotSettings(_env_file=None, telegram_bot_token=TOKEN, openai_api_key=TEST_KEY,
                           database_url=f"postgresql://db.example/g?user=teacher&password="
                                        f"{written}&sslmode=require")
    assert redaction(settings).text(f"password={written} is {password}") == \
        "password=[secret] is [secret]"


@pytest.mark.parametrize("url", [
    "postgresql://teacher:Zq9Secret%2FPart@127.0.0.1:5432/glassbox",
    "postgres://teacher:p:a;s$s!w*o(r)d@db.example.com/glassbox?sslmode=require",
    "postgresql://teacher@h1:5432,h2:5433/glassbox?target_session_attrs=read-write",
    "postgresql://teacher:secret@[::1]:5432/glassbox",
    "postgresql:///glassbox?host=/var/run/postgresql",
    "postgresql://db.example/glassbox?user=teacher@corp&password=s3cret",
    "postgresql://localhost",
])
def test_urls_the_driver_reads_as_written_are_taken(url: str) -> None:
    database_url.check(url)
