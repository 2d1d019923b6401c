"""Which language a text is in, as far as Glassbox cares: Chinese or English."""

from __future__ import annotations

from typing import Literal

Lang = Literal["zh", "en"]


def detect_lang(text: str) -> Lang:
    """`zh` when the text has any CJK ideographs, else `en`."""
    return (
        "zh"
        if any("\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf" for ch in text)
        else "en"
    )


def pick(lang: str, zh: str, en: str) -> str:
    """The Chinese or English text, by a language code such as `zh-hans` or `en`."""
    return zh if lang.lower().startswith("zh") else en
