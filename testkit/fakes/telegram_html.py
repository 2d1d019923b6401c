"""What Telegram does with a parse_mode=HTML message text, as a checker for tests.

`parse_html` turns a page into the text a user sees, the way the Bot API documents it:
only the supported tags, balanced; `<`, `>` and `&` escaped unless part of a tag or an
entity; at most 4,096 UTF-16 units after parsing. Where the rules are unclear (nesting
inside code, blockquote in blockquote) it is stricter than Telegram. A page it rejects is
one Telegram would answer with "Can't parse entities" or "message is too long".
`shows_nothing` tells a text Telegram refuses as "message text is empty".
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

MAX_UNITS = 4096

_TOKEN = re.compile(
    r"<(/?)([a-zA-Z-]+)((?:\s+[a-z-]+(?:=\"[^\"<>]*\")?)*)\s*>"  # a tag
    r"|&(?:#[0-9]+|#x[0-9a-fA-F]+|lt|gt|amp|quot);"  # an entity
    r"|[<>&]"  # a stray markup character: an error
)
_ATTRS = {
    "b": set(), "strong": set(), "i": set(), "em": set(), "u": set(), "ins": set(),
    "s": set(), "strike": set(), "del": set(), "tg-spoiler": set(), "span": {"class"},
    "a": {"href"}, "code": {"class"}, "pre": set(), "blockquote": {"expandable"},
}
_CODE_LIKE = {"code", "pre"}
_DROPPED = re.compile("[\r\u2028-\u202e\u030a\u0333\u033f]")
"""What tdlib's fix_formatted_text removes from a text before anything else."""
_EMPTY = re.compile("[\x00-\x20\xa0\u1680\u180e\u2000-\u200f\u202f\u205f\u2800\u3000"
                    "\ufeff\ufffc\U000e0000-\U000e007f]*")
"""A text tdlib counts as empty (control characters, spaces of every width, zero-width and
direction marks, the BOM, the Braille blank, tag characters: strip_empty_characters)."""


def shows_nothing(text: str) -> bool:
    """Whether Telegram refuses `text` (after entity parsing) as "message text is empty"."""
    return _EMPTY.fullmatch(_DROPPED.sub("", text)) is not None


class CantParseEntities(ValueError):
    pass


@dataclass(frozen=True)
class Parsed:
    text: str
    tags: tuple[str, ...]
    """Every tag opened, in order, e.g. ('b', 'blockquote', 'pre', 'code')."""


def utf16_units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def parse_html(page: str) -> Parsed:
    """The visible text of `page`; raises CantParseEntities where Telegram would refuse."""
    page.encode("utf-8")  # a lone surrogate cannot even be sent
    text: list[str] = []
    stack: list[str] = []
    opened: list[str] = []
    pos = 0
    for m in _TOKEN.finditer(page):
        text.append(page[pos : m.start()])
        pos = m.end()
        token = m.group(0)
        if token in "<>&":
            raise CantParseEntities(f"stray {token!r} at {m.start()}")
        if token.startswith("&"):
            text.append(html.unescape(token))
            continue
        closing, name, attrs = m.group(1), m.group(2).lower(), m.group(3)
        if name not in _ATTRS:
            raise CantParseEntities(f"unsupported tag {name!r}")
        if closing:
            if not stack or stack[-1] != name:
                raise CantParseEntities(f"unmatched </{name}>")
            stack.pop()
            continue
        _check_open(name, attrs, stack)
        stack.append(name)
        opened.append(name)
    text.append(page[pos:])
    if stack:
        raise CantParseEntities(f"unclosed <{stack[-1]}>")
    visible = "".join(text)
    if utf16_units(visible) > MAX_UNITS:
        raise CantParseEntities("message is too long")
    return Parsed(visible, tuple(opened))


def _check_open(name: str, attrs: str, stack: list[str]) -> None:
    names = {m.group(1) for m in re.finditer(r'\s+([a-z-]+)(?:="[^"]*")?', attrs)}
    if not names <= _ATTRS[name]:
        raise CantParseEntities(f"bad attributes on <{name}>: {attrs!r}")
    if name == "a" and not re.search(r'href="(https?|tg)://', attrs):
        raise CantParseEntities(f"bad link {attrs!r}")
    inside = stack[-1] if stack else ""
    if inside in _CODE_LIKE and not (inside == "pre" and name == "code"):
        raise CantParseEntities(f"<{name}> inside <{inside}>")
    if name in _CODE_LIKE and any(t not in ("blockquote", "pre") for t in stack):
        raise CantParseEntities(f"<{name}> inside {stack}")
    if name == "blockquote" and "blockquote" in stack:
        raise CantParseEntities("nested blockquote")
