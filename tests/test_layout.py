"""The layout holds: the run service (bot/runs) imports neither front end, the HTTP front end
(bot/web) nothing of Telegram's, and no package of bot/ imports one that imports it back
(a cycle: neither could be read, tested or replaced alone). agent/ is a library under bot/:
it imports nothing of bot/, its packages import only the neighbours listed below, and none
imports one that imports it back. wire/, under both, holds every outgoing HTTP call: it
imports nothing of theirs, and nothing else of theirs, nor of the benchmarks', imports
aiohttp or builds an httpx client."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOT = ROOT / "bot"
AGENT = ROOT / "agent"
WIRE = ROOT / "wire"
BENCH = ROOT / "bench"
TESTKIT = ROOT / "testkit"
GALLERY = ROOT / "gallery"

AGENT_NEIGHBOURS = {
    "agent.classroom": {"agent.events", "agent.grounding", "agent.model", "agent.prompts",
                        "agent.protocols", "agent.run_task", "agent.tool", "agent.words",
                        "wire"},
    "agent.protocols": {"agent.events", "agent.grounding", "agent.model", "agent.prompts",
                        "agent.run_task", "agent.tool", "agent.words"},
    "agent.model": {"agent.events", "agent.prompts", "agent.run_task", "agent.settings",
                    "agent.words", "wire"},
    "agent.grounding": {"agent.events", "agent.ledger", "agent.prompts", "agent.words"},
    "agent.tools": {"agent.lang", "agent.passages", "agent.settings", "agent.tool",
                    "agent.tool_names", "agent.words", "wire"},
    "agent.inputs": {"agent.events", "wire"},
}
"""What each package of agent/ may import besides itself: the loop (agent/loop.py) and the
terminal (agent/cli.py) sit above them all, what every part shares (events, words,
settings, prompts, the Tool interface) below, and the process's HTTP (wire/) under all."""
HTTP_CLIENTS = {("httpx", "AsyncClient"), ("httpx", "Client"), ("httpx", "AsyncHTTPTransport"),
                ("httpx", "HTTPTransport"), ("openai", "DefaultAsyncHttpxClient"),
                ("openai", "DefaultHttpxClient"), ("openai", "DefaultAioHttpClient")}
"""What builds an HTTP client of its own, called or subclassed."""


def modules(package: str) -> list[str]:
    root = BOT / package
    return sorted("bot." + ".".join(p.relative_to(BOT).with_suffix("").parts).removesuffix(
        ".__init__") for p in root.rglob("*.py"))


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


@cache
def parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def imported(path: Path) -> set[str]:
    """The absolute module names `path` imports (relative imports resolved)."""
    name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    package = name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(parsed(path)):
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


def agent_node(module: str) -> str | None:
    """The node of the graph a module of agent/ belongs to: its package (agent.model,
    agent.grounding), or the module itself at agent/'s top level (agent.loop, agent.events);
    wire/ is one node."""
    parts = module.split(".")
    if parts[0] == "wire":
        return "wire"
    if parts[0] != "agent" or len(parts) < 2:
        return None
    top = AGENT / parts[1]
    return ".".join(parts[:2]) if top.is_dir() or top.with_suffix(".py").exists() else None


def graph(root: Path = BOT,
          node: Callable[[str], str | None] = package_of) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for path in root.rglob("*.py"):
        source = node(module_name(path))
        if source is None:  # the package's own __init__.py
            continue
        for target in filter(None, map(node, imported(path))):
            if target != source:
                edges.setdefault(source, set()).add(target)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[str]:
    found = []
    for start in edges:
        stack, seen = [(start, (start,))], set()
        while stack:
            node, path = stack.pop()
            for nxt in edges.get(node, ()):
                if nxt == start:
                    found.append(" → ".join((*path, start)))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, (*path, nxt)))
    return found


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
    assert cycles(edges) == []


def test_agent_imports_nothing_of_bot() -> None:
    names = [module_name(path) for path in AGENT.rglob("*.py")]
    assert "agent.loop" in names and "agent.model.model_client" in names
    written = sorted(name for path in AGENT.rglob("*.py") for name in imported(path)
                     if name.split(".")[0] == "bot")
    assert written == []
    reached = [m for m in loaded_by([n for n in names if not n.endswith("__main__")])
               if m.split(".")[0] in ("bot", "telegram")]
    assert reached == [], f"agent/ reaches {reached[:5]}"


def test_agent_packages_import_only_their_neighbours() -> None:
    edges = graph(AGENT, agent_node)
    packages = {p.name for p in AGENT.iterdir() if (p / "__init__.py").exists()}
    assert {name.removeprefix("agent.") for name in AGENT_NEIGHBOURS} == packages
    strays = {package: sorted(edges.get(package, set()) - allowed)
              for package, allowed in AGENT_NEIGHBOURS.items()}
    assert {package: found for package, found in strays.items() if found} == {}


def test_no_agent_cycle() -> None:
    edges = graph(AGENT, agent_node)
    assert "agent.loop" in edges and "agent.protocols" in edges
    assert cycles(edges) == []


def http_clients_built(path: Path) -> list[str]:
    """Where `path` imports aiohttp, or calls or subclasses what builds an HTTP client."""
    found = sorted({"imports aiohttp" for name in imported(path)
                    if name.split(".")[0] == "aiohttp"})
    for node in ast.walk(parsed(path)):
        used = [node.func] if isinstance(node, ast.Call) else \
            node.bases if isinstance(node, ast.ClassDef) else []
        for expr in used:
            if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and \
                    (expr.value.id, expr.attr) in HTTP_CLIENTS:
                found.append(f"line {node.lineno}: {expr.value.id}.{expr.attr}")
    return found


def test_every_outgoing_call_goes_through_wire() -> None:
    assert http_clients_built(WIRE / "http_session.py") == ["imports aiohttp"]
    assert "line" in " ".join(http_clients_built(WIRE / "model_transport.py"))
    strays = {module_name(path): found for root in (AGENT, BOT, BENCH)
              for path in root.rglob("*.py") if (found := http_clients_built(path))}
    assert strays == {}


def test_wire_imports_nothing_of_agent_or_bot() -> None:
    written = sorted(name for path in WIRE.rglob("*.py") for name in imported(path)
                     if name.split(".")[0] in ("agent", "bot"))
    assert written == []


def test_every_exception_of_ours_has_one_root() -> None:
    """Each exception class agent/, bot/ and wire/ define derives from GlassboxError, the
    documented root (wire/wire_errors.py)."""
    names = [module_name(path) for root in (AGENT, BOT, WIRE) for path in root.rglob("*.py")
             if path.name != "__main__.py"]
    code = ("import importlib, inspect, json\n"
            "from wire.wire_errors import GlassboxError\n"
            f"names = {names!r}\n"
            "found, strays = 0, []\n"
            "for name in names:\n"
            "    for cls in vars(importlib.import_module(name)).values():\n"
            "        if inspect.isclass(cls) and issubclass(cls, BaseException) \\\n"
            "                and cls.__module__ == name:\n"
            "            found += 1\n"
            "            if not issubclass(cls, GlassboxError):\n"
            "                strays.append(f'{name}.{cls.__name__}')\n"
            "print(json.dumps([found, strays]))")
    found, strays = json.loads(subprocess.run([sys.executable, "-c", code], check=True,
                                              capture_output=True, text=True).stdout)
    assert found >= 20
    assert strays == []


def test_no_two_modules_share_a_file_name() -> None:
    """A module's file name says what it holds without its folder: none repeats across
    agent/, bot/, wire/, bench/, gallery/ and testkit/ (a package's __init__ and __main__ aside)."""
    where: dict[str, list[str]] = {}
    for top in ("agent", "bot", "wire", "bench", "gallery", "testkit"):
        for path in sorted((ROOT / top).rglob("*.py")):
            if path.name not in ("__init__.py", "__main__.py"):
                where.setdefault(path.name, []).append(str(path.relative_to(ROOT)))
    assert {name: paths for name, paths in where.items() if len(paths) > 1} == {}


def test_bench_gallery_and_the_testkit_import_nothing_of_tests() -> None:
    """What the benchmarks and the gallery share with the suite (fakes, the bot's drivers,
    made inputs) is in testkit/: they run without the suite, and testkit/ without it too."""
    names = [module_name(path) for top in (BENCH, GALLERY, TESTKIT)
             for path in top.rglob("*.py")]
    assert "bench.scale" in names and "testkit.fakes.telegram" in names
    written = {module_name(path): found for top in (BENCH, GALLERY, TESTKIT)
               for path in top.rglob("*.py")
               if (found := sorted(name for name in imported(path)
                                   if name.split(".")[0] == "tests"))}
    assert written == {}
