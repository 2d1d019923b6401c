"""search_notes: FTS5 trigram search over a notes folder, kept fresh as files change; in the
agent's own in-memory index and in the bot's database alike (`where`)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from agent import AgentSettings, ModelClient
from agent.tool import ToolError
from agent.tools import Toolbox
from bot.store.course_notes import open_notes_index
from bot.store.transcripts import Store
from testkit import dbkit
from testkit.agentkit import agent_settings
from testkit.dbkit import Target
from testkit.fakes.model import FakeModel
from testkit.fakes.tools import observe, open_toolbox, run_tool

SHIPPED = Path(__file__).resolve().parent.parent / "data" / "notes"

AGENTS_MD = """# 智能体

## 工具调用
智能体通过工具调用获取外部信息，例如查询天气或者汇率。

## 记忆
对话历史保存在数据库里，追问时会带上之前的问答。

# Agents

## Planning
An agent breaks a task into steps and plans which tool to call first.
"""


@pytest.fixture
def notes_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "agents.md").write_text(AGENTS_MD, encoding="utf-8")
    (folder / "misc.txt").write_text("Office hours are on Thursday afternoon.\n", "utf-8")
    (folder / "image.png").write_bytes(b"\x89PNG not a note: Thursday")
    return folder


@pytest.fixture
def tool_settings(notes_dir: Path) -> dict[str, Any]:
    return {"agent_tools": "search_notes", "notes_dir": notes_dir}


@asynccontextmanager
async def notes_toolbox(settings: AgentSettings, where: str,
                        database: Target) -> AsyncIterator[Toolbox]:
    """The toolbox with the agent's own index in memory (`where="memory"`), or with the
    one the bot gives it, in the bot's database at `database` (`where="bot"`, or
    `"bot-postgres"`: on PostgreSQL)."""
    if where == "memory":
        async with open_toolbox(settings) as box:
            yield box
        return
    store = await Store.open(database)
    try:
        index = await open_notes_index(store, settings.notes_dir)
        try:
            async with open_toolbox(settings, notes=index) as box:
                yield box
        finally:
            await index.close()
    finally:
        await store.close()


@pytest.fixture(params=["memory", "bot", "bot-postgres"])
def where(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def database(tmp_path: Path, where: str) -> AsyncIterator[Target]:
    """The bot's database: a SQLite file, or (`bot-postgres`) a PostgreSQL database."""
    backend = "postgres" if where == "bot-postgres" else "sqlite"
    async with dbkit.database(backend, tmp_path / "data" / "bot.sqlite3") as target:
        yield target


@pytest.fixture
async def box(settings: AgentSettings, where: str, database: Target) -> AsyncIterator[Toolbox]:
    async with notes_toolbox(settings, where, database) as toolbox:
        yield toolbox


async def test_chinese_query_finds_the_passage_with_file_and_heading(box: Toolbox) -> None:
    text = await run_tool(box, "search_notes", query="工具调用")
    assert text.startswith("[agents.md › 工具调用]\n智能体通过工具调用获取外部信息")


async def test_a_chinese_question_finds_its_trigrams(box: Toolbox) -> None:
    text = await run_tool(box, "search_notes", query="对话历史怎么保存？")
    assert text.startswith("[agents.md › 记忆]\n对话历史保存在数据库里")


async def test_two_character_chinese_words_work_too(box: Toolbox) -> None:
    text = await run_tool(box, "search_notes", query="记忆")
    assert text.startswith("[agents.md › 记忆]")


async def test_english_query_and_text_files(box: Toolbox) -> None:
    text = await run_tool(box, "search_notes", query="which tool to plan")
    assert text.startswith("[agents.md › Planning]\nAn agent breaks a task into steps")
    text = await run_tool(box, "search_notes", query="office hours")
    assert text == "[misc.txt]\nOffice hours are on Thursday afternoon."


async def test_at_most_three_passages(box: Toolbox, notes_dir: Path) -> None:
    lines = "\n\n".join(f"Paragraph {i} about tokens." for i in range(6))
    (notes_dir / "tokens.md").write_text(f"# Tokens\n\n{lines}\n", "utf-8")
    text = await run_tool(box, "search_notes", query="tokens")
    assert text.count("[tokens.md › Tokens]") == 3


async def test_bilingual_notes_give_the_passages_in_the_runs_language_first(
        box: Toolbox, notes_dir: Path) -> None:
    """Notes that hold a topic in both languages: an English run gets the English passages
    even where the Chinese ones rank higher (a small model answered from memory when all
    it was shown was Chinese), and a Chinese run the Chinese ones."""
    chinese = "\n\n".join(f"第 {i} 段：ReAct 交替写出思考和行动。ReAct ReAct" for i in range(4))
    (notes_dir / "react.md").write_text(
        f"# ReAct（中文）\n\n{chinese}\n\n# ReAct\n\nReAct alternates Thought and Action.\n",
        "utf-8")
    english = await run_tool(box, "search_notes", query="ReAct", lang="en")
    assert english.startswith("[react.md › ReAct]\nReAct alternates Thought and Action.")
    assert english.count("[react.md") == 3
    chinese_first = await run_tool(box, "search_notes", query="ReAct", lang="zh")
    assert chinese_first.startswith("[react.md › ReAct（中文）]\n第")
    assert "ReAct alternates" not in chinese_first


async def test_nothing_found_is_a_clear_error(box: Toolbox) -> None:
    with pytest.raises(ToolError, match="Nothing about 'quantum chromodynamics' in the course"):
        await run_tool(box, "search_notes", query="quantum chromodynamics")
    with pytest.raises(ToolError, match="课程笔记里没有找到与 “量子色动力学” 相关的内容"):
        await run_tool(box, "search_notes", query="量子色动力学")
    with pytest.raises(ToolError, match="Nothing about 'is'"):
        await run_tool(box, "search_notes", query="is")


async def test_query_syntax_is_never_interpreted(box: Toolbox) -> None:
    for query in ['"agent" OR NEAR(', "plan*", "NOT agent", "-- ; DROP TABLE notes_files"]:
        try:
            await run_tool(box, "search_notes", query=query)
        except ToolError as exc:
            assert "Nothing about" in str(exc)


async def test_changed_added_and_removed_files_are_reindexed(box: Toolbox,
                                                             notes_dir: Path) -> None:
    assert "Thursday" in await run_tool(box, "search_notes", query="office hours")
    misc = notes_dir / "misc.txt"
    misc.write_text("Office hours moved to Monday morning.\n", "utf-8")
    os.utime(misc, ns=(misc.stat().st_atime_ns, misc.stat().st_mtime_ns + 10**9))
    assert await run_tool(box, "search_notes", query="office hours") == \
        "[misc.txt]\nOffice hours moved to Monday morning."
    (notes_dir / "sub").mkdir()
    (notes_dir / "sub" / "new.md").write_text("# 新章节\n\n反向传播算法计算梯度。\n", "utf-8")
    assert (await run_tool(box, "search_notes", query="反向传播")).startswith(
        "[sub/new.md › 新章节]")
    misc.unlink()
    with pytest.raises(ToolError):
        await run_tool(box, "search_notes", query="office hours")


async def test_the_bots_index_lives_in_its_database(settings: AgentSettings, where: str,
                                                    database: Target) -> None:
    if where == "memory":
        pytest.skip("the agent's own index has no database")
    async with notes_toolbox(settings, where, database) as box:
        await run_tool(box, "search_notes", query="工具调用")
    files = {row[0] for row in await dbkit.query(database, "SELECT path FROM notes_files")}
    migrations = {row[0] for row in await dbkit.query(
        database, "SELECT name FROM transcript_migrations")}
    assert files == {"agents.md", "misc.txt"}
    assert "m004_notes_index" in migrations


async def test_the_agents_own_index_writes_no_file(settings: AgentSettings, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    before = sorted(tmp_path.rglob("*"))
    async with notes_toolbox(settings, "memory", tmp_path / "unused") as box:
        assert "智能体" in await run_tool(box, "search_notes", query="工具调用")
    assert sorted(tmp_path.rglob("*")) == before


async def test_a_missing_notes_folder_finds_nothing(tmp_path: Path, where: str,
                                                    database: Target) -> None:
    settings = agent_settings("http://127.0.0.1:9", agent_tools="search_notes",
                              notes_dir=tmp_path / "nowhere")
    async with notes_toolbox(settings, where, database) as box:
        with pytest.raises(ToolError, match="Nothing about 'ReAct'"):
            await run_tool(box, "search_notes", query="ReAct")


@pytest.mark.parametrize(("query", "found"), [
    ("ReAct 循环", "[react.md › ReAct 是什么]"),
    ("什么是思维链", "[chain-of-thought.md › 什么是思维链]"),
    ("zero-shot chain-of-thought", "[chain-of-thought.md › Two ways to use it]"),
    ("tool_call_id", "[function-calling.md › "),
    ("计算器 eval", "[tool-use.md › 安全]"),
])
async def test_the_shipped_notes_answer_a_fresh_install(query: str, found: str, where: str,
                                                        database: Target) -> None:
    settings = agent_settings("http://127.0.0.1:9", agent_tools="search_notes",
                              notes_dir=SHIPPED)
    async with notes_toolbox(settings, where, database) as box:
        assert (await run_tool(box, "search_notes", query=query)).startswith(found)


async def test_through_the_loop(fake_model: FakeModel, client: ModelClient,
                                settings: AgentSettings, box: Toolbox) -> None:
    seen = await observe(fake_model, client, settings, box, "课程里怎么讲工具调用的？",
                         "search_notes", {"query": "工具调用"})
    assert seen.ok
    assert seen.text.startswith("[agents.md › 工具调用]\n智能体通过工具调用获取外部信息")


async def test_a_search_on_postgresql_is_never_compiled(notes_dir: Path) -> None:
    """The planner prices the search above PostgreSQL's JIT threshold (its subqueries, on
    tables without statistics yet), and LLVM's compile took over a second of every search
    that runs in microseconds: the store's connections have JIT off."""
    async with dbkit.fresh_postgres() as url:
        store = await Store.open(url)
        try:
            index = await open_notes_index(store, notes_dir)
            assert (await index.search("which tool to plan"))[0].heading == "Planning"
            assert [tuple(row) for row in await store.db.fetch("SHOW jit")] == [("off",)]
        finally:
            await store.close()
