"""What the tools' argument models share: the language of the question.

Tools never see the question, so each language-sensitive tool takes an optional `lang`
that the model fills from the question; when it is left out, the tool guesses from its
own argument text.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from agent.lang import Lang, detect_lang

QuestionLang = Annotated[
    Lang | None,
    Field(description="Language of the user's question: 'zh' for Chinese, 'en' for English. "
                      "The result is written in this language."),
]


def lang_of(lang: Lang | None, text: str) -> Lang:
    """The language asked for, or the one of `text` when none was given."""
    return lang or detect_lang(text)
