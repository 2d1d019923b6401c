"""paginate's promises, checked on many generated inputs heavy in blanks, emoji and CJK:
every page shows something once Telegram has trimmed it, fits Telegram's limit, and the
pages together keep every visible character in order. Telegram's side is the fake's
checker (testkit/fakes/telegram_html.py), not the bot's own idea of it."""

from __future__ import annotations

import random

import pytest

from bot.view.spans import CODE, PAGE_LIMIT, QUOTE, QUOTE_EXPANDABLE, B, I, Span, paginate, to_html
from testkit.fakes.telegram_html import parse_html, shows_nothing, utf16_units

BLANKS = [" ", "\n", "\t", "\u200b", "\u00a0", "\u3000", "\u2800", "\ufeff", "\r\n", " \n"]
WORDS = ["word", "😀", "👩‍👩‍👧", "🇨🇳", "你好，世界。", "測試", "a&b<c>", "x", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "é"]
TAGS: list[tuple[str, ...]] = [(), (), (B,), (I,), (CODE,), (QUOTE,), (QUOTE_EXPANDABLE, I)]


def generated(rng: random.Random) -> list[Span]:
    """Spans mixing words with runs of blanks from one character to ten thousand."""
    spans: list[Span] = []
    for _ in range(rng.randint(1, 40)):
        if rng.random() < 0.4:
            text = rng.choice(BLANKS) * rng.choice([1, 2, 5, 50, 700, 3000, 5000, 10_000])
        else:
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 400)))
        spans.append((text, rng.choice(TAGS)))
    return spans


def seen(text: str) -> str:
    """The characters of `text` Telegram shows, in order."""
    return text.translate({ord(ch): None for ch in set(text) if shows_nothing(ch)})


@pytest.mark.parametrize("limit", [PAGE_LIMIT, 300, 40])
def test_every_page_shows_something_within_the_limit_and_nothing_visible_is_lost(
        limit: int) -> None:
    rng = random.Random(limit)
    for _ in range(150):
        spans = generated(rng)
        pages = [parse_html(to_html(page)).text for page in paginate(spans, limit)]
        for text in pages:
            assert not shows_nothing(text) and text.strip()
            assert utf16_units(text) <= limit
        assert seen("".join(pages)) == seen("".join(text for text, _ in spans))


def test_a_text_with_nothing_visible_has_no_pages() -> None:
    assert paginate([(" " * 10_000, ()), ("\u200b\n" * 3000, (B,))]) == []


def test_an_emoji_a_stream_left_in_two_halves_is_neither_lost_nor_repeated_by_a_cut() -> None:
    """Streamed deltas can carry an emoji's UTF-16 halves as two code points. A page cut
    through a stretch of them once measured the page with the halves joined and went on
    from too early a place: 400 characters came out as 650."""
    halves = "\ud83d\ude00"
    spans: list[Span] = [("x" * 100 + halves * 300, ())]
    pages = [parse_html(to_html(page)).text for page in paginate(spans, 100)]
    assert "".join(pages) == "x" * 100 + "😀" * 300
    assert all(utf16_units(text) <= 100 for text in pages)
