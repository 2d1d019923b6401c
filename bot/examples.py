"""The preset questions `/examples` offers (data/examples.json), each in Chinese and English."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from agent.lang import Lang

EXAMPLES_PATH = Path(__file__).resolve().parent.parent / "data" / "examples.json"


@dataclass(frozen=True, slots=True)
class Example:
    id: str
    label: dict[str, str]
    question: dict[str, str]

    def in_lang(self, lang: Lang) -> tuple[str, str]:
        """(button label, question) in `lang`."""
        return self.label[lang], self.question[lang]


def load_examples(path: Path = EXAMPLES_PATH) -> tuple[Example, ...]:
    return tuple(Example(**item) for item in json.loads(path.read_text(encoding="utf-8")))
