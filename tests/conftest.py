"""Shared fixtures: the fake model server, agent settings pointing at it and the toolbox they
choose; the bot (`gb`) running against the fake Bot API and the fake model. A module changes
what differs by overriding a small fixture (`tool_settings`, `gb_tools`, `fake_telegram`).
Plain helpers and constants are in kit.py and botkit.py: no test imports this module.
Each test's marks (browser, process, timed, slow) come from tests/marks.py; the timed tests
run alone (tests/alone.py); the long ones start first (tests/spread.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from agent import AgentSettings, ModelClient
from agent.tool import Tool
from agent.tools import Toolbox
from gallery.pictures import CHROMIUM
from gallery.pictures import chromium as launched_chromium
from testkit.agentkit import agent_settings
from testkit.botkit import SCALE, Glassbox, people, running
from testkit.dbkit import BACKENDS, Migrated, Target, database
from testkit.fakes.model import FakeModel
from testkit.fakes.telegram import FakeTelegram
from testkit.fakes.tools import open_toolbox
from tests.alone import Alone
from tests.marks import SlowWatch, mark_all
from tests.spread import LongestFirst


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    mark_all(items)


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(SlowWatch(), "slow-watch")
    config.pluginmanager.register(Alone(), "timed-alone")


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> LongestFirst | None:
    """`--dist loadfile` (scripts/test) by tests/spread.py: the long units first."""
    return LongestFirst(config, log) if config.getvalue("dist") == "loadfile" else None


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def chromium() -> AsyncIterator[Any | None]:
    """Debian's chromium, launched once for the session (None where it is not installed):
    each test opens its own pages, each page in a context of its own. A test that asks for
    it runs in the session's event loop, where the browser lives (tests/marks.py)."""
    if not CHROMIUM.exists():
        yield None
        return
    async with launched_chromium() as browser:
        yield browser


@pytest_asyncio.fixture(loop_scope="session")
async def browser(chromium: Any | None) -> AsyncIterator[Any]:
    """The session's chromium (the test is skipped where there is none); the pages the test
    opened are closed after it, with their contexts, so none goes on reaching for a server
    that is gone (a worker runs one test at a time: none is another test's)."""
    if chromium is None:
        pytest.skip("Debian's chromium is not installed (.ci/run installs it)")
    yield chromium
    for context in chromium.contexts:
        await context.close()


@pytest.fixture(params=BACKENDS)
async def db_target(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Target]:
    """Where a test's store lives, once for each backend: a SQLite file in tmp_path, then a
    fresh PostgreSQL database (testkit/dbkit.py)."""
    async with database(request.param, tmp_path / "data" / "glassbox.sqlite3") as target:
        yield target


@pytest.fixture(scope="session")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Migrated]:
    """The stores with every migration applied that this test process copies."""
    stores = Migrated(tmp_path_factory.mktemp("migrated"))
    yield stores
    stores.drop()


@pytest.fixture(params=BACKENDS)
async def migrated_target(request: pytest.FixtureRequest, tmp_path: Path,
                          migrated: Migrated) -> AsyncIterator[Target]:
    """As `db_target`, with the store's migrations already applied: for a test that opens
    the store as it is, never one that writes an older schema first."""
    async with migrated.copy(request.param, tmp_path / "data" / "glassbox.sqlite3") as target:
        yield target


@pytest.fixture
def fake_model() -> Iterator[FakeModel]:
    with FakeModel() as server:
        yield server


@pytest.fixture
def tool_settings() -> dict[str, Any]:
    """What `settings` sets for the tools: nothing. A tool's test module overrides this
    fixture (AGENT_TOOLS, where its fake upstream is, the database in tmp_path)."""
    return {}


@pytest.fixture
def settings(fake_model: FakeModel, tool_settings: dict[str, Any]) -> AgentSettings:
    return agent_settings(fake_model.base_url, **tool_settings)


@pytest.fixture
async def client(settings: AgentSettings) -> AsyncIterator[ModelClient]:
    model = ModelClient(settings)
    yield model
    await model.close()


@pytest.fixture
async def box(settings: AgentSettings) -> AsyncIterator[Toolbox]:
    """The tools `settings` chooses, opened (and closed after the test)."""
    async with open_toolbox(settings) as toolbox:
        yield toolbox


@pytest.fixture
def fake_telegram() -> Iterator[FakeTelegram]:
    """The fake Bot API on the bot tests' clock (SCALE), the class in it (botkit.people).
    A module that needs more people overrides this fixture, asking for this one."""
    with FakeTelegram(scale=SCALE) as tg:
        people(tg)
        yield tg


@pytest.fixture
def gb_tools() -> Sequence[Tool] | None:
    """The tools `gb` runs with: none. A module overrides this fixture to give it some
    (None: the real toolbox, as AGENT_TOOLS says)."""
    return ()


@pytest.fixture
async def gb_database(tmp_path: Path, migrated: Migrated) -> AsyncIterator[Target]:
    """Where `gb` keeps its store: a migrated SQLite file in tmp_path. A module whose tests
    run on both backends overrides it to ask for `migrated_target`."""
    async with migrated.copy("sqlite", tmp_path / "g.sqlite3") as target:
        yield target


@pytest.fixture
async def gb(fake_telegram: FakeTelegram, fake_model: FakeModel,
             gb_tools: Sequence[Tool] | None, gb_database: Target) -> AsyncIterator[Glassbox]:
    """Glassbox running against `fake_telegram` and `fake_model`, its store at `gb_database`."""
    async with running(fake_telegram, fake_model, gb_database,
                       tools=gb_tools) as glassbox:
        yield glassbox
