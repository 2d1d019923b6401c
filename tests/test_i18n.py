"""The bot's own words live in bot/view/i18n.py: every entry in both languages with the same
placeholders, plain words free of HTML, and no other view module picking a language inline."""

from __future__ import annotations

import ast
import string
from pathlib import Path

import pytest

from bot.telegram.handlers.commands import GROUP, PRIVATE, menu
from bot.view.i18n import (
    _HTML,
    _PLAIN,
    lane_label,
    mode_label,
    phrase,
    plural,
    status_label,
    text,
)
from tests.wordkit import assert_both_languages, language_comparisons, unsaid

BOT = Path(__file__).resolve().parent.parent / "bot"
VIEW = BOT / "view"
ENTRIES = sorted([*_HTML.items(), *_PLAIN.items()])


def placeholders(template: str) -> list[tuple[str, str, str]]:
    """The `{name!conv:spec}` fields of a template, in order of name."""
    return sorted((name, spec or "", conv or "") for _, name, spec, conv
                  in string.Formatter().parse(template) if name is not None)


@pytest.mark.parametrize(("key", "pair"), ENTRIES, ids=[key for key, _ in ENTRIES])
def test_every_entry_has_both_languages_with_the_same_placeholders(
        key: str, pair: tuple[str, str]) -> None:
    assert_both_languages(key, *pair, placeholders)


def test_every_entry_is_used() -> None:
    """A key is said as a literal, or as one of a family (f"status_{status}")."""
    assert not unsaid(_HTML.keys() | _PLAIN.keys(), BOT, tables=("_HTML", "_PLAIN")), (
        "entries nothing says")


def test_counts_have_their_plural_and_thousands_separators() -> None:
    assert plural("en", "chain_tool_calls", 1) == "1 tool call"
    assert plural("en", "chain_tool_calls", 1280) == "1,280 tool calls"
    assert plural("en", "chain_tool_calls", 0) == "0 tool calls"
    assert plural("zh", "chain_tool_calls", 1) == "1 次工具调用"


def test_a_key_lives_in_one_table_only() -> None:
    assert not _HTML.keys() & _PLAIN.keys()


def test_plain_words_hold_no_html() -> None:
    """phrase() texts are escaped by the page that shows them, so markup would show as such."""
    for key, pair in _PLAIN.items():
        assert not any("<" in t or "&" in t for t in pair), key


def test_text_escapes_values_and_phrase_fills_them_in_as_they_are() -> None:
    assert text("en", "stopped_by", name="<Ann & Bo>") == "Stopped by &lt;Ann &amp; Bo&gt;."
    assert phrase("en", "export_title", n="<1>") == "Glassbox transcript #<1>"
    assert phrase("zh", "chain_cut", chars=12345) == "（共 12,345 字，/show 可看全文）"
    with pytest.raises(KeyError):
        phrase("en", "help")  # an HTML message is not plain words
    with pytest.raises(KeyError):
        text("en", "chain_answer")


def test_both_lookups_take_any_chinese_language_code() -> None:
    assert phrase("zh-hans", "chain_answer") == "回答" == phrase("zh", "chain_answer")
    assert text("zh-hant", "stopping") == "正在停止…"
    assert phrase("fr", "chain_answer") == "Answer"


def test_labels_of_runs() -> None:
    assert status_label("max_rounds", "zh") == "达到轮数上限"
    assert status_label("someday", "en") == "someday"  # a status we have no words for
    assert mode_label("compare", "en") == "compare"
    assert lane_label("react", "en") == "ReAct (with tools)"
    assert lane_label("main", "zh") == ""


def test_no_view_module_but_i18n_picks_a_language_inline() -> None:
    for path in sorted(VIEW.glob("*.py")):
        if path.name == "i18n.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert not language_comparisons(tree), f"{path.name} compares a language code"
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert "pick" not in [a.name for a in node.names], f"{path.name} imports pick"
            if isinstance(node, ast.Call):
                func = node.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
                assert name != "pick", f"{path.name}:{node.lineno} calls pick()"


def test_the_command_menus_have_words_for_every_command() -> None:
    assert [c.description for c in menu(GROUP, "zh")][:2] == ["用工具一步步回答问题",
                                                              "只用模型回答，不用工具"]
    assert {c.command for c in menu(PRIVATE, "en")} == set(PRIVATE)
    assert all(c.description for c in menu(PRIVATE + GROUP, "en"))
