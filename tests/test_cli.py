"""`python -m agent` as a student would run it, against the fake model server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from agent.model.endpoint_memory import endpoint_key
from bot.store.transcripts import Store
from testkit.agentkit import TEST_KEY
from testkit.dbkit import Target
from testkit.fakes.model import FakeModel, error, text_reply, tool_reply

ROOT = Path(__file__).resolve().parent.parent


def run_cli(args: list[str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("OPENAI_", "DASHSCOPE_", "LLM_", "AGENT_"))}
    base.update(PYTHONPATH=str(ROOT), NOTES_DIR=str(ROOT / "data" / "notes"),
                XDG_CACHE_HOME=str(own_cache(tmp_path)))  # what auto mode learns stays here
    base.update(env)
    return subprocess.run([sys.executable, "-m", "agent", *args], cwd=tmp_path, env=base,
                          capture_output=True, text=True, timeout=60)


def own_cache(tmp_path: Path) -> Path:
    """The test's cache directory, beside the directory the terminal runs in."""
    return tmp_path.with_name(tmp_path.name + "-cache")


def model_env(fake: FakeModel) -> dict[str, str]:
    return {"OPENAI_BASE_URL": fake.base_url, "OPENAI_API_KEY": TEST_KEY, "LLM_MAX_RETRIES": "0"}


def lines(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_json_prints_the_chain(fake_model: FakeModel, tmp_path: Path) -> None:
    fake_model.push(tool_reply(("calculate", {"expression": "2**100"})),
                    text_reply("2^100 = 1267650600228229401496703205376"))
    done = run_cli(["--json", "What is 2**100?"], tmp_path, **model_env(fake_model))
    assert done.returncode == 0, done.stderr
    events = lines(done.stdout)
    types = [e["type"] for e in events]  # the text's deltas: one a read of the stream
    assert [t for n, t in enumerate(types) if n == 0 or t != types[n - 1]] == [
        "run_started", "note", "action", "observation",
        "text_delta", "note", "answer", "run_finished"]
    note, action, observation = events[1:4]
    assert note["round"] == 1 and note["kind"] == "no_reasoning" and "calculate" in note["text"]
    assert action["tool"] == "calculate" and action["arguments"] == {"expression": "2**100"}
    assert observation["ok"] is True and "1267650600228229401496703205376" in observation["text"]
    assert isinstance(observation["duration_ms"], int)
    finished = events[-1]
    assert finished["status"] == "done" and finished["usage"]["total_tokens"] > 0
    assert TEST_KEY not in done.stdout + done.stderr


def test_model_error_exits_1(fake_model: FakeModel, tmp_path: Path) -> None:
    fake_model.push(error("dashscope/error_401_invalid_api_key.json", 401))
    done = run_cli(["--json", "hello"], tmp_path, **model_env(fake_model))
    assert done.returncode == 1
    finished = lines(done.stdout)[-1]
    assert finished["type"] == "run_finished" and finished["status"] == "error"
    assert "API key" in finished["reason"]
    assert TEST_KEY not in done.stdout + done.stderr


def test_missing_and_invalid_settings_exit_2(tmp_path: Path) -> None:
    done = run_cli(["hello"], tmp_path, LLM_TIMEOUT_S="soon")
    assert done.returncode == 2
    assert "OPENAI_API_KEY" in done.stderr and "LLM_TIMEOUT_S" in done.stderr
    assert "Traceback" not in done.stderr


def test_compare_runs_both(fake_model: FakeModel, tmp_path: Path) -> None:
    def answer(body: dict[str, Any]) -> Any:
        if "tools" not in body:
            return text_reply("Probably around 1.27e30.")
        if body["messages"][-1]["role"] == "tool":
            return text_reply("Exactly 1267650600228229401496703205376.")
        return tool_reply(("calculate", {"expression": "2**100"}))

    fake_model.default = answer
    done = run_cli(["--compare", "--json", "2**100?"], tmp_path, **model_env(fake_model))
    assert done.returncode == 0, done.stderr
    events = lines(done.stdout)
    answers = {e["lane"]: e["text"] for e in events if e["type"] == "answer"}
    assert answers == {"plain": "Probably around 1.27e30.",
                       "react": "Exactly 1267650600228229401496703205376."}
    assert {e["lane"] for e in events if e["type"] == "action"} == {"react"}
    assert events[-1]["type"] == "judgement" and events[-1]["text"].startswith("They differ")


def test_terminal_output_reads_like_a_chain(fake_model: FakeModel, tmp_path: Path) -> None:
    fake_model.push(tool_reply(("calculate", {"expression": "6*7"})), text_reply("It is 42."))
    done = run_cli(["What is 6*7?"], tmp_path, **model_env(fake_model))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "\033[" not in out  # not a terminal: no colour codes
    for piece in ["Round 1", "📝 Written by Glassbox: the model wrote no reasoning; it called "
                  "calculate.", "🔧 calculate(expression=\"6*7\")",
                  "👀 Observation ✅ 6*7 = 42", "Round 2", "✍️ It is 42.\n", "↑ 💬 Answer",
                  "tokens · 1 tool call"]:
        assert piece in out, piece
    assert out.index("Round 1") < out.index("🔧") < out.index("✍️ It is 42.") < out.index(
        "↑ 💬 Answer")
    assert out.count("It is 42.") == 1 and "Thought" not in out
    assert "ⁱ" not in out  # 42 is the calculator's


def test_a_figure_nothing_backs_is_named_under_the_answer(fake_model: FakeModel,
                                                          tmp_path: Path) -> None:
    """The terminal streams the answer as it comes, so the figures that nothing backs (here
    after the model was sent back once and said the same) are named in a line after it."""
    rose = text_reply("It rose by 12%.")
    fake_model.push(tool_reply(("calculate", {"expression": "92 - 80"})), rose, rose)
    done = run_cli(["A price went from 80 to 92. By what percent did it rise?"], tmp_path,
                   **model_env(fake_model))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "ⁱ not from any observation: 12%" in out, out
    assert out.rindex("↑ 💬 Answer") < out.index("ⁱ not from any observation")


def test_search_notes_keeps_its_index_in_memory(fake_model: FakeModel, tmp_path: Path) -> None:
    """The agent has no database file: searching the notes writes nothing where it runs."""
    fake_model.push(tool_reply(("search_notes", {"query": "ReAct 循环"})), text_reply("OK."))
    done = run_cli(["--json", "ReAct 循环是什么？"], tmp_path, **model_env(fake_model))
    assert done.returncode == 0, done.stderr
    [observation] = [e for e in lines(done.stdout) if e["type"] == "observation"]
    assert observation["ok"] and observation["text"].startswith("[react.md › ReAct 是什么]")
    assert list(tmp_path.iterdir()) == []


def test_step_asks_in_the_terminal_before_each_action(fake_model: FakeModel,
                                                      tmp_path: Path) -> None:
    fake_model.push(tool_reply(("calculate", {"expression": "2+2"})),
                    tool_reply(("calculate", {"expression": "3+3"})),
                    text_reply("Done."))
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("OPENAI_", "DASHSCOPE_", "LLM_", "AGENT_"))}
    base.update(PYTHONPATH=str(ROOT), NOTES_DIR=str(ROOT / "data" / "notes"),
                XDG_CACHE_HOME=str(own_cache(tmp_path)), **model_env(fake_model))
    done = subprocess.run([sys.executable, "-m", "agent", "--step", "--json", "add things"],
                          cwd=tmp_path, env=base, capture_output=True, text=True, timeout=60,
                          input="e\n{\"expression\"\n10*10\ns\n")
    assert done.returncode == 0, done.stderr
    events = lines(done.stdout)
    decided = [e for e in events if e["type"] == "decided"]
    assert [(d["decision"], d["arguments"]) for d in decided] == [
        ("edit", {"expression": "10*10"}), ("skip", None)]
    observations = [e["text"] for e in events if e["type"] == "observation"]
    assert observations[0] == "10*10 = 100" and observations[1].startswith("skipped by ")
    assert "run/edit/skip/stop" in done.stderr and "⚠️" in done.stderr


def test_the_terminal_remembers_what_auto_mode_learned(fake_model: FakeModel,
                                                       tmp_path: Path) -> None:
    """The first question's model writes its call as text: the run goes on in the text
    format, and the user's cache keeps it, so the second question (a new process) starts
    in the text format: one prompt read, not a native one and then a text one."""
    cache = own_cache(tmp_path)
    env = model_env(fake_model)
    fake_model.push(
        text_reply('<tool_call>\n{"name": "calculate", "arguments": {"expression": "6*7"}}'
                   "\n</tool_call>"),
        text_reply("Thought: I have it.\nFinal Answer: 6*7 = 42."))
    first = run_cli(["--json", "What is 6*7?"], tmp_path, **env)
    assert first.returncode == 0, first.stderr
    assert "tools" in fake_model.bodies[0] and "tools" not in fake_model.bodies[1]
    kept = json.loads((cache / "glassbox" / "endpoints.json").read_text("utf-8"))
    (learned,) = kept.values()
    assert learned["calls_as_text"] is True
    assert TEST_KEY not in json.dumps(kept)

    fake_model.push(text_reply("Thought: I need the calculator.\nAction: calculate[7*8]"),
                    text_reply("Thought: I have it.\nFinal Answer: 7*8 = 56."))
    second = run_cli(["--json", "What is 7*8?"], tmp_path, **env)
    assert second.returncode == 0, second.stderr
    assert len(fake_model.bodies) == 4 and "tools" not in fake_model.bodies[2]
    answers = [e["text"] for e in lines(second.stdout) if e["type"] == "answer"]
    assert answers == ["7*8 = 56."]


def test_an_unwritable_cache_is_no_failure(fake_model: FakeModel, tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    fake_model.push(text_reply("Hello!"))
    done = run_cli(["--json", "hi"], tmp_path, **model_env(fake_model),
                   XDG_CACHE_HOME=str(blocked))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr


def store_env(target: Target) -> dict[str, str]:
    return {"DATABASE_URL": target} if isinstance(target, str) else {
        "DATABASE_PATH": str(target)}


async def test_the_terminal_keeps_its_lessons_in_the_bots_store(
        fake_model: FakeModel, tmp_path: Path, db_target: Target) -> None:
    """With DATABASE_PATH or DATABASE_URL set, what the first question taught goes into the
    bot's store (the row a bot's start reads), not the cache file, and the second question
    starts in the text format from it."""
    env = {**model_env(fake_model), **store_env(db_target)}
    fake_model.push(
        text_reply('<tool_call>\n{"name": "calculate", "arguments": {"expression": "6*7"}}'
                   "\n</tool_call>"),
        text_reply("Thought: I have it.\nFinal Answer: 6*7 = 42."))
    first = run_cli(["--json", "What is 6*7?"], tmp_path, **env)
    assert first.returncode == 0, first.stderr
    assert not (own_cache(tmp_path) / "glassbox" / "endpoints.json").exists()
    store = await Store.open(db_target)
    try:
        rows = list(await store.db.fetch("SELECT endpoint FROM endpoint_memory"))
        assert [row[0] for row in rows] == [endpoint_key(fake_model.base_url, "qwen-plus")]
        assert (await store.endpoints.get(rows[0][0])).calls_as_text is True
    finally:
        await store.close()

    fake_model.push(text_reply("Thought: I need the calculator.\nAction: calculate[7*8]"),
                    text_reply("Thought: I have it.\nFinal Answer: 7*8 = 56."))
    second = run_cli(["--json", "What is 7*8?"], tmp_path, **env)
    assert second.returncode == 0, second.stderr
    assert len(fake_model.bodies) == 4 and "tools" not in fake_model.bodies[2]


def test_an_unreachable_store_leaves_the_lesson_in_the_cache(fake_model: FakeModel,
                                                             tmp_path: Path) -> None:
    fake_model.push(text_reply("Hello!"))
    done = run_cli(["--json", "hi"], tmp_path, **model_env(fake_model),
                   DATABASE_URL="postgresql://teacher:s3cret-pw@127.0.0.1:1/glassbox")
    assert done.returncode == 0, done.stderr
    assert "kept in the cache file instead" in done.stderr
    assert "s3cret-pw" not in done.stderr and "Traceback" not in done.stderr
    assert (own_cache(tmp_path) / "glassbox" / "endpoints.json").exists()
