"""The fold: a run's events applied in order to one mutable view of the chain.

The live message, `/show` (events rebuilt from the store), the export and the tests all fold
the same events with the same rules, so a replay looks exactly as the run did live. A `View`
holds the transcripts of a run's lanes: one (`main`) for an ask or plain run, `plain` and
`react` for a compare run.
"""

from __future__ import annotations

import bisect
import copy
import dataclasses
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

from agent.classroom.quiz_choices import taken
from agent.events import (
    Action,
    Answer,
    AnswerDelta,
    Decided,
    Event,
    InputKind,
    InputRead,
    Judgement,
    Observation,
    ObservationFailure,
    Origin,
    Plan,
    PlannedAction,
    Proposed,
    Remark,
    RunFinished,
    RunStarted,
    TextDelta,
    Thought,
    ThoughtDelta,
    Usage,
    VoteClosed,
    VoteCount,
    VoteOpened,
)
from agent.grounding.send_back import REMARK_KIND as SENT_BACK
from agent.lang import Lang
from agent.ledger import Entry
from bot.store.kinds import Lane, RunMode
from bot.store.records import RunRecord

_UNFINISHED = RunFinished(round=0, status="error")


class Streamed:
    """A text field that streamed deltas extend (`grow`) in constant time; reading it joins
    the pieces that came since the last read, once. `field += delta` on a str attribute
    copies the whole text at every delta, quadratic in the length of a long answer sent
    in small deltas."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.key = f"_{name}_pieces"

    def __get__(self, obj: object, owner: type | None = None) -> str:
        if obj is None:
            return ""  # the dataclass field's default
        pieces: list[str] = obj.__dict__[self.key]
        if len(pieces) > 1:
            pieces[:] = ["".join(pieces)]
        return pieces[0]

    def __set__(self, obj: object, value: str) -> None:
        obj.__dict__[self.key] = [value]


def grow(obj: object, name: str, piece: str) -> None:
    """Append `piece` to `obj`'s Streamed field `name`."""
    obj.__dict__[f"_{name}_pieces"].append(piece)


@dataclass
class CallView:
    """One tool call of a round and, once it came back, its observation."""

    call_id: str
    tool: str
    arguments: dict[str, Any] | str
    observation: str | None = None
    ok: bool | None = None
    duration_ms: int = 0
    failure: str | None = None
    """Why it gave no result (an ObservationFailure value); None if it worked or is unknown."""
    awaiting: bool = False
    """Walkthrough mode: proposed, waiting for a person's decision."""
    decision: str = ""
    """Walkthrough mode: what a person decided (run, edit, skip, stop); empty: no one was asked."""
    decided_by: str = ""
    model_arguments: dict[str, Any] | str | None = None
    """What the model proposed, when a person edited the arguments."""
    acted: bool = False
    """Its Action came (after a decision); a later Action of the same id is another call."""


@dataclass
class RoundVote:
    """Quiz mode: the class's vote before a round (agent/classroom/quiz_vote.py)."""

    choices: tuple[str, ...]
    counts: tuple[int, ...] | None = None
    """How many chose each choice; None while the vote is open."""
    by: str = ""
    """Who revealed; empty when the time ran out."""
    sent: bool = True
    """False: the poll could not be posted, so nobody voted."""
    so_far: int = 0
    """While it is open: how many have voted."""

    @property
    def voters(self) -> int:
        return sum(self.counts or ())


@dataclass
class RoundView:
    number: int
    thought: str = Streamed()  # type: ignore[assignment]
    """The model's reasoning as it streams (ThoughtDelta), then the round's Thought."""
    thought_done: bool = False
    synthesized: bool = False
    """The Thought was written by Glassbox (runs stored before Notes): shown as a note."""
    calls: list[CallView] = field(default_factory=list)
    remarks: list[str] = field(default_factory=list)
    """Glassbox's own remarks in this round (Remark events), shown labelled as Glassbox's."""
    draft: str = Streamed()  # type: ignore[assignment]
    """Text streamed whose role is not known yet (TextDelta): it becomes the Thought or
    the Answer, and is shown as neither until then."""
    vote: RoundVote | None = None
    """Quiz mode: what the class predicted before the round."""

    @property
    def glassbox_remark(self) -> str:
        """Glassbox's words in this round as one line (its remarks, and a Thought it wrote
        itself, run together: one quiet line a round, never a stack of them)."""
        pieces = [p.strip() for p in (*self.remarks, *([self.thought] if self.synthesized
                                                      else [])) if p.strip()]
        line = pieces[0] if pieces else ""
        for piece in pieces[1:]:  # each its own sentence: '…failed。' + '…' / '… . The …'
            if line[-1] in "。！？":
                line += piece
            else:
                line += ("" if line[-1] in ".!?" else ".") + " " + piece[0].upper() + piece[1:]
        return line

    @property
    def model_thought(self) -> str:
        """The model's own reasoning in this round ("" when Glassbox wrote the Thought)."""
        return "" if self.synthesized else self.thought

    @property
    def shows(self) -> bool:
        """Whether the round has anything to show."""
        return bool(self.thought or self.calls or self.remarks or self.draft or self.vote)


@dataclass
class Transcript:
    mode: str = "react"
    question: str = ""
    model: str = ""
    rounds: list[RoundView] = field(default_factory=list)
    answer: str = Streamed()  # type: ignore[assignment]
    """The draft while the answer streams (AnswerDelta), the final text after Answer."""
    answer_final: bool = False
    unparsed: bool = False
    unfounded: tuple[str, ...] = ()
    """The final answer's figures that nothing backs."""
    ledger: tuple[Entry, ...] = ()
    """What backs each figure of the final answer (empty for runs stored before)."""
    sent_back: bool = False
    """Glassbox sent an answer stating figures no tool gave back to the model to look them
    up (agent/grounding/send_back.py): marks still on the answer stayed after that."""
    finished: RunFinished | None = None
    notice: str = ""
    """Set by the bot (e.g. the run was interrupted by a restart); shown as the footer."""
    plan: tuple[PlannedAction, ...] = ()
    answer_model: str = ""
    """The model that writes the answer when it is not `model` (LLM_ANSWER_MODEL)."""
    judgement: str = ""
    origin: Origin | None = None
    """The stored run this lane is a copy of (a comparison of stored runs)."""
    named_side: bool = False
    """This lane is one named model of a compare of two (RunMode.MODELS), called `model`."""
    """A compare run's difference line, the model's judgement (kept with the ReAct lane)."""
    reads: list[InputRead] = field(default_factory=list)
    """What Glassbox read from the photos the question came with (shown before round 1)."""
    _waiting: dict[tuple[int, str], deque[CallView]] = field(
        default_factory=dict, repr=False, compare=False)
    """Calls still waiting for their Observation, by round and call id, oldest first: an
    Observation finds its Action at once, so folding a run is linear in its steps."""

    @property
    def side_name(self) -> str:
        """What this lane is called beside the other of a comparison of two runs: the
        copied run's number (#3) or the model's name; empty for any other lane."""
        if self.origin is not None:
            return f"#{self.origin.n}"
        return self.model if self.named_side else ""

    def checklist(self) -> list[tuple[PlannedAction, bool]]:
        """The plan's actions, each ticked once a matching tool has run: the k-th action that
        names a tool needs k successful calls of it; `finish` needs the final answer."""
        ok_calls: dict[str, int] = {}
        for view in self.rounds:
            for call in view.calls:
                if call.ok:
                    ok_calls[call.tool] = ok_calls.get(call.tool, 0) + 1
        seen: dict[str, int] = {}
        ticked = []
        for action in self.plan:
            seen[action.tool] = seen.get(action.tool, 0) + 1
            done = self.answer_final if action.tool == "finish" else (
                ok_calls.get(action.tool, 0) >= seen[action.tool])
            ticked.append((action, done))
        return ticked

    def clipped(self, most_calls: int) -> Transcript | None:
        """This run's chain cut after its first `most_calls` tool calls, without the answer;
        None if it has no more calls than that (or has a plan, whose ticks count every
        call). Drawn, it begins exactly as the whole run does: /show draws a run of
        thousands of calls from this to send its first pages."""
        if self.plan or sum(len(view.calls) for view in self.rounds) <= most_calls:
            return None
        rounds, left = [], most_calls
        for view in self.rounds:
            if left <= 0:
                break
            rounds.append(dataclasses.replace(view, calls=view.calls[:left]))
            left -= len(view.calls)
        return dataclasses.replace(self, rounds=rounds, answer="", answer_final=False,
                                   _waiting={})

    @classmethod
    def from_events(cls, events: Iterable[Event]) -> Transcript:
        transcript = cls()
        for event in events:
            transcript.apply(event)
        return transcript

    def apply(self, event: Event) -> None:
        """Fold one event in. Event types this version does not know are ignored."""
        if isinstance(event, TextDelta):
            grow(self._round(event.round), "draft", event.text)
        elif isinstance(event, ThoughtDelta):
            view = self._round(event.round)
            if not view.thought_done:
                grow(view, "thought", event.text)
        elif isinstance(event, Thought):
            view = self._round(event.round)
            view.thought, view.thought_done = event.text, True
            view.synthesized = event.synthesized
            view.draft = ""  # the text streamed so far was (part of) this thought
        elif isinstance(event, Remark):
            self._round(event.round).remarks.append(event.text)
            self.sent_back = self.sent_back or event.kind == SENT_BACK
        elif isinstance(event, AnswerDelta):
            if not self.answer_final:
                grow(self, "answer", event.text)
        elif isinstance(event, Answer):
            self.answer = event.text
            self.answer_final = True
            self.unparsed = event.unparsed
            for view in self.rounds:  # the text streamed so far was this answer
                view.draft = ""
            self.answer_model = event.model or self.answer_model
            self.unfounded = event.unfounded
            self.ledger = event.ledger
        elif isinstance(event, Proposed):
            self._round(event.round).calls.append(
                CallView(event.call_id, event.tool, event.arguments, awaiting=True))
        elif isinstance(event, Decided):
            self._decide(event)
        elif isinstance(event, Action):
            self._round(event.round).draft = ""  # the round's text turned out to be a call
            decided = self._decided_call(event.round, event.call_id)
            if decided is None:
                decided = CallView(event.call_id, event.tool, event.arguments)
                self._round(event.round).calls.append(decided)
            else:
                decided.arguments, decided.acted = event.arguments, True
            self._waiting.setdefault((event.round, event.call_id), deque()).append(decided)
        elif isinstance(event, Observation):
            call = self._call_for(event)
            call.observation = event.text
            call.ok = event.ok
            call.failure = event.failure
            call.duration_ms = event.duration_ms
        elif isinstance(event, RunStarted):
            self.mode = event.mode
            self.question = event.question
            self.model = event.model
            self.answer_model = event.answer_model
        elif isinstance(event, RunFinished):
            self.finished = event
        elif isinstance(event, Plan):
            self.plan = event.actions
        elif isinstance(event, Judgement):
            self.judgement = event.text
        elif isinstance(event, Origin):
            self.origin = event
        elif isinstance(event, InputRead):
            self.reads = [r for r in self.reads
                          if (r.kind, r.number) != (event.kind, event.number)]
            self.reads.append(event)
            self.reads.sort(key=lambda r: (r.kind != InputKind.VOICE, r.number))
        elif isinstance(event, VoteOpened):
            self._round(event.round).vote = RoundVote(event.choices)
        elif isinstance(event, VoteCount):
            vote = self._round(event.round).vote
            if vote is not None and vote.counts is None:
                vote.so_far = event.voters
        elif isinstance(event, VoteClosed):
            self._round(event.round).vote = RoundVote(event.choices, event.counts, event.by,
                                                      event.sent)

    def vote_taken(self, view: RoundView) -> set[int] | None:
        """The choices of `view`'s vote the model took: the tools it called, or "answer
        directly" in the round that answered; None while that is not known yet."""
        if view.vote is None:
            return None
        tools = [s.tool for s in view.calls if s.failure != ObservationFailure.NOT_RUN]
        if tools:
            return taken(view.vote.choices, tools)
        if self.answer_final and view is self.rounds[-1]:
            return taken(view.vote.choices, ())
        return None

    def _round(self, number: int) -> RoundView:
        """The view of round `number`, made (in order) if it is new."""
        for view in reversed(self.rounds):
            if view.number == number:
                return view
            if view.number < number:
                break
        view = RoundView(number)
        # Inserted where it belongs: sorting every round at each new one would fold a run
        # of thousands of rounds in quadratic time.
        bisect.insort(self.rounds, view, key=attrgetter("number"))
        return view

    def _decide(self, event: Decided) -> None:
        call = next((s for s in self._round(event.round).calls
                     if s.call_id == event.call_id and s.awaiting), None)
        if call is None:  # a damaged stored run: the decision alone
            call = CallView(event.call_id, event.tool, {})
            self._round(event.round).calls.append(call)
        call.awaiting, call.decision, call.decided_by = False, event.decision, event.by
        if event.decision == "edit" and event.arguments is not None:
            call.model_arguments, call.arguments = call.arguments, event.arguments

    def _decided_call(self, number: int, call_id: str) -> CallView | None:
        """The call a person decided to run or skip whose Action has not come yet."""
        return next((s for s in self._round(number).calls if s.call_id == call_id
                     and s.decision in ("run", "edit", "skip") and not s.acted), None)

    def _call_for(self, obs: Observation) -> CallView:
        """The Action an Observation answers: same round and call id, still waiting.

        Some servers reuse call ids across rounds, so the round is matched first. An
        Observation with no Action (a damaged stored run) and the one that stands for a
        round's calls not run (NOT_RUN) get a view of their own."""
        waiting = self._waiting.get((obs.round, obs.call_id))
        if waiting and obs.failure != ObservationFailure.NOT_RUN:
            return waiting.popleft()
        call = CallView(obs.call_id, obs.tool, {})
        self._round(obs.round).calls.append(call)
        return call


class View:
    """The transcripts of a run's lanes, what each lane finished with, and its answers."""

    def __init__(self, mode: RunMode, lang: Lang, number: int | None = None) -> None:
        self.mode, self.lang = mode, lang
        self.number = number
        """The run's number in its chat (#12), once stored: the footer names it."""
        self.lanes: dict[str, Transcript] = {
            lane: Transcript(named_side=mode == RunMode.MODELS) for lane in Lane.of(mode)}
        self.finished: dict[str, RunFinished] = {}
        self.answers: dict[str, str] = {}
        self.remarks = True
        """Show Glassbox's own remarks (Remark events, thoughts it wrote for a model that gave
        none); a chat's /settings may turn them off."""
        self.judging = False
        """A compare run's two answers are being judged (the difference line is coming)."""
        self.judgement: Judgement | None = None

    def apply(self, lane: str, event: Event) -> None:
        if not self.remarks:
            shown = without_glassbox_remarks(event)
            if shown is None:
                return
            event = shown
        self.lanes[lane].apply(event)
        if isinstance(event, RunFinished):
            self.finished[lane] = event
        elif isinstance(event, Answer):
            self.answers[lane] = event.text
        elif isinstance(event, Judgement):
            self.judgement = event

    def judgeable(self) -> bool:
        """A compare run whose two lanes both finished well, each with an answer."""
        return self.mode in (RunMode.COMPARE, RunMode.MODELS) and all(
            lane in self.answers and self.finished.get(lane, _UNFINISHED).status == "done"
            for lane in self.lanes)

    def clipped(self, most_calls: int) -> View | None:
        """The view with its last lane (where the chain ends) `Transcript.clipped`; None if
        that lane is short enough to draw whole."""
        last = list(self.lanes)[-1]
        lane = self.lanes[last].clipped(most_calls)
        if lane is None:
            return None
        view = copy.copy(self)
        view.lanes = {**self.lanes, last: lane}
        return view

    def add_notice(self, notice: str) -> None:
        for transcript in self.lanes.values():
            transcript.notice = notice

    def outcome(self) -> RunFinished:
        """The run's end for the store: the ReAct lane's, with both lanes' tokens."""
        if self.mode == RunMode.MODELS:  # done when either side answered
            return self._sides_outcome()
        main = self.finished.get("react") or self.finished.get("main")
        if main is None:
            return RunFinished(round=0, status="error")
        usage = main.usage
        if "plain" in self.finished and self.mode == "compare":
            usage = usage + self.finished["plain"].usage
        if self.judgement is not None:
            usage = usage + self.judgement.usage
        return RunFinished(round=main.round, status=main.status, usage=usage,
                           duration_ms=max(f.duration_ms for f in self.finished.values()))


    def _sides_outcome(self) -> RunFinished:
        """A compare of two models: both sides' tokens; its status the better side's (one
        side's endpoint down still gives the class the other's answer), cancelled if
        either was stopped."""
        ends = [self.finished[lane] for lane in self.lanes if lane in self.finished]
        if not ends:
            return RunFinished(round=0, status="error")
        usage = sum((end.usage for end in ends), Usage())
        if self.judgement is not None:
            usage = usage + self.judgement.usage
        statuses = [end.status for end in ends]
        status = ("cancelled" if "cancelled" in statuses else "done" if "done" in statuses
                  else statuses[-1])
        return RunFinished(round=max(end.round for end in ends), status=status, usage=usage,
                           duration_ms=max(end.duration_ms for end in ends))


def without_glassbox_remarks(event: Event) -> Event | None:
    """`event` as a chat that hides Glassbox's remarks (/settings) sees it: the remark that a
    model gave no reasoning not at all (None), a thought Glassbox wrote for it blanked (the
    round goes on, unexplained); any other event as it is."""
    if isinstance(event, Remark) and event.kind == "no_reasoning":
        return None
    if isinstance(event, Thought) and event.synthesized:
        return dataclasses.replace(event, text="")
    return event


def replay(record: RunRecord, lanes: dict[str, list[Event]], lang: Lang, *,
           remarks: bool = True) -> View:
    """A stored run's view, its stored steps folded as they were live (for /show too);
    `remarks`: whether its chat shows Glassbox's remarks (View.remarks)."""
    view = View(record.mode, lang, record.n)  # type: ignore[arg-type]
    view.remarks = remarks
    for lane, events in lanes.items():
        if lane in view.lanes:
            for event in events:
                view.apply(lane, event)
    return view
