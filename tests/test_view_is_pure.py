"""bot/view is pure: folding and drawing a run needs no Bot, no database, no network and no
clock. Importing every view module in a fresh interpreter must not load any of them, and
no view module may read the clock."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

VIEW = Path(__file__).resolve().parent.parent / "bot" / "view"
FORBIDDEN = ("telegram", "aiosqlite", "sqlite3", "_sqlite3", "httpx", "httpcore", "openai",
             "socket", "ssl", "asyncio", "urllib.request", "http.client")
CLOCK = {"now", "utcnow", "today", "time", "monotonic", "perf_counter", "time_ns"}


def view_modules() -> list[str]:
    return sorted(f"bot.view.{p.stem}" for p in VIEW.glob("*.py") if p.stem != "__init__")


def test_importing_the_view_loads_no_io_library() -> None:
    modules = view_modules()
    assert "bot.view.render" in modules and "bot.view.transcript" in modules
    code = ("import importlib, json, sys\n"
            f"for name in {modules!r}: importlib.import_module(name)\n"
            "print(json.dumps(sorted(sys.modules)))")
    loaded = json.loads(subprocess.run([sys.executable, "-c", code], check=True,
                                       capture_output=True, text=True).stdout)
    reached = [name for name in FORBIDDEN if name in loaded]
    assert reached == [], f"bot/view reaches {reached}"


def test_no_view_module_reads_the_clock() -> None:
    for path in VIEW.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                assert "time" not in names, f"{path.name} imports time"
            if isinstance(node, ast.Attribute) and node.attr in CLOCK:
                raise AssertionError(f"{path.name}:{node.lineno} reads the clock (.{node.attr})")

