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


def counted(template: str, n: int) -> str:
    """The form of `template` for a count `n`: an English template holds the singular and
    the plural, split by `|` ("{n:,} tool call|{n:,} tool calls"); Chinese has one form."""
    forms = template.split("|")
    return forms[0 if n == 1 or len(forms) == 1 else 1]


_ENGLISH_WORDS = frozenset(" ".join((
    "a an the is are was were be do does did can could will would should what which who whom",
    "whose when where why how i you he she it we they my your its our their me him her us them",
    "this that these those of in on at to for from with about by and or but not no yes if",
    "then than there here much many some any please tell explain compare",
)).split())
"""Common English words: a question with none of them is not clearly English (a place
name, a formula, another language written in Latin letters)."""


def clear_lang(text: str) -> Lang | None:
    """`zh` or `en` when `text` is clearly in that language, else None.

    Chinese: CJK ideographs weigh at least a quarter of the Latin letters (one ideograph
    is about one short word). English: no ideographs and a common English word."""
    cjk = sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf")
    latin = sum(1 for ch in text if ch.isascii() and ch.isalpha())
    if cjk and cjk * 4 >= latin:
        return "zh"
    words = "".join(ch.lower() if ch.isascii() and ch.isalpha() else " " for ch in text).split()
    if not cjk and any(word in _ENGLISH_WORDS for word in words):
        return "en"
    return None


def run_lang(question: str, fallback: str) -> Lang:
    """The one language of everything Glassbox writes in a run's message: the question's
    when it is clearly Chinese or English, else `fallback` (the asker's language code)."""
    found = clear_lang(question)
    if found is not None:
        return found
    return "zh" if fallback.lower().startswith("zh") else "en"
