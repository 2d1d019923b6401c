"""The model's Markdown as Telegram HTML: a small, forgiving converter.

Handles bold (`**`, `__`), italic (`*`, `_`), strikethrough (`~~`), inline code, fenced
code blocks with a language, links (http, https and tg only), bullet and numbered lists,
headings (as bold lines), blockquotes, rules and pipe tables. Everything else is text,
escaped. Streamed, half-written Markdown stays balanced: an unclosed `**` or backtick is
shown as written, an unclosed fence opens a code block that runs to the end.
"""

from __future__ import annotations

import re
import string
from functools import lru_cache

from bot.view.spans import CODE, PRE, QUOTE, B, I, Span, Tags, link_tag, to_html

_FENCE = re.compile(r"(\s*)(`{3,}|~{3,})\s*([\w+#.-]*)[^`]*$")  # also indented, in a list
_HEADING = re.compile(r" {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$")
_BULLET = re.compile(r"(\s*)[-*+]\s+(.*)$")
_NUMBERED = re.compile(r"(\s*)(\d{1,9})[.)]\s+(.*)$")
_QUOTE = re.compile(r" {0,3}>+\s?(.*)$")
_RULE = re.compile(r" {0,3}([-*_])(?:\s*\1){2,}\s*$")
_TABLE_RULE = re.compile(r"\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_LINK = re.compile(  # [label](url "title"); a url may hold balanced parentheses (Wikipedia)
    r"\[([^\]\n]+)\]\(\s*([^()\s]+(?:\([^()\s]*\)[^()\s]*)*)(?:\s+\"[^\"\n]*\")?\s*\)")
_SPECIAL = re.compile(r"[\\`*_~\[]")
_SCHEMES = ("http://", "https://", "tg://")
_PUNCT = frozenset(string.punctuation)
_STYLE: dict[tuple[str, int], Tags] = {
    ("*", 1): (I,), ("_", 1): (I,), ("*", 2): (B,), ("_", 2): (B,),
    ("*", 3): (B, I), ("_", 3): (B, I), ("~", 2): ("<s>",),
}

Line = tuple[list[Span], bool]
"""The spans of one output line, and whether it is part of a blockquote."""


def md_to_html(text: str) -> str:
    """Telegram HTML for the model's Markdown `text`."""
    return to_html(md_spans(text))


@lru_cache(maxsize=128)
def md_spans(text: str) -> tuple[Span, ...]:
    """The spans of `text` (cached: a live message renders the same answer many times)."""
    lines = _block_lines(text.replace("\r\n", "\n").split("\n"))
    out: list[Span] = []
    for n, (spans, quoted) in enumerate(lines):
        if n:
            joined = quoted and lines[n - 1][1]
            out.append(("\n", (QUOTE,) if joined else ()))
        out.extend(spans)
    return tuple(out)


def _block_lines(lines: list[str]) -> list[Line]:
    result: list[Line] = []
    i = 0
    while i < len(lines):
        line = lines[i]
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
        if _TABLE_RULE.match(line) and "|" in line and result:
            i += 1  # the |---|---| line under a table's header
            continue
        result.append(_line(line))
        i += 1
    return result


def _closes_fence(line: str, marks: str) -> bool:
    """A line of only the fence's character, at least as many as opened it."""
    bare = line.strip()
    return len(bare) >= len(marks) and bare == marks[0] * len(bare)


def _dedent(line: str, indent: int) -> str:
    """A code line without the indentation its fence had (a block inside a list item)."""
    return line[min(indent, len(line) - len(line.lstrip(" "))):]


def _line(line: str) -> Line:
    out: list[Span] = []
    if m := _QUOTE.match(line):
        _inline(m.group(1), (QUOTE,), out)
        return out, True
    if m := _HEADING.match(line):
        _inline(m.group(1), (B,), out)
    elif _RULE.match(line):
        out.append(("──────────", ()))
    elif m := _BULLET.match(line):
        depth = len(m.group(1).expandtabs(4)) // 2
        out.append(("  " * depth + ("• " if depth == 0 else "◦ "), ()))
        _inline(m.group(2), (), out)
    elif m := _NUMBERED.match(line):
        out.append((f"{m.group(1)}{m.group(2)}. ", ()))
        _inline(m.group(3), (), out)
    elif line.lstrip().startswith("|") and line.rstrip().endswith("|") and len(line.strip()) > 1:
        for n, cell in enumerate(line.strip()[1:-1].split("|")):
            if n:
                out.append((" │ ", ()))
            _inline(cell.strip(), (), out)
    else:
        _inline(line, (), out)
    return out, False


def _inline(s: str, tags: Tags, out: list[Span], in_link: bool = False) -> None:
    """Append the spans of one line's inline Markdown, under `tags`."""
    buf: list[str] = []

    def flush() -> None:
        if buf:
            out.append(("".join(buf), tags))
            buf.clear()

    i, n = 0, len(s)
    while i < n:
        m = _SPECIAL.search(s, i)
        if m is None:
            buf.append(s[i:])
            break
        j = m.start()
        buf.append(s[i:j])
        c = s[j]
        if c == "\\":
            if j + 1 < n and s[j + 1] in _PUNCT:
                buf.append(s[j + 1])
                i = j + 2
            else:
                buf.append(c)
                i = j + 1
            continue
        k = _run(s, j)
        if c == "`":
            end = _closer(s, j + k, c, k)
            if end is not None:
                flush()
                code = s[j + k : end]
                if len(code) > 2 and code[0] == code[-1] == " " and code.strip():
                    code = code[1:-1]
                out.append((code, _code_tags(tags)))
                i = end + k
                continue
        elif c == "[":
            link = None if in_link else _LINK.match(s, j)
            if link and link.group(2).lower().startswith(_SCHEMES):
                flush()
                _inline(link.group(1), (*tags, link_tag(link.group(2))), out, in_link=True)
                i = link.end()
                continue
            k = 1
        elif (c, k) in _STYLE and _opens(s, j, k):
            end = _closer(s, j + k, c, k)
            if end is not None:
                flush()
                styled = (*tags, *(t for t in _STYLE[c, k] if t not in tags))
                _inline(s[j + k : end], styled, out, in_link)
                i = end + k
                continue
        buf.append(s[j : j + k])
        i = j + k
    flush()


def _run(s: str, i: int) -> int:
    """How many times s[i] repeats from i."""
    j = i + 1
    while j < len(s) and s[j] == s[i]:
        j += 1
    return j - i


def _opens(s: str, i: int, k: int) -> bool:
    after = s[i + k] if i + k < len(s) else " "
    if after.isspace():
        return False
    return s[i] != "_" or i == 0 or not s[i - 1].isalnum()


def _closer(s: str, start: int, c: str, k: int) -> int | None:
    """Where a run of exactly k `c` closes what opened before `start`, if anywhere."""
    p = s.find(c, start)
    while p >= 0:
        k2 = _run(s, p)
        if k2 == k and p > start and (c == "`" or _closes(s, p, k)):
            return p
        p = s.find(c, p + k2)
    return None


def _closes(s: str, p: int, k: int) -> bool:
    if s[p - 1].isspace():
        return False
    return s[p] != "_" or p + k >= len(s) or not s[p + k].isalnum()


def _code_tags(tags: Tags) -> Tags:
    """Code keeps only an enclosing blockquote: Telegram lets no other entity hold code."""
    return (*(t for t in tags if t.startswith("<blockquote")), CODE)
