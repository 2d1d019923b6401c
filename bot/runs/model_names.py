"""What follows /compare (or /rerun N) when it names models: `/compare local cloud question`
(or `local vs cloud question`) asks two named models at once. Pure, and the same for every
front end; each words the refusals itself."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

JOINING = frozenset({"vs", "vs.", "versus", "对", "和", "与"})
"""Words a person may put between the two names."""


@dataclass(frozen=True, slots=True)
class TwoModels:
    names: tuple[str, str]
    question: str


@dataclass(frozen=True, slots=True)
class UnknownModel:
    """A name that no model has, beside one that some model has."""

    name: str


@dataclass(frozen=True, slots=True)
class SameModel:
    name: str


def known_name(word: str, known: Sequence[str]) -> str | None:
    """`word` as the name of one of the `known` models (any case), or None."""
    folded = {name.lower(): name for name in known}
    return folded.get(word.lower())


def two_models(typed: str, known: Sequence[str]) -> TwoModels | UnknownModel | SameModel | None:
    """The two models and the question `typed` names; None when it names no model first
    (a question for /compare's model alone beside it with tools). A model's name followed
    by a word that is none is a name mistyped (where there are two models to name); so is
    any word before `vs` and a name."""
    words = typed.split(maxsplit=3)
    joined = len(words) >= 3 and words[1].lower() in JOINING
    words = [words[0], *words[2:]] if joined else typed.split(maxsplit=2)
    if len(words) < 2:
        return None
    first, second = (known_name(word, known) for word in words[:2])
    if first is None and (second is None or not joined):
        return None
    if second is None and not joined and len(known) < 2:  # one model: no names are typed
        return None
    if first is None or second is None:
        return UnknownModel(words[1 if second is None else 0][:40])
    if first == second:
        return SameModel(first)
    return TwoModels((first, second), words[2] if len(words) > 2 else "")
