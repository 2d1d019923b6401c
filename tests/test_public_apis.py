"""Glassbox uses its dependencies through their public APIs only: no module of a dependency
whose name starts with "_" (`openai._models`, `telegram._utils`, `httpx._client`), no private
name imported from one, and no private attribute read off a dependency's module (a private
import in disguise). A private module breaks on a minor upgrade without a word."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHECKED = ("agent", "bot", "bench", "wire")
OURS = {"agent", "bot", "bench", "tests", "wire"}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _ours(module: str) -> bool:
    return module.split(".")[0] in OURS


def private_uses(source: str) -> list[tuple[int, str]]:
    """Each private use of a dependency in `source`: (line, what)."""
    found: list[tuple[int, str]] = []
    modules: set[str] = set()
    """Names bound to a dependency's module (`import openai`, `from telegram import error`)."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _ours(alias.name):
                    continue
                if any(_private(part) for part in alias.name.split(".")):
                    found.append((node.lineno, f"import {alias.name}"))
                modules.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if _ours(node.module):
                continue
            if any(_private(part) for part in node.module.split(".")):
                found.append((node.lineno, f"from {node.module} import ..."))
            for alias in node.names:
                if _private(alias.name):
                    found.append((node.lineno, f"from {node.module} import {alias.name}"))
                modules.add(alias.asname or alias.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            root = node.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in modules:
                found.append((node.lineno, f"{ast.unparse(node)}"))
    return found


def test_no_source_file_uses_a_private_part_of_a_dependency() -> None:
    files = [path for top in CHECKED for path in sorted((ROOT / top).rglob("*.py"))]
    assert len(files) > 100
    uses = [f"{path.relative_to(ROOT)}:{line}: {what}" for path in files
            for line, what in private_uses(path.read_text(encoding="utf-8"))]
    assert uses == []


@pytest.mark.parametrize("source", [
    "from openai._models import FinalRequestOptions",
    "from telegram._utils.types import ODVInput",
    "import httpx._client",
    "import httpx._client as c",
    "from telegram.request import _requestparameter",
    "from openai import _exceptions as errors",
    "import telegram\nx = telegram._utils.types.ODVInput",
    "import openai as oa\nx = oa._base_client",
])
def test_each_kind_of_private_use_is_found(source: str) -> None:
    assert len(private_uses(source)) >= 1


@pytest.mark.parametrize("source", [
    "from __future__ import annotations",
    "from openai import AsyncOpenAI",
    "from telegram.request import BaseRequest",
    "from wire.bot_api import _Params",
    "import httpx\nx = httpx.__version__",
    "import openai\nself._client = openai.AsyncOpenAI()\nself._client.post",
])
def test_public_use_and_our_own_privates_are_not_flagged(source: str) -> None:
    assert private_uses(source) == []
