"""Several places in one tool input ('Beijing, London', '柏林和巴黎'): a small model names
both sides of a comparison in one call, so get_time and get_weather take them together."""

from __future__ import annotations

import re

MAX_PLACES = 5
"""Places of one call: a comparison names a few, and each may cost a service request."""
_AND = r"[;；、/]|\band\b|\bvs\.?+|和|与|跟"
_BETWEEN = re.compile(rf"\s*+(?:{_AND})\s*+", re.IGNORECASE)
_BETWEEN_OR_COMMA = re.compile(rf"\s*+(?:[,，]|{_AND})\s*+", re.IGNORECASE)


def split_places(text: str, *, commas: bool) -> list[str]:
    """The parts of `text` that name places, at most MAX_PLACES. `commas`: a comma
    separates places too (for a weather place it may start a region: 'Paris, Texas')."""
    pattern = _BETWEEN_OR_COMMA if commas else _BETWEEN
    return [part for part in pattern.split(text) if part][:MAX_PLACES]
