"""Playing every scenario in both languages and keeping what each chat showed."""

from __future__ import annotations

import contextlib
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.lang import Lang
from gallery.board_picture import BoardShot, camera
from gallery.class_stage import stage
from gallery.scenarios import SCENARIOS, Scenario, Shot
from testkit.fakes.telegram_objects import Frame

LANGS: tuple[Lang, ...] = ("en", "zh")


@dataclass(frozen=True)
class Played:
    scenario: Scenario
    lang: Lang
    shot: Shot
    frames: list[Frame]
    """Every state of the scenario's messages, in order (the users' messages too)."""
    group_title: str
    board: BoardShot | None = None
    """The class board at the scenario's end (a board scenario, when pictures are taken), or
    the course page (a course scenario)."""


async def play_all(delay: float = 0.03, boards: Path | None = None,
                   browser: Any | None = None) -> list[Played]:
    """Every scenario, English first, then Chinese; `boards`: a folder for the pictures of
    the class board after each board scenario, taken in `browser` (or Debian's chromium,
    launched for them)."""
    played: list[Played] = []
    with tempfile.TemporaryDirectory(prefix="glassbox-gallery-") as workdir:
        async with contextlib.AsyncExitStack() as stack:
            cam = None if boards is None else await stack.enter_async_context(
                camera(boards, browser))
            for lang in LANGS:
                async with stage(lang, Path(workdir), delay) as s:
                    for scenario in SCENARIOS:
                        shot = await scenario.play(s)
                        chat = s.tg.chats[shot.chat]
                        board = None
                        if cam is not None and scenario.board:
                            board = await cam.shoot(s.board_url, f"{scenario.key}-{lang}",
                                                    top=scenario.board_top)
                        if cam is not None and scenario.course:
                            board = await cam.shoot_course(s.board_url, f"{scenario.key}-{lang}")
                        played.append(Played(scenario, lang, shot,
                                             s.frames(shot.chat, shot.since),
                                             chat.get("title") or chat.get("first_name", ""),
                                             board))
    return played
