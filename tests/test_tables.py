"""Table cells padded by the columns they take on screen."""

from __future__ import annotations

import pytest

from bot.view.markdown import md_to_html
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


def test_a_table_whose_padding_would_blow_up_is_drawn_as_written() -> None:
    """Padded, these 25,000 and 40,000 characters came to 48 and 100 million (12 s)."""
    wide = "|" * 5000 + "\n" + "|-" * 5000 + "\n" + "|\n" * 5000  # 5,000 columns and rows
    tall = "|a|b|\n|-|-|\n|" + "x" * 20_000 + "|\n" + "|a|\n" * 5000  # a huge cell above
    for table in (wide, tall):
        assert len(md_to_html(table)) < 2 * len(table)
    assert "x" * 20_000 in md_to_html(tall) and "\na\n" in md_to_html(tall)


def test_a_table_within_the_padding_limit_is_still_aligned() -> None:
    rows = [["a", "b"]] + [["x" * 20, "y"]] * 500  # 500 rows of padding to 20: 10,000
    lines = table_text(rows, ["left", "left"]).split("\n")
    assert lines[0] == "a" + " " * 19 + " | b"
