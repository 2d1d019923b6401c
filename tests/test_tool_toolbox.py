"""Toolbox: AGENT_TOOLS chooses the tools; one shared client; settings are checked."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import agent
import agent.settings
from agent import SettingsError, load_settings
from agent.settings import AgentSettings
from agent.tools import TOOL_CLASSES, TOOL_NAMES, Toolbox
from agent.tools.notes_index import Passage
from bot.bot_settings import BotSettings
from testkit.agentkit import TEST_KEY, agent_settings
from testkit.fakes.tools import open_toolbox, run_tool


def test_tool_names() -> None:
    assert TOOL_NAMES == ("calculate", "get_time", "get_weather", "convert_currency",
                          "search_notes", "search_wikipedia")
    assert tuple(cls.name for cls in TOOL_CLASSES) == TOOL_NAMES


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
             for alias in node.names}
    return names | {node.module for node in ast.walk(tree)
                    if isinstance(node, ast.ImportFrom) and node.module}


def _our_imports(module_file: str | None) -> set[str]:
    assert module_file is not None
    return {name for name in _imports(Path(module_file)) if name.split(".")[0] == "agent"}


def test_settings_check_tool_names_without_importing_the_tools() -> None:
    """agent.settings imports only leaves (the tools' names among them), so agent.settings and
    agent.tools import each other no more."""
    imported = _our_imports(agent.settings.__file__)
    assert "agent.tool_names" in imported
    assert {name: _our_imports(importlib.import_module(name).__file__)
            for name in imported} == {name: set() for name in imported}


async def test_all_tools_by_default_sharing_one_client() -> None:
    settings = agent_settings("http://127.0.0.1:9")
    async with open_toolbox(settings) as box:
        assert [tool.name for tool in box.tools] == list(TOOL_NAMES)
        clients = {id(tool.http) for tool in box.tools if hasattr(tool, "http")}
        assert clients == {id(box.http)}
        assert box.http.timeout.sock_read == settings.tool_http_timeout_s
        for tool in box.tools:  # every schema is one the model can read
            schema = tool.schema()["function"]
            assert schema["description"] and schema["parameters"]["type"] == "object"
            assert all(p.get("description") for p in schema["parameters"]["properties"].values())
    assert box.http.closed


class Notes:
    """A NotesIndex of the caller's: search_notes asks it, the toolbox never closes it."""

    def __init__(self) -> None:
        self.queries: list[str] = []

    async def search(self, query: str, limit: int = 3) -> list[Passage]:
        self.queries.append(query)
        return [Passage("react.md", "ReAct", "Reason, then act.")]

    async def close(self) -> None:
        raise AssertionError("the caller closes its own index")


async def test_agent_tools_chooses_and_skips_the_notes_index(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_TOOLS", " calculate , get_time,")
    settings = load_settings(AgentSettings, _env_file=None, openai_api_key=TEST_KEY)
    box = await Toolbox.open(settings, notes=Notes())
    await box.aclose()
    assert [tool.name for tool in box.tools] == ["calculate", "get_time"]
    assert box.notes is None


async def test_search_notes_uses_the_index_its_caller_gives() -> None:
    notes = Notes()
    settings = agent_settings("http://127.0.0.1:9", agent_tools="search_notes")
    async with open_toolbox(settings, notes=notes) as box:
        assert box.notes is notes
        assert await run_tool(box, "search_notes", query="ReAct") == (
            "[react.md › ReAct]\nReason, then act.")
    assert notes.queries == ["ReAct"]


def test_the_agent_knows_no_database_file() -> None:
    """The bot's database is the bot's: no agent module names it, no agent setting holds it."""
    root = Path(agent.__file__).parent
    naming = [path.relative_to(root).as_posix() for path in sorted(root.rglob("*.py"))
              if "database_path" in path.read_text(encoding="utf-8")]
    assert naming == []
    assert not any(name.split(".")[0] == "bot" for path in root.rglob("*.py")
                   for name in _imports(path))
    assert "database_path" not in AgentSettings.model_fields
    assert "database_path" in BotSettings.model_fields


def test_unknown_tool_name_is_a_settings_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_TOOLS", "calculate,web_browser")
    with pytest.raises(SettingsError, match=r"invalid setting AGENT_TOOLS: .*web_browser"):
        load_settings(AgentSettings, _env_file=None, openai_api_key=TEST_KEY)


def test_unknown_default_timezone_is_a_settings_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEFAULT_TIMEZONE", "Mars/Olympus_Mons")
    with pytest.raises(SettingsError, match="invalid setting DEFAULT_TIMEZONE"):
        load_settings(AgentSettings, _env_file=None, openai_api_key=TEST_KEY)
