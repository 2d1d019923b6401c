"""The model's Markdown as Telegram HTML: a small, forgiving converter.

Handles bold (`**`, `__`), italic (`*`, `_`), strikethrough (`~~`), inline code, fenced
code blocks with a language, links (http, https and tg only), bullet and numbered lists,
headings (as bold lines), blockquotes, rules and pipe tables (as aligned code blocks,
bot/view/tables.py). Everything else is text, escaped. Streamed, half-written Markdown
stays balanced: in a draft, a `**` or backtick not closed yet is left out until its closer
comes (a finished answer shows it as written); an unclosed fence opens a code block that
runs to the end.

Every stage is linear in the text: the live message converts the growing answer on every
edit, on the event loop, and the model or a user can make it write anything. So every regex
here that sees model text is possessive where a backtrack could rescan (`*+`, `++`), and the
inline parser never searches forward from each opener: closers and link ends are found once
per line and looked up.
"""

from __future__ import annotations

import re
import string
from bisect import bisect_right
from functools import lru_cache

from bot.view.spans import CODE, PRE, QUOTE, B, I, Span, Tags, link_tag, to_html
from bot.view.tables import alignments, split_row, table_text

_FENCE = re.compile(r"(\s*+)(`{3,}+|~{3,}+)\s*+([\w+#.-]*+)[^`]*+$")  # also indented, in a list
_HEADING = re.compile(r" {0,3}#{1,6}\s++")
_BULLET = re.compile(r"(\s*+)[-*+]\s++(.*)$")
_NUMBERED = re.compile(r"(\s*+)(\d{1,9})[.)]\s++(.*)$")
_QUOTE = re.compile(r" {0,3}>++\s?(.*)$")
_RULE = re.compile(r" {0,3}([-*_])(?:\s*+\1){2,}+\s*+$")
_TABLE_RULE = re.compile(r"\s*+\|?\s*+:?-++:?\s*+(?:\|\s*+:?-++:?\s*+)*+\|?\s*+$")
_URL = r"[^()\s]++(?:\([^()\s]*+\)[^()\s]*+)*+"
"""A link's target: a url may hold balanced parentheses (Wikipedia)."""
_LINK_TAIL = re.compile(  # ](url "title") after a link's label
    rf"\]\(\s*+({_URL})(?:\s++\"[^\"\n]*+\")?\s*+\)")
_URLS = re.compile(rf"\]\(\s*+({_URL})|(?<![\w/])((?:https?|tg)://{_URL})")
"""Where a link's target may be: after `](`, or a URL written bare (Telegram links it)."""
_TOKEN = re.compile(r"\\|([*_~`\[])\1*+")
"""What the inline parser stops at: a backslash, or a run of one Markdown character."""
_BACKTICKS = re.compile(r"`++")
_SCHEMES = ("http://", "https://", "tg://")
_PUNCT = frozenset(string.punctuation)
_STYLE: dict[tuple[str, int], Tags] = {
    ("*", 1): (I,), ("_", 1): (I,), ("*", 2): (B,), ("_", 2): (B,),
    ("*", 3): (B, I), ("_", 3): (B, I), ("~", 2): ("<s>",),
}


def _closing(c: str, k: int) -> re.Pattern[str]:
    """A run of exactly k `c` that can close a style: after a non-space; a `_` run also
    before a non-letter (`snake_case` stays as written)."""
    after = r"\w" if c == "_" else re.escape(c)
    return re.compile(rf"(?<![\s{c}]){re.escape(c)}{{{k}}}(?!{after})")


_CLOSING = {key: _closing(*key) for key in _STYLE}

Line = tuple[list[Span], bool]
"""The spans of one output line, and whether it is part of a blockquote."""


def md_to_html(text: str, *, draft: bool = False) -> str:
    """Telegram HTML for the model's Markdown `text`."""
    return to_html(md_spans(text, draft=draft))


@lru_cache(maxsize=128)
def md_spans(text: str, *, draft: bool = False) -> tuple[Span, ...]:
    """The spans of `text` (cached: a live message renders the same answer many times).

    `draft`: the text is still being written, so its last line may end inside a span: an
    opening `**` or backtick with no closer yet, or a link whose URL has not arrived, is
    left out rather than shown raw (it becomes formatting once its closer comes)."""
    source = text.replace("\r\n", "\n").split("\n")
    lines = _block_lines(source, draft and not text.endswith("\n"))
    out: list[Span] = []
    for n, (spans, quoted) in enumerate(lines):
        if n:
            joined = quoted and lines[n - 1][1]
            out.append(("\n", (QUOTE,) if joined else ()))
        out.extend(spans)
    return tuple(out)


def url_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every stretch of `text` that may be a link's target: a mark put
    there would change where the link goes, never what the text says. Found over the whole
    text, a few more than the converter makes into links (in code, say): never fewer."""
    return [m.span(m.lastindex or 0) for m in _URLS.finditer(text)]


def _block_lines(lines: list[str], open_tail: bool = False) -> list[Line]:
    """Lines as spans; `open_tail`: the last line is still being written (see md_spans)."""
    result: list[Line] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if "|" in line and i + 1 < len(lines) and "|" in lines[i + 1] \
                and _TABLE_RULE.match(lines[i + 1]):
            i = _table(lines, i, result)
            continue
        fence = _FENCE.match(line)
        if fence:
            indent, marks, lang = fence.groups()
            end = i + 1
            while end < len(lines) and not _closes_fence(lines[end], marks):
                end += 1
            tags: Tags = (PRE, f'<code class="language-{lang}">') if lang else (PRE,)
            code = "\n".join(_dedent(body, len(indent)) for body in lines[i + 1 : end])
            result.append(([(code, tags)] if code else [], False))
            i = end + 1
            continue
        result.append(_line(line, open_tail and i == len(lines) - 1))
        i += 1
    return result


def _table(lines: list[str], start: int, result: list[Line]) -> int:
    """The table whose header is `lines[start]` as one aligned code block (cells without
    their inline Markdown); where the line after it is."""
    end = start + 2
    while end < len(lines) and "|" in lines[end] and lines[end].strip():
        end += 1
    rows = [[_plain(cell) for cell in split_row(line)]
            for line in (lines[start], *lines[start + 2 : end])]
    result.append(([(table_text(rows, alignments(lines[start + 1])), (PRE,))], False))
    return end


def _plain(cell: str) -> str:
    """A cell's text as it reads, its Markdown applied and dropped (a code block holds no
    formatting)."""
    spans: list[Span] = []
    _inline(cell, (), spans)
    return "".join(text for text, _ in spans)


def _closes_fence(line: str, marks: str) -> bool:
    """A line of only the fence's character, at least as many as opened it."""
    bare = line.strip()
    return len(bare) >= len(marks) and bare == marks[0] * len(bare)


def _dedent(line: str, indent: int) -> str:
    """A code line without the indentation its fence had (a block inside a list item)."""
    return line[min(indent, len(line) - len(line.lstrip(" "))):]


def _heading(line: str) -> str | None:
    """A heading's text without its closing `#`s, or None: `# Title ##`."""
    m = _HEADING.match(line)
    if m is None:
        return None
    title = line[m.end():].rstrip()
    bare = title.rstrip("#")
    if bare != title and bare[-1:].isspace():
        return bare.rstrip()
    return title


def _line(line: str, open_tail: bool = False) -> Line:
    out: list[Span] = []
    if m := _QUOTE.match(line):
        _inline(m.group(1), (QUOTE,), out, open_tail=open_tail)
        return out, True
    if (title := _heading(line)) is not None:
        _inline(title, (B,), out, open_tail=open_tail)
    elif _RULE.match(line):
        out.append(("──────────", ()))
    elif m := _BULLET.match(line):
        depth = len(m.group(1).expandtabs(4)) // 2
        out.append(("  " * depth + ("• " if depth == 0 else "◦ "), ()))
        _inline(m.group(2), (), out, open_tail=open_tail)
    elif m := _NUMBERED.match(line):
        out.append((f"{m.group(1)}{m.group(2)}. ", ()))
        _inline(m.group(3), (), out, open_tail=open_tail)
    else:
        _inline(line, (), out, open_tail=open_tail)
    return out, False


def _inline(s: str, tags: Tags, out: list[Span], in_link: bool = False,
            open_tail: bool = False) -> None:
    """Append the spans of one line's inline Markdown, under `tags`. `open_tail`: the line
    is still being written, so a marker that nothing closes yet is left out."""
    if _TOKEN.search(s) is None:  # most text, and most styled parts
        if s:
            out.append((s, tags))
        return
    buf: list[str] = []
    closers = _Closers(s)
    links = _Links(s)

    def flush() -> None:
        if buf:
            out.append(("".join(buf), tags))
            buf.clear()

    i = 0
    while m := _TOKEN.search(s, i):
        j, c = m.start(), m.group(1) or "\\"
        buf.append(s[i:j])
        i = m.end()
        if c == "\\":
            if i < len(s) and s[i] in _PUNCT:
                buf.append(s[i])
                i += 1
            else:
                buf.append(c)
            continue
        k = i - j
        if c == "[":  # when no link starts here, none starts at the next `[`s either
            link = None if in_link else links.at(j)
            if link and link[1].lower().startswith(_SCHEMES):
                flush()
                _inline(link[0], (*tags, link_tag(link[1])), out, in_link=True)
                i = link[2]
                continue
            if open_tail and not in_link and links.half():
                flush()  # a link still being written: its label so far, as text
                _inline(s[j + 1 : links.close], tags, out, in_link=True)
                break
        elif c == "`":
            end = closers.after(i, c, k)
            if end is not None:
                flush()
                code = s[i:end]
                if len(code) > 2 and code[0] == code[-1] == " " and code.strip():
                    code = code[1:-1]
                out.append((code, _code_tags(tags)))
                i = end + k
                continue
        elif (c, k) in _STYLE and _opens(s, j, k):
            end = closers.after(i, c, k)
            if end is not None:
                flush()
                styled = (*tags, *(t for t in _STYLE[c, k] if t not in tags))
                _inline(s[i:end], styled, out, in_link)
                i = end + k
                continue
        if open_tail and c != "[" and (i == len(s) or _opens(s, j, k)):
            continue  # a marker not closed yet: its closer may still come
        buf.append(m.group())
    else:
        if i < len(s):
            buf.append(s[i:])
    flush()


class _Links:
    """The links of one line, each `[` looked at in constant time: a label runs to the
    first `]` after its `[`, so the rest of a link depends only on that `]`, and is matched
    once for all the `[`s before it (`[[[[…` would otherwise rescan the line from each)."""

    def __init__(self, s: str) -> None:
        self.s = s
        self.close = -1
        self.tail: re.Match[str] | None = None
        self._stop: int | None = None

    def at(self, j: int) -> tuple[str, str, int] | None:
        """(label, url, end) of a link whose `[` is at `j`, if one starts there."""
        if self.close < j:
            close = self.s.find("]", j)
            self.close = len(self.s) if close < 0 else close
            self.tail = _LINK_TAIL.match(self.s, self.close)
        if self.tail is None or self.close == j + 1:
            return None
        return self.s[j + 1 : self.close], self.tail.group(1), self.tail.end()

    def half(self) -> bool:
        """Whether the `[` last passed to `at` opens a link cut off by the end of a draft:
        `[label`, `[label]` or `[label](http://ex` (no `)` or space after its `(`). The
        line's last `)` or space is found once, so each `[` costs constant time."""
        rest = self.close + 1
        if rest >= len(self.s):
            return True
        if self.s[rest] != "(":
            return False
        if self._stop is None:
            self._stop = max((i for i, ch in enumerate(self.s) if ch == ")" or ch.isspace()),
                             default=-1)
        return self._stop <= rest


def _opens(s: str, i: int, k: int) -> bool:
    after = s[i + k] if i + k < len(s) else " "
    if after.isspace():
        return False
    return s[i] != "_" or i == 0 or not s[i - 1].isalnum()


class _Closers:
    """Where the runs that can close lie in one line, looked up by bisection. Each kind is
    found in one pass when first asked: searching forward from each opener instead is
    quadratic (`*a *a *a …`)."""

    def __init__(self, s: str) -> None:
        self.s = s
        self.found: dict[tuple[str, int], list[int]] = {}
        self.backticks = False

    def after(self, start: int, c: str, k: int) -> int | None:
        """Where the first run of exactly k `c` after `start` that can close is, if any."""
        if c == "`" and not self.backticks:  # any length: all of them in one pass
            self.backticks = True
            for m in _BACKTICKS.finditer(self.s):
                self.found.setdefault(("`", m.end() - m.start()), []).append(m.start())
        elif c != "`" and (c, k) not in self.found:
            self.found[c, k] = [m.start() for m in _CLOSING[c, k].finditer(self.s)]
        at = self.found.get((c, k), [])
        n = bisect_right(at, start)
        return at[n] if n < len(at) else None


def _code_tags(tags: Tags) -> Tags:
    """Code keeps only an enclosing blockquote: Telegram lets no other entity hold code."""
    return (*(t for t in tags if t.startswith("<blockquote")), CODE)
