"""What the tests of the two word tables (agent/words.py, bot/view/i18n.py) look for in the
code that uses them."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable
from pathlib import Path

_FAMILY = re.compile(r"[a-z]+(?:_[a-z]+)*_")
"""The start of an f-string that names a family of keys (f"status_{status}")."""


def unsaid(keys: Iterable[str], root: Path, *, tables: tuple[str, ...]) -> set[str]:
    """The `keys` that no module under `root` names: as a literal (the entries of the
    `tables` themselves aside), or as one of a family an f-string names by its start."""
    said: set[str] = set()
    families: set[str] = set()
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        entries = {id(key) for node in tree.body if isinstance(node, ast.AnnAssign)
                   and getattr(node.target, "id", "") in tables
                   and isinstance(node.value, ast.Dict) for key in node.value.keys}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and id(node) not in entries:
                said.add(node.value)
            if isinstance(node, ast.JoinedStr) and isinstance(node.values[0], ast.Constant) \
                    and _FAMILY.fullmatch(str(node.values[0].value)):
                families.add(str(node.values[0].value))
    return {key for key in keys if key not in said
            and not any(key.startswith(family) for family in families)}


def language_comparisons(tree: ast.Module) -> list[int]:
    """The lines that pick a language inline by comparing a code (`if lang == "zh":`)."""
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Compare)
            and any(isinstance(side, ast.Constant) and side.value in ("zh", "en")
                    for side in (node.left, *node.comparators))]


def assert_both_languages(key: str, zh: str, en: str,
                          fields: Callable[[str], object]) -> None:
    """An entry has words in both languages, and the same `fields` in Chinese and in each of
    English's forms (a count's singular and plural, split by `|`)."""
    assert zh.strip() and en.strip(), f"{key} lacks a text"
    for form in en.split("|"):
        assert fields(zh) == fields(form), f"{key}: the placeholders differ"
