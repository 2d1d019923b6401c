"""Table cells padded by the columns they take on screen."""

from __future__ import annotations

import pytest

from bot.view.tables import alignments, display_width, split_row, table_text


@pytest.mark.parametrize(("text", "width"), [
    ("abc", 3), ("天气", 4), ("ｆｕｌｌ", 8), ("e\u0301", 1), ("a\u200bb", 2), ("", 0),
])
def test_display_width_counts_wide_characters_twice(text: str, width: int) -> None:
    assert display_width(text) == width


def test_rows_line_up_whatever_the_script() -> None:
    rows = [["Method", "思路"], ["Chain-of-thought", "只推理"], ["ReAct", "推理 + 行动"]]
    lines = table_text(rows, alignments("|---|---|")).split("\n")
    bars = {display_width(line[: line.index("|")]) for line in lines if "|" in line}
    assert len(bars) == 1  # every column separator in the same screen column
    assert lines[1].startswith("-" * len("Chain-of-thought"))


def test_outer_pipes_are_optional_and_short_rows_are_padded() -> None:
    assert split_row("a | b") == ["a", "b"]
    assert split_row("| a | b |") == ["a", "b"]
    assert table_text([["a", "b"], ["1"]], ["left", "right"]) == "a | b\n--+--\n1 |"
