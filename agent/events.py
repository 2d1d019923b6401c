"""The immutable step events a run yields, in the order they happen.

A run is: RunStarted, then what Glassbox read or heard from what the student sent, or the
photos given to the model as they are (InputRead), then (with planning) a Plan, then rounds
(round numbers start at 1), then RunFinished.
A round that uses tools is Thought, Action(s), Observation(s). The final round is
(Thought), Answer. While a round streams, its text comes as `Delta`s, each saying what is
known of its role: a ThoughtDelta is the model's reasoning, an AnswerDelta text known to be
the answer (a run without tools, a last round without them), a TextDelta text whose role
is not known yet. A TextDelta's text becomes the round's Thought if tool calls follow, the
Answer if not, and is never shown as either before that. A round whose model gave no
reasoning has no Thought: Glassbox says so in a Remark, in its own name. Deltas are not
stored (the Thought and the Answer hold the whole text).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Any, ClassVar, Literal

from agent.ledger import Entry

Status = Literal["done", "max_rounds", "error", "cancelled"]
_ATOMS = (str, int, float, bool, type(None))
"""Values `_plain` returns as they are: JSON's besides lists and objects (and enums)."""
Mode = Literal["react", "plain"]


@dataclass(frozen=True, slots=True)
class Usage:
    """Token usage as the API's `usage` reports it, summed over calls. `estimated`: some
    call's server sent no `usage` (llama.cpp's server, in streams), so its tokens were
    estimated from the length of the text (agent/model/model_client.py)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    estimated: bool = False

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.total_tokens + other.total_tokens,
            self.estimated or other.estimated,
        )


@dataclass(frozen=True, slots=True)
class Event:
    type: ClassVar[str] = "event"
    round: int

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with `type` first, for `--json`, the store and tests."""
        return {"type": self.type, **_as_dict(self)}


@dataclass(frozen=True, slots=True)
class RunStarted(Event):
    type: ClassVar[str] = "run_started"
    mode: Mode
    question: str
    model: str
    tools: tuple[str, ...] = ()
    answer_model: str = ""
    """LLM_ANSWER_MODEL: the model that writes the answer; empty: `model` does."""


@dataclass(frozen=True, slots=True)
class Thought(Event):
    """The model's own words before its tool calls (its reasoning, or its text)."""

    type: ClassVar[str] = "thought"
    text: str
    synthesized: bool = False
    """Written by Glassbox, not the model: runs stored before Glassbox had Notes; front
    ends show such a Thought as a Remark."""


@dataclass(frozen=True, slots=True)
class Remark(Event):
    """Glassbox's own words about the run, never the model's: front ends label them as
    Glassbox's (e.g. "this model writes its tool calls as text, so Glassbox switched to
    the text format"). `kind` names what the remark is about, so a front end may word it in
    its own language; `text` is the agent's wording, in the run's language."""

    type: ClassVar[str] = "note"  # the stored value: every run kept reads with it
    kind: str
    text: str


@dataclass(frozen=True, slots=True)
class Action(Event):
    type: ClassVar[str] = "action"
    call_id: str
    tool: str
    arguments: dict[str, Any] | str = field(default_factory=dict)
    """Parsed JSON arguments, or the raw text when the model sent something unparsable."""


class ObservationFailure(StrEnum):
    """Why a tool call gave no result (agent/protocols/tool_calls.py decides). Stored as its
    value."""

    BAD_ARGUMENTS = "bad_arguments"
    """The arguments were not a JSON object, or did not fit the tool's schema."""
    UNKNOWN_TOOL = "unknown_tool"
    """The model named a tool that is not on offer."""
    TIMEOUT = "timeout"
    """The tool ran past TOOL_TIMEOUT_S and was stopped."""
    TOOL_ERROR = "tool_error"
    """The tool refused (a ToolError: no such place, unknown currency) or crashed."""
    UPSTREAM_ERROR = "upstream_error"
    """A service the tool relies on failed, sent nothing usable or could not be reached in
    time (an UpstreamError), as opposed to the tool itself refusing."""
    SKIPPED = "skipped"
    """A person skipped the call in walkthrough mode (agent/classroom/confirm.py): it never ran."""
    NOT_RUN = "not_run"
    """The call was past AGENT_MAX_CALLS_PER_ROUND and was not run. One Observation of this
    kind stands for all of a round's calls not run (its `call_id` is the first of them)."""


@dataclass(frozen=True, slots=True)
class Observation(Event):
    type: ClassVar[str] = "observation"
    call_id: str
    tool: str
    text: str
    ok: bool
    duration_ms: int
    failure: ObservationFailure | None = None
    """Why the call failed; None when `ok`, and also in runs stored before Glassbox
    recorded it (a failure of unknown kind)."""


@dataclass(frozen=True, slots=True)
class Proposed(Event):
    """A call waiting for a person's decision before it runs (walkthrough mode,
    agent/classroom/confirm.py); a Decided event for the same call follows."""

    type: ClassVar[str] = "proposed"
    call_id: str
    tool: str
    arguments: dict[str, Any] | str = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Decided(Event):
    """What a person decided about a Proposed call: run it, run it with `arguments`
    (edit), skip it, or stop the run. `by`: who (empty when nobody did in time)."""

    type: ClassVar[str] = "decided"
    call_id: str
    tool: str
    decision: Literal["run", "edit", "skip", "stop"]
    by: str = ""
    arguments: dict[str, Any] | None = None
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Delta(Event):
    """A piece of a round's text as it streams; the subclass says what it is known to be."""

    text: str


@dataclass(frozen=True, slots=True)
class ThoughtDelta(Delta):
    """A piece of the model's reasoning (`reasoning_content`): the round's Thought grows."""

    type: ClassVar[str] = "thought_delta"


@dataclass(frozen=True, slots=True)
class TextDelta(Delta):
    """A piece of text whose role is not known yet: shown as neutral, in-progress text."""

    type: ClassVar[str] = "text_delta"


@dataclass(frozen=True, slots=True)
class AnswerDelta(Delta):
    """A piece of text known to be the answer."""

    type: ClassVar[str] = "answer_delta"


@dataclass(frozen=True, slots=True)
class Answer(Event):
    type: ClassVar[str] = "answer"
    text: str
    unparsed: bool = False
    model: str = ""
    """The model that wrote it when not the run's own (LLM_ANSWER_MODEL); empty otherwise."""
    unfounded: tuple[str, ...] = ()
    """Figures of the answer (as written, each once) that nothing backs: front ends mark
    them as not from any observation."""
    ledger: tuple[Entry, ...] = ()
    """Each figure of the answer and what backs it (agent/grounding/backing.py); empty in runs
    stored before Glassbox kept one (their marks come from `unfounded`)."""


@dataclass(frozen=True, slots=True)
class PlannedAction:
    tool: str
    """A tool name, or "finish" for the action that answers."""
    why: str = ""


@dataclass(frozen=True, slots=True)
class Plan(Event):
    """The plan made before acting (round 0); front ends show it as a checklist."""

    type: ClassVar[str] = "plan"
    actions: tuple[PlannedAction, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """As Event's, its actions under "steps": the key every stored plan, `--json` line
        and API event has."""
        data = Event.to_dict(self)
        data["steps"] = data.pop("actions")
        return data


class InputKind(StrEnum):
    """What the student sent that Glassbox read for the model. Stored as its value."""

    PHOTO = "photo"
    """A picture, read by the embedded OCR."""
    VOICE = "voice"
    """A voice message, transcribed."""


class Reader(StrEnum):
    """Who read what was sent. Stored as its value."""

    GLASSBOX = "glassbox"
    """Glassbox, before the model's first round: its OCR, its transcription."""
    MODEL = "model"
    """The model itself, given the photo as an image: Glassbox read nothing of it."""


class ReadFailure(StrEnum):
    """Why nothing was read from what was sent (the run goes on with the question alone)."""

    NONE = ""
    NO_TEXT = "no_text"
    TIME = "time"
    MEMORY = "memory"
    UNREADABLE = "unreadable"


UNSURE_BELOW = 0.8
"""A segment read with less confidence than this is marked as unsure where it is shown."""


@dataclass(frozen=True, slots=True)
class ReadSegment:
    """A piece of what was read (an OCR text box), with the reader's confidence (0–1)."""

    text: str
    confidence: float
    line: int = 1
    """Which line of the picture (or sentence of a voice message) it is on, from 1."""

    @property
    def unsure(self) -> bool:
        return self.confidence < UNSURE_BELOW


@dataclass(frozen=True, slots=True)
class InputRead(Event):
    """What Glassbox read or heard from what the student sent (round 0, before the model's
    first round): its own step, never the model's. The model is given `text`; front ends
    show the segments with the unsure ones marked. With `by` MODEL, a photo given to the
    model as it is, no text read: the model's to read, never shown as Glassbox's. A later
    InputRead of the same kind and number takes its place (a photo the model's endpoint
    refused, then read by Glassbox)."""

    type: ClassVar[str] = "input_read"
    kind: InputKind
    engine: str
    """What read it, as shown: "OCR", "Whisper", or the model's name."""
    segments: tuple[ReadSegment, ...] = ()
    number: int = 1
    """Which of the `of` pictures sent together (an album) this is."""
    of: int = 1
    failure: ReadFailure = ReadFailure.NONE
    seconds: float = 0.0
    by: Reader = Reader.GLASSBOX

    @property
    def text(self) -> str:
        """The segments as lines, the pieces of a line separated by a space."""
        lines: dict[int, list[str]] = {}
        for segment in self.segments:
            lines.setdefault(segment.line, []).append(segment.text)
        return "\n".join(" ".join(pieces) for pieces in lines.values())


@dataclass(frozen=True, slots=True)
class RunFinished(Event):
    type: ClassVar[str] = "run_finished"
    status: Status
    usage: Usage = Usage()
    duration_ms: int = 0
    rounds: int = 0
    tool_calls: int = 0
    reason: str = ""
    """A short reason fit to show a student when status is not `done`."""
    error_kind: str = ""
    """Why the run did not end well, as a plain string: an `agent.model.model_errors.ModelErrorKind`
    value, "cancelled" or "internal" (see agent/run_task.py); empty otherwise."""


@dataclass(frozen=True, slots=True)
class Judgement(Event):
    """/compare's difference line: the model's own judgement of how the answer without tools
    and the one with tools differ (agent/classroom/compare_judge.py). Comes after both lanes
    finished; the bot stores it with the ReAct lane."""

    type: ClassVar[str] = "judgement"
    text: str
    usage: Usage = Usage()


@dataclass(frozen=True, slots=True)
class Origin(Event):
    """The run a lane of a comparison of stored runs was copied from, written by Glassbox
    (no model is called): its number in the chat, who asked, when (in the chat's time zone,
    as the comparison was made) and in which mode. It opens the lane, before the run's own
    steps."""

    type: ClassVar[str] = "origin"
    n: int
    asker: str
    when: str
    mode: str = ""


ANSWER_CHOICE, OTHER_CHOICE = ":answer", ":other"
"""A class vote's choices that are no tool: the model answers directly, or calls a tool the
poll had no room for (a tool's name never holds a colon)."""


@dataclass(frozen=True, slots=True)
class VoteOpened(Event):
    """Quiz mode: before the round's model call, the class is asked which of `choices` (tool
    names, ANSWER_CHOICE, OTHER_CHOICE) the model will take; a VoteClosed follows."""

    type: ClassVar[str] = "vote_opened"
    choices: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class VoteCount(Event):
    """How many have voted so far while the round's vote is open (never stored: the
    VoteClosed holds the counts)."""

    type: ClassVar[str] = "vote_count"
    voters: int = 0


@dataclass(frozen=True, slots=True)
class VoteClosed(Event):
    """How the class voted before the round: `counts` lines up with `choices`; `by` who
    revealed (empty: the time ran out); `sent` False when the poll could not be posted."""

    type: ClassVar[str] = "vote_closed"
    choices: tuple[str, ...] = ()
    counts: tuple[int, ...] = ()
    by: str = ""
    sent: bool = True


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        RunStarted, Plan, Thought, ThoughtDelta, TextDelta, Remark, Proposed, Decided, Action,
        Observation, AnswerDelta, Answer, RunFinished, Judgement, VoteOpened, VoteCount,
        VoteClosed, Origin, InputRead,
    )
}


def event_from_dict(data: dict[str, Any]) -> Event:
    """Rebuild an event from `to_dict()` output (a stored step, a `--json` line)."""
    values = dict(data)
    cls = EVENT_TYPES[values.pop("type")]
    if cls in (RunFinished, Judgement) and isinstance(values.get("usage"), dict):
        values["usage"] = Usage(**values["usage"])
    if cls is Observation and values.get("failure") is not None:
        values["failure"] = ObservationFailure(values["failure"])
    if cls is RunStarted:
        values["tools"] = tuple(values.get("tools", ()))
    if cls in (VoteOpened, VoteClosed):
        for key in ("choices", "counts"):
            if key in values:
                values[key] = tuple(values[key])
    if cls is Answer:
        values["unfounded"] = tuple(values.get("unfounded", ()))
        values["ledger"] = tuple(e if isinstance(e, Entry) else Entry.from_dict(e)
                                 for e in values.get("ledger", ()))
    if cls is InputRead:
        values["kind"] = InputKind(values["kind"])
        values["failure"] = ReadFailure(values.get("failure", ""))
        values["by"] = Reader(values.get("by", Reader.GLASSBOX))
        values["segments"] = tuple(s if isinstance(s, ReadSegment) else ReadSegment(**s)
                                   for s in values.get("segments", ()))
    if cls is Plan:
        values["actions"] = tuple(
            action if isinstance(action, PlannedAction) else PlannedAction(**action)
            for action in values.pop("steps", ())
        )
    names = {f.name for f in dataclasses.fields(cls)}
    return cls(**{k: v for k, v in values.items() if k in names})


@functools.cache
def _names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def _as_dict(event: Any) -> dict[str, Any]:
    """`dataclasses.asdict(event)` without its deep copy of every value: each step stored
    went through `copy.deepcopy` for each string and number it holds, a third of its
    writing. The containers are new as asdict's are; what is shared is immutable."""
    return {name: _plain(getattr(event, name)) for name in _names(type(event))}


def _plain(value: Any) -> Any:
    if type(value) in _ATOMS or isinstance(value, Enum):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _as_dict(value)
    if type(value) in (list, tuple):
        return type(value)(_plain(item) for item in value)
    if type(value) is dict:
        return {_plain(key): _plain(item) for key, item in value.items()}
    return copy.deepcopy(value)
