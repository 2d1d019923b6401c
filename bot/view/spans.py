"""Styled text as spans, turned into Telegram HTML pages of bounded visible length.

A span is raw (unescaped) text and the opening tags that wrap it, outermost first. Keeping
text and markup apart makes the visible length exact (Telegram counts the text after
parsing, in UTF-16 units) and lets a page be cut anywhere: each page closes the tags it
opened, and the next page opens them again, so every page is balanced. Telegram refuses a
message with nothing visible in it ("message text is empty"), so no page is blank.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

from bot.view.textlen import SPACES, clean_text, utf16_len, utf16_prefix, visible

Tags = tuple[str, ...]
Span = tuple[str, Tags]

PAGE_LIMIT = 4096
"""Telegram's limit on a message's text, in UTF-16 units after entity parsing."""

B = "<b>"
I = "<i>"  # noqa: E741
CODE = "<code>"
PRE = "<pre>"
QUOTE = "<blockquote>"
QUOTE_EXPANDABLE = "<blockquote expandable>"

_BREAKS: tuple[tuple[str, ...], ...] = (("\n\n",), ("\n",), tuple(" 。！？；，、"))
"""Where a page may end, best first: between paragraphs, else at a line break, else at a space
or CJK punctuation."""
_LINE_BREAKS = 2
"""The first this many kinds of _BREAKS end a line: a page that ends there must not end with
a heading (a line all in bold), which belongs with what follows it."""
MAX_HEADING_SKIPS = 3
"""Headings in a row a page end moves back over before it gives up and ends after one."""
_CLOSING: dict[str, str] = {}
_TAG = re.compile(r"<[^>]*>")

MAX_SPACES = 32
"""A longer run of spaces (or other blank characters) within a line is cut to this many:
enough for any indentation or column in code, never a screen of nothing."""
MAX_BLANK_LINES = 2
"""More blank lines in a row are cut to this many."""
_SPACE_RUN = re.compile(f"[{SPACES}]{{{MAX_SPACES + 1},}}")
_BLANK_LINES = re.compile(f"\n(?:[{SPACES}]*\n){{{MAX_BLANK_LINES + 1},}}")


def squeeze(text: str) -> str:
    """`text` with long runs of blank lines and of spaces cut short (model text and tool
    observations can hold thousands; Telegram would show a page of nothing, or refuse it)."""
    text = _BLANK_LINES.sub("\n" * (MAX_BLANK_LINES + 1), text)
    return _SPACE_RUN.sub(lambda run: run[0][:MAX_SPACES], text)


def closing(tag: str) -> str:
    """`</name>` for an opening tag such as `<a href="...">`."""
    end = _CLOSING.get(tag)
    if end is None:
        end = _CLOSING[tag] = "</" + tag[1:].split(" ", 1)[0].rstrip(">") + ">"
    return end


def link_tag(url: str) -> str:
    return f'<a href="{html.escape(url, quote=True)}">'


def to_html(spans: Iterable[Span]) -> str:
    """The spans as one balanced HTML string, every text escaped."""
    out: list[str] = []
    stack: Tags = ()
    for text, tags in spans:
        if not text:
            continue
        if tags != stack:
            common = 0
            for was, now in zip(stack, tags, strict=False):
                if was != now:
                    break
                common += 1
            out.extend([closing(tag) for tag in reversed(stack[common:])])
            out.extend(tags[common:])
            stack = tags
        out.append(text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))
    out.extend([closing(tag) for tag in reversed(stack)])
    return clean_text("".join(out))


def to_plain(page: str) -> str:
    """A page's text without markup, as Telegram would show it with no parse mode."""
    return html.unescape(_TAG.sub("", page))


def merge(spans: Iterable[Span]) -> list[Span]:
    """Neighbouring spans with the same tags joined into one (fewer, longer spans are
    cheaper to measure and escape)."""
    out: list[Span] = []
    texts: list[str] = []
    current: Tags | None = None
    for text, tags in spans:
        if not text:
            continue
        if tags != current:
            if texts:
                out.append(("".join(texts), current or ()))
            texts, current = [], tags
        texts.append(text)
    if texts:
        out.append(("".join(texts), current or ()))
    return out


def paginate(spans: list[Span], limit: int = PAGE_LIMIT) -> list[list[Span]]:
    """Split spans into pages of at most `limit` UTF-16 units, each with something visible,
    losing no visible character.

    A page ends at the last line break that keeps it at least half full, else at the
    last space (or CJK punctuation), else exactly at the limit. A stretch with nothing
    visible (a long run of blanks) is dropped, not sent as a page of its own: Telegram
    trims the ends of a message anyway, and refuses one that is empty."""
    return [page for page in _split(merge(spans), limit)
            if visible("".join(text for text, _ in page))]


def _split(spans: list[Span], limit: int) -> list[list[Span]]:
    if utf16_len("".join(text for text, _ in spans)) <= limit:
        return [spans]
    pages: list[list[Span]] = []
    page: list[Span] = []
    used = 0
    pending = [(span, utf16_len(span[0])) for span in reversed(_pieces(spans, limit))]
    while pending:
        span, size = pending.pop()
        if used + size <= limit:
            page.append(span)
            used += size
            continue
        head, rest = _cut(page, used, span, limit, limit // 2)
        pages.append(head)
        pending.extend((s, utf16_len(s[0])) for s in reversed(rest))
        page, used = [], 0
    if page:
        pages.append(page)
    return [merge(page) for page in pages]


def _pieces(spans: list[Span], size: int) -> list[Span]:
    """`spans` with every text longer than `size` characters cut into pieces of at most
    `size`, their tags kept. A page then never holds or measures more than its own share of
    a huge span; cutting page after page off one long thought would otherwise re-measure
    (and re-encode) all that is left of it each time, quadratic in its length."""
    out: list[Span] = []
    for text, tags in spans:
        start = 0
        while len(text) - start > size:
            end = start + size
            if "\ud800" <= text[end - 1] <= "\udbff" and end - 1 > start:
                end -= 1  # a surrogate pair's halves stay together
            out.append((text[start:end], tags))
            start = end
        out.append((text[start:] if start else text, tags))
    return out


def _cut(page: list[Span], used: int, span: Span, limit: int,
         least: int) -> tuple[list[Span], list[Span]]:
    """A full page from `page` (`used` units) plus what fits of `span`, and what is left."""
    text, tags = span
    fits = utf16_prefix(text, limit - used)
    candidate = [*page, (fits, tags)] if fits else list(page)
    rest_of_span = (text[len(fits):], tags)
    at = _page_end(candidate, least)
    if at is not None:
        i = 0
        while at >= len(candidate[i][0]):
            at -= len(candidate[i][0])
            i += 1
        piece, piece_tags = candidate[i]
        head = [*candidate[:i], (piece[: at + 1], piece_tags)]
        tail = [(piece[at + 1 :], piece_tags), *candidate[i + 1 :]]
        if fits:  # the span's fitting part was the last candidate; rejoin its rest
            tail[-1] = (tail[-1][0] + rest_of_span[0], tags)
        else:
            tail.append(rest_of_span)
        return head, [s for s in tail if s[0]]
    if not candidate:  # nothing fits at all: cannot happen with limit >= 2
        raise ValueError("page limit too small")
    return candidate, [rest_of_span] if rest_of_span[0] else []


def _page_end(candidate: list[Span], least: int) -> int | None:
    """Where in the candidate's joined text the page ends (its last character), at the best
    kind of break that leaves at least `least` units on the page and no heading at its
    bottom; None if there is none. Searched in the joined text: a page can hold thousands of
    tiny spans (`**a**` repeated), too many to search one by one."""
    joined = "".join(text for text, _ in candidate)
    for kind, seps in enumerate(_BREAKS):
        end = len(joined)
        for _ in range(MAX_HEADING_SKIPS + 1 if kind < _LINE_BREAKS else 1):
            at = max(_last(joined, sep, end) for sep in seps)
            if at < 0 or utf16_len(joined[: at + 1]) < least:
                break
            heading = _heading_before(candidate, joined, at) if kind < _LINE_BREAKS else None
            if heading is None:
                return at
            end = heading
    return None


def _last(joined: str, sep: str, end: int) -> int:
    """Where the last `sep` that ends before `end` ends (its last character), or -1."""
    found = joined.rfind(sep, 0, end)
    return found + len(sep) - 1 if found >= 0 else -1


def _heading_before(candidate: list[Span], joined: str, at: int) -> int | None:
    """Where the last line ending at `at` starts, if it is a heading: it has letters or
    digits, and every one of them is bold."""
    stop = len(joined[: at + 1].rstrip("\n"))
    start = joined.rfind("\n", 0, stop) + 1
    if not any(ch.isalnum() for ch in joined[start:stop]):
        return None
    offset = 0
    for text, tags in candidate:
        lo, hi = max(start, offset), min(stop, offset + len(text))
        if lo < hi and B not in tags and any(ch.isalnum() for ch in text[lo - offset:hi - offset]):
            return None
        offset += len(text)
        if offset >= stop:
            break
    return start
