"""How the Bot API reads `parse_mode=HTML` text: supported tags only, balanced, the four
named entities and numeric ones; the message length is counted after parsing, in UTF-16
code units, on the text with leading and trailing whitespace trimmed."""

from __future__ import annotations

import html
import re

TAGS = {"b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "span", "tg-spoiler", "a",
        "code", "pre", "blockquote", "tg-emoji"}
_TOKEN = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)(?:\s[^<>]*)?>"
                    r"|&(#\d+|#x[0-9a-fA-F]+|[a-zA-Z]+);|[<>&]")
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}


class EntityError(ValueError):
    """Text the Bot API rejects; `str()` is what follows `can't parse entities: `."""


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def parse_html(text: str) -> str:
    """The plain text Telegram shows for `text`, or EntityError."""
    out: list[str] = []
    stack: list[tuple[str, int]] = []
    pos = 0
    for match in _TOKEN.finditer(text):
        out.append(text[pos:match.start()])
        pos = match.end()
        offset = len(text[:match.start()].encode())
        closing, tag, entity = match.group(1), match.group(2), match.group(3)
        if tag is not None:
            tag = tag.lower()
            if tag not in TAGS:
                raise EntityError(f'Unsupported start tag "{tag}" at byte offset {offset}')
            if not closing:
                stack.append((tag, offset))
            elif not stack or stack[-1][0] != tag:
                raise EntityError(f'Can\'t find end tag corresponding to start tag "{tag}"')
            else:
                stack.pop()
        elif entity is not None:
            if entity.startswith("#"):
                out.append(html.unescape(f"&{entity};"))
            elif entity in _NAMED:
                out.append(_NAMED[entity])
            else:
                raise EntityError(f'Unsupported HTML entity "&{entity};" at byte offset {offset}')
        else:
            char = match.group(0)
            raise EntityError(f"Character '{char}' at byte offset {offset} must be escaped")
    out.append(text[pos:])
    if stack:
        raise EntityError(f"Can't find end of the entity starting at byte offset {stack[-1][1]}")
    return "".join(out).strip()
