"""Playing every scenario in both languages and keeping what each chat showed."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from agent.lang import Lang
from gallery.scenarios import SCENARIOS, Scenario, Shot
from gallery.stage import stage
from tests.fakes.telegram_objects import Frame

LANGS: tuple[Lang, ...] = ("en", "zh")


@dataclass(frozen=True)
class Played:
    scenario: Scenario
    lang: Lang
    shot: Shot
    frames: list[Frame]
    """Every state of the scenario's messages, in order (the users' messages too)."""
    group_title: str


async def play_all(delay: float = 0.03) -> list[Played]:
    """Every scenario, English first, then Chinese."""
    played: list[Played] = []
    with tempfile.TemporaryDirectory(prefix="glassbox-gallery-") as workdir:
        for lang in LANGS:
            async with stage(lang, Path(workdir), delay) as s:
                for scenario in SCENARIOS:
                    shot = await scenario.play(s)
                    title = s.tg.chats[shot.chat].get("title") or s.tg.chats[shot.chat].get(
                        "first_name", "")
                    played.append(Played(scenario, lang, shot, s.frames(shot.chat, shot.since),
                                         title))
    return played
