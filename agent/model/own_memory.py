"""What auto mode learned about each endpoint, kept for one person's terminal between runs
of `python -m agent`, in a small file in the user's cache directory.

Each terminal run is a new process: without this, every question started natively, a small
model behind a server without a tool parser wrote its call as text, and the run switched to
the text format, reading a second full prompt (on a CPU-only server the longest wait of
the run) before its first useful token.

The bot's memory learns only from several runs of several chats, because a lesson there
changes every student's runs. This file is one person's: a lesson changes only their own
terminal, and the evidence auto mode takes (calls written as text, tools refused in a
server's own words) is what a model that calls tools properly never shows. So one run
teaches it (`OwnMemory`), and as in the bot every tenth run tries native calling again and
forgets a lesson that no longer holds. Counting each terminal run as a chat of the bot's rule
instead would only pretend to be the evidence the rule asks for.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from agent.model.endpoint_memory import EndpointMemory

log = logging.getLogger(__name__)

MAX_ENDPOINTS = 32
"""Endpoints the file keeps (the ones written last): it stays a few kilobytes."""
MAX_BYTES = 256_000
"""A file larger than this is not read (someone else's, or damaged): a fresh memory."""


@dataclass(slots=True)
class OwnMemory(EndpointMemory):
    """An endpoint's memory that one person's runs alone teach."""

    runs_to_learn: ClassVar[int] = 1
    chats_to_learn: ClassVar[int] = 1


def cache_file() -> Path:
    """$XDG_CACHE_HOME/glassbox/endpoints.json, or ~/.cache/glassbox/endpoints.json."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "glassbox" / "endpoints.json"


def _read(path: Path) -> dict[str, object]:
    try:
        if path.stat().st_size > MAX_BYTES:
            return {}
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


@dataclass(slots=True)
class FileKeeper:
    """The memories of one person's endpoints in the JSON file `path` (`cache_file()`)."""

    path: Path

    async def load(self, endpoint: str) -> OwnMemory:
        """The memory of `endpoint` (a fresh one if none, or the file is unreadable)."""
        learned = _read(self.path).get(endpoint)
        return OwnMemory.restored(endpoint, learned if isinstance(learned, dict) else {})

    async def save(self, memory: EndpointMemory) -> None:
        """Keep `memory` beside the other endpoints' (written whole, then renamed, so a run
        that stops midway leaves the old file). A cache that cannot be written is no failure
        of the run: the next one starts as this one did."""
        kept = {k: v for k, v in _read(self.path).items() if k != memory.endpoint}
        kept[memory.endpoint] = memory.learned()
        kept = dict(list(kept.items())[-MAX_ENDPOINTS:])
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            part = self.path.with_suffix(f".{os.getpid()}.part")
            part.write_text(json.dumps(kept, ensure_ascii=False), "utf-8")
            part.chmod(0o600)
            part.replace(self.path)
        except OSError as exc:
            log.info("could not keep what auto mode learned in %s: %s", self.path, exc)

    async def close(self) -> None:
        """Nothing stays open between a load and a save."""
