"""The agent's own words live in agent/words.py: every entry in both languages with the same
placeholders, every entry used, and no other agent module picking a language inline."""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

from agent.words import _WORDS, say
from tests.wordkit import assert_both_languages, language_comparisons, unsaid

AGENT = Path(__file__).resolve().parent.parent / "agent"
ENTRIES = sorted(_WORDS.items())


def placeholders(template: str) -> set[str]:
    """The values a template names (`{now.year}` and `{now:%H:%M}` both name `now`: a
    language may write a date its own way)."""
    return {re.split(r"[.\[]", name)[0] for _, name, _, _
            in string.Formatter().parse(template) if name is not None}


def sources() -> list[tuple[Path, ast.Module]]:
    """Every agent module but the table's own, parsed."""
    return [(path, ast.parse(path.read_text(encoding="utf-8")))
            for path in sorted(AGENT.rglob("*.py")) if path.name != "words.py"]


@pytest.mark.parametrize(("key", "pair"), ENTRIES, ids=[key for key, _ in ENTRIES])
def test_every_entry_has_both_languages_with_the_same_placeholders(
        key: str, pair: tuple[str, str]) -> None:
    assert_both_languages(key, *pair, placeholders)


def test_every_entry_is_used_and_every_key_said_is_in_the_table() -> None:
    """A key is said as a literal (or kept to be said, as a CalcError's), or as one of a
    family (f"model_{kind}"): the table holds no words nothing shows."""
    assert not unsaid(_WORDS, AGENT, tables=("_WORDS",)), "entries nothing says"
    for path, tree in sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("say", "count"):
                key = node.args[1]
                if isinstance(key, ast.Constant):  # else a key made or kept elsewhere
                    assert key.value in _WORDS, f"{path.name}:{node.lineno}: no {key.value}"


def test_say_fills_values_in_as_they_are() -> None:
    assert say("zh-hans", "http_not_reached", service="<Open-Meteo>") == "无法连接 <Open-Meteo>。"
    assert say("fr", "currency_rate", source="EUR", rate=7.8123, target="CNY",
               date="2026-12-03") == " (rate 1 EUR = 7.8123 CNY, ECB reference rate of 2026-12-03)"
    assert say("en", "wiki_head", wiki="zh", title="{x}") == "Wikipedia (zh) article '{x}'"
    with pytest.raises(KeyError):
        say("en", "help")  # the bot's words are not the agent's


def test_no_agent_module_but_words_picks_a_language_inline() -> None:
    """Neither with pick() nor by comparing a language code (`if lang == "zh":`)."""
    for path, tree in sources():
        if path.name == "lang.py":
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert "pick" not in [a.name for a in node.names], f"{path.name} imports pick"
        assert not language_comparisons(tree), f"{path.name} compares a language code"
