"""What the tools' argument models share: the language of the question.

Tools never see the question, so each language-sensitive tool takes an optional `lang`,
which the loop fills with the run's language (agent/protocols/tool_calls.py). It is not in the
schema the model sees: small models copied `"zh"` from examples into English runs and then
answered in Chinese, and a larger model gains nothing by guessing what Glassbox knows.
Called on its own (a test, a front end), a tool without `lang` guesses it from its own
argument text.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from agent.lang import Lang, detect_lang

QuestionLang = Annotated[
    Lang | None,
    Field(description="The run's language, 'zh' or 'en': the result is written in it."),
]


def lang_of(lang: Lang | None, text: str) -> Lang:
    """The language asked for, or the one of `text` when none was given."""
    return lang or detect_lang(text)
