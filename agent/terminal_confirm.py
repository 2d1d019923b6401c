"""Walkthrough mode in a terminal (`python -m agent --step`): each proposed action waits for
run / edit / skip / stop, typed on stdin; prompts go to stderr, so `--json` output stays
one event per line."""

from __future__ import annotations

import asyncio
import getpass
import sys
from collections.abc import Callable
from typing import TextIO

from agent.classroom.confirm import Decision, EditError, parse_edit
from agent.events import Proposed
from agent.prompts import args_text
from agent.tool import Tool
from agent.words import say

_CHOICES = {"r": "run", "run": "run", "": "run", "e": "edit", "edit": "edit",
            "s": "skip", "skip": "skip", "q": "stop", "stop": "stop"}


class TerminalConfirmer:
    def __init__(self, lang: str, *, read: Callable[[], str] | None = None,
                 out: TextIO | None = None, name: str = "") -> None:
        self.lang = lang
        self.read = read or sys.stdin.readline
        self.out = out or sys.stderr
        self.name = name or _user()

    async def decide(self, proposed: Proposed, tool: Tool | None) -> Decision:
        call = f"{proposed.tool}({args_text(proposed.arguments)})"
        while True:
            typed = await self._ask(say(self.lang, "terminal_choose", call=call))
            if typed is None:  # stdin closed: nobody can decide
                return Decision("stop", self.name, reason=say(self.lang, "terminal_no_input"))
            choice = _CHOICES.get(typed.strip().lower())
            if choice == "edit":
                arguments = await self._edit(tool)
                if arguments is not None:
                    return Decision("edit", self.name, arguments)
            elif choice is not None:
                return Decision(choice, self.name)  # type: ignore[arg-type]

    async def _edit(self, tool: Tool | None) -> dict[str, object] | None:
        """New arguments, asked again until they fit; None: back to the choice."""
        while True:
            typed = await self._ask(say(self.lang, "terminal_new_arguments"))
            if not typed or not typed.strip():
                return None
            try:
                return parse_edit(typed, tool, self.lang)
            except EditError as err:
                self.out.write(f"⚠️ {err}\n")

    async def _ask(self, prompt: str) -> str | None:
        self.out.write(prompt)
        self.out.flush()
        line = await asyncio.to_thread(self.read)
        return line if line else None


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "terminal"
