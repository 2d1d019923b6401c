"""Text length as Telegram counts it: UTF-16 code units (an emoji outside the BMP is 2).

Also `shorten`, which cuts a text to a number of characters for a one-line label.
"""

from __future__ import annotations


def utf16_len(text: str) -> int:
    """UTF-16 code units of `text`; lone surrogates count 1, as Telegram would."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def utf16_prefix(text: str, units: int) -> str:
    """The longest prefix of `text` within `units` UTF-16 units, never half a surrogate pair."""
    if units <= 0:
        return ""
    if text.isascii():
        return text[:units]
    data = text.encode("utf-16-le", "surrogatepass")[: 2 * units]
    if len(data) >= 2 and 0xD8 <= data[-1] <= 0xDB:  # a high surrogate cut from its pair
        data = data[:-2]
    return data.decode("utf-16-le", "surrogatepass")


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
