"""The course's own words (bot/course/course_words.py): every entry in both languages with the same
placeholders, each one used somewhere in bot/."""

from __future__ import annotations

import string
from pathlib import Path

import pytest

from bot.course.course_words import _WORDS, word, word_for
from tests.wordkit import assert_both_languages, unsaid

BOT = Path(__file__).resolve().parent.parent / "bot"


def placeholders(template: str) -> list[tuple[str, str, str]]:
    return sorted((name, spec or "", conv or "") for _, name, spec, conv
                  in string.Formatter().parse(template) if name is not None)


@pytest.mark.parametrize(("key", "pair"), sorted(_WORDS.items()), ids=sorted(_WORDS))
def test_every_entry_has_both_languages_with_the_same_placeholders(
        key: str, pair: tuple[str, str]) -> None:
    assert_both_languages(key, *pair, placeholders)


def test_every_entry_is_used() -> None:
    assert not unsaid(_WORDS.keys(), BOT, tables=("_WORDS",))


def test_counts_have_their_plural() -> None:
    assert word_for("en", "n_askers", 1) == "1 asker"
    assert word_for("en", "n_questions", 1280) == "1,280 questions"
    assert word_for("zh", "n_lectures", 2) == "2 次课"
    assert word("en", "budget", budget=1_000_000) == "daily budget 1,000,000"
