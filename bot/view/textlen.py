"""Text as Telegram measures it: length in UTF-16 code units (an emoji outside the BMP is
2), and whether anything in it is visible at all.

Also `shorten`, which cuts a text to a number of characters for a one-line label.
"""

from __future__ import annotations

import re

SPACES = ("\x00-\x09\x0b-\x20\xa0\u030a\u0333\u033f\u1680\u180e\u2000-\u200f"
          "\u2028-\u202f\u205f\u2800\u3000\ufeff\ufffc\U000e0000-\U000e007f")
"""A regex class of the characters other than a line break that Telegram shows as nothing:
spaces (a control character becomes one; `\\r` and U+2028..U+202E are removed), zero-width
and direction marks, the BOM, the Braille blank, the tag characters (tdlib's
fix_formatted_text and strip_empty_characters)."""
BLANK = SPACES + "\n"
"""SPACES and the line break: a message of only these is "message text is empty"."""
_VISIBLE = re.compile(f"[^{BLANK}]")


def utf16_len(text: str) -> int:
    """UTF-16 code units of `text`; lone surrogates count 1, as Telegram would."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def utf16_prefix(text: str, units: int) -> str:
    """The longest prefix of `text` within `units` UTF-16 units, never half a surrogate pair
    (nor the halves of one a stream left as two code points). A slice of `text`: the caller
    goes on from `len(prefix)`."""
    if units <= 0:
        return ""
    if text.isascii():
        return text[:units]
    end = min(len(text), units)
    while (excess := utf16_len(text[:end]) - units) > 0:  # each astral character is 2 units
        end -= (excess + 1) // 2
    if end < len(text) and excess < 0 and utf16_len(text[end]) == 1:
        end += 1  # the last step may have dropped a character too many
    if end < len(text) and "\udc00" <= text[end] <= "\udfff" \
            and "\ud800" <= text[end - 1] <= "\udbff":
        end -= 1
    return text[:end]


def visible(text: str) -> bool:
    """Whether Telegram would show anything of `text` (see BLANK)."""
    return _VISIBLE.search(text) is not None


def clean_text(text: str) -> str:
    """`text` as valid Unicode: split surrogate pairs joined, lone surrogates made U+FFFD.

    Streamed deltas can carry the halves of an emoji as two code points; Telegram needs
    valid UTF-8. Neither change alters the UTF-16 length."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def shorten(text: str, limit: int = 60) -> str:
    """`text` on one line (whitespace runs made one space), cut to `limit` characters with an
    ellipsis. Counts code points, not UTF-16 units: it is for labels, not page limits."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
