"""What Glassbox has learned about one model endpoint, kept in one named place.

AGENT_MODE=auto learns from how an endpoint behaves: it refuses `tools`, or its model writes
tool calls as text although `tools` were accepted (`Lesson`); it refused `stream_options`;
it refused a photo given as an image (PHOTO_READING=auto).
Every run with that endpoint's client reads and updates its `EndpointMemory`
(`ModelClient.memory`); the bot keeps it in its store, so a restart does not make a class
wait through the same lesson again (bot/store/endpoints.py).

A lesson changes every chat's runs, so one run never teaches it: the endpoint switches only
after it showed the same thing in `LEARN_AFTER_RUNS` runs from at least `LEARN_AFTER_CHATS`
chats, with nothing to the contrary in between (a proper native call, tools accepted, wipes
the sightings). Once learned, every `PROBE_EVERY`-th run tries native calling again and the
lesson is forgotten when it no longer holds. Each switch is logged once; an admin can reset
it all (/settings).
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import asdict, dataclass, field, fields
from enum import StrEnum
from typing import Any, ClassVar
from urllib.parse import urlsplit, urlunsplit

log = logging.getLogger(__name__)

LEARN_AFTER_RUNS = 3
"""Runs that must show a lesson before the endpoint switches..."""
LEARN_AFTER_CHATS = 2
"""...from at least this many chats: one student's questions never switch every chat."""
PROBE_EVERY = 10
"""Once a lesson is learned, every this many runs one tries native calling again."""
MAX_SIGHTINGS = 8
"""Sightings kept of a lesson not learned yet (the newest): the row stays small."""


class Lesson(StrEnum):
    """What auto mode may learn about an endpoint; the value is the memory's field."""

    TOOLS_REJECTED = "tools_rejected"
    """The endpoint refuses requests with `tools` (twice, in a wording servers use for it)."""
    CALLS_AS_TEXT = "calls_as_text"
    """The model writes its calls into its text (a `<tool_call>`, a JSON call, an Action
    line) although `tools` were accepted."""


def endpoint_key(base_url: str, model: str) -> str:
    """The endpoint a memory belongs to: the server's address (no user, password, query
    or fragment: nothing secret is kept) and the model's name there."""
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return f"{urlunsplit((parts.scheme, host, parts.path.rstrip('/'), '', ''))} {model}"


def _chat_mark(source: str) -> str:
    """A chat as a sighting keeps it: enough to tell chats apart, not which chat it was
    (a forgotten chat leaves no id behind here)."""
    return hashlib.sha256(source.encode()).hexdigest()[:12]


@dataclass(slots=True)
class EndpointMemory:
    """What auto mode learned about one endpoint; the defaults are what it assumes of an
    endpoint it has not seen."""

    endpoint: str
    """`endpoint_key(base_url, model)`."""
    tools_rejected: bool = False
    """Runs speak the text protocol from the start (agent/loop.py)."""
    calls_as_text: bool = False
    """Runs start in the text protocol (agent/protocols/auto_rounds.py)."""
    usage_option: bool = True
    """Whether to ask for `stream_options: {"include_usage": true}`; False once the endpoint
    refused it (its token counts are then estimated, agent/model/model_client.py)."""
    takes_images: bool = True
    """Whether a question's photos go to the model as images (PHOTO_READING=auto); False once
    the endpoint refused them and took the same question as text (agent/model/photo_calls.py):
    a model that cannot see does not learn to, so one run teaches it."""
    seen: dict[str, list[str]] = field(default_factory=dict)
    """For each lesson not learned yet, the chats (`_chat_mark`) of the runs that showed it
    since the last evidence to the contrary, oldest first."""
    since_probe: dict[str, int] = field(default_factory=dict)
    """For each learned lesson, the runs that went by it since native calling was last
    tried."""
    runs_to_learn: ClassVar[int] = LEARN_AFTER_RUNS
    chats_to_learn: ClassVar[int] = LEARN_AFTER_CHATS

    def starts_in_text(self, lesson: Lesson) -> bool:
        """Whether a run starting now goes by `lesson` (it is learned and this run is not
        the one that tries native calling again). Counts the run."""
        if not getattr(self, lesson.value):
            return False
        runs = self.since_probe.get(lesson.value, 0)
        if runs >= PROBE_EVERY:
            return False  # this run probes; the count stays until it shows either way
        self.since_probe[lesson.value] = runs + 1
        return True

    def wrote_calls_as_text(self) -> bool:
        """Whether the endpoint has shown it may end up in the text format (a lesson learned,
        or a run that switched since the last proper native call): only then do auto's native
        rounds carry the text format's long prompt, so that a cloud model calling tools
        properly never pays for it."""
        return (self.calls_as_text or self.tools_rejected
                or bool(self.seen.get(Lesson.CALLS_AS_TEXT.value)))

    def saw(self, lesson: Lesson, source: str) -> None:
        """A run for chat `source` showed `lesson`: once enough runs and chats did, the
        endpoint switches (logged once); a learned lesson seen again waits a whole
        `PROBE_EVERY` before it is tried again."""
        if getattr(self, lesson.value):
            self.since_probe[lesson.value] = 0
            return
        marks = [*self.seen.get(lesson.value, []), _chat_mark(source)][-MAX_SIGHTINGS:]
        if len(marks) < self.runs_to_learn or len(set(marks)) < self.chats_to_learn:
            self.seen[lesson.value] = marks
            return
        self.seen.pop(lesson.value, None)
        setattr(self, lesson.value, True)
        self.since_probe[lesson.value] = 0
        log.warning("auto mode: %s now goes by %s (seen in %d runs from %d chats); every "
                    "%d runs one tries native calling again", self.endpoint, lesson.value,
                    len(marks), len(set(marks)), PROBE_EVERY)

    def contradicted(self, lesson: Lesson) -> None:
        """The endpoint did the opposite of `lesson` (a proper native call; a request with
        tools accepted): its sightings go, and a learned lesson is forgotten (logged
        once)."""
        self.seen.pop(lesson.value, None)
        if getattr(self, lesson.value):
            setattr(self, lesson.value, False)
            self.since_probe.pop(lesson.value, None)
            log.warning("auto mode: %s no longer goes by %s: native calling worked again",
                        self.endpoint, lesson.value)

    def refused_images(self) -> None:
        """The endpoint refused a photo and took the question as text: its photos are read
        by Glassbox from now on (logged once)."""
        if self.takes_images:
            self.takes_images = False
            log.warning("photos: %s takes no images; Glassbox reads its photos from now on",
                        self.endpoint)

    def learned(self) -> dict[str, Any]:
        """What differs from an unseen endpoint's defaults (empty: nothing learned)."""
        fresh = EndpointMemory(self.endpoint)
        return {name: value for name, value in asdict(self).items()
                if name != "endpoint" and value != getattr(fresh, name)}

    @classmethod
    def restored(cls, endpoint: str, learned: dict[str, Any]) -> EndpointMemory:
        """The memory of `endpoint` from its `learned()`; keys this version does not know
        (a newer version wrote them) and values of the wrong shape are left out."""
        memory = cls(endpoint)
        for name in {f.name for f in fields(cls)} - {"endpoint", "seen", "since_probe"}:
            if isinstance(learned.get(name), bool):
                setattr(memory, name, learned[name])
        lessons = {lesson.value for lesson in Lesson}
        seen, runs = learned.get("seen"), learned.get("since_probe")
        if isinstance(seen, dict):
            memory.seen = {name: [m for m in marks if isinstance(m, str)][-MAX_SIGHTINGS:]
                           for name, marks in seen.items()
                           if name in lessons and isinstance(marks, list)}
        if isinstance(runs, dict):
            memory.since_probe = {name: min(n, PROBE_EVERY) for name, n in runs.items()
                                  if name in lessons and type(n) is int and n >= 0}
        return memory
