"""The layout holds: the run service (bot/runs) imports neither front end, the HTTP front end
(bot/web) nothing of Telegram's, and no package of bot/ imports one that imports it back
(a cycle: neither could be read, tested or replaced alone)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

BOT = Path(__file__).resolve().parent.parent / "bot"


def modules(package: str) -> list[str]:
    root = BOT / package
    return sorted("bot." + ".".join(p.relative_to(BOT).with_suffix("").parts).removesuffix(
        ".__init__") for p in root.rglob("*.py"))


def imported(path: Path) -> set[str]:
    """The absolute module names `path` imports (relative imports resolved)."""
    name = ".".join(path.relative_to(BOT.parent).with_suffix("").parts)
    package = name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def package_of(module: str) -> str | None:
    """The node of the graph a module of bot/ belongs to: its package (bot.runs, bot.store),
    one level deeper in the Telegram front end (bot.telegram.handlers, bot.telegram.app:
    the Application sits above the handlers, their context below them)."""
    parts = module.split(".")
    if parts[0] != "bot" or len(parts) < 2:
        return None
    top = BOT / parts[1]
    if parts[1] == "telegram" and len(parts) > 2:
        below = top / parts[2]
        return ".".join(parts[:3]) if below.is_dir() or below.with_suffix(".py").exists() \
            else None
    return ".".join(parts[:2]) if top.is_dir() or top.with_suffix(".py").exists() else None


def graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for path in BOT.rglob("*.py"):
        name = ".".join(path.relative_to(BOT.parent).with_suffix("").parts).removesuffix(
            ".__init__")
        source = package_of(name)
        if source is None:  # bot/__init__.py
            continue
        for target in filter(None, map(package_of, imported(path))):
            if target != source:
                edges.setdefault(source, set()).add(target)
    return edges


def loaded_by(names: list[str]) -> list[str]:
    """Every module importing `names` loads, in a fresh interpreter."""
    code = ("import importlib, json, sys\n"
            f"for name in {names!r}: importlib.import_module(name)\n"
            "print(json.dumps(sorted(sys.modules)))")
    return json.loads(subprocess.run([sys.executable, "-c", code], check=True,
                                     capture_output=True, text=True).stdout)


def test_the_run_service_imports_neither_front_end() -> None:
    names = modules("runs")
    assert "bot.runs.execute" in names and "bot.runs.ask" in names
    reached = [m for m in loaded_by(names)
               if m.split(".")[0] == "telegram" or m.startswith(("bot.telegram", "bot.web"))
               or m.startswith(("starlette", "uvicorn"))]
    assert reached == [], f"bot/runs reaches {reached[:5]}"


def test_the_http_front_end_imports_nothing_of_telegram() -> None:
    names = modules("web")
    assert "bot.web.api" in names and "bot.web.board" in names
    reached = [m for m in loaded_by(names)
               if m.split(".")[0] == "telegram" or m.startswith("bot.telegram")]
    assert reached == [], f"bot/web reaches {reached[:5]}"


def test_no_package_cycle() -> None:
    edges = graph()
    assert "bot.runs" in edges and "bot.telegram.handlers" in edges
    cycles = []
    for start in edges:
        stack, seen = [(start, (start,))], set()
        while stack:
            node, path = stack.pop()
            for nxt in edges.get(node, ()):
                if nxt == start:
                    cycles.append(" → ".join((*path, start)))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, (*path, nxt)))
    assert cycles == []
