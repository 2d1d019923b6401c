"""A run's facts for the course's figures, from its view (live as it ends, or a stored run
replayed): how it was asked, its rounds, why it failed, the tools it called, whether the
two answers of a /compare differ on a figure, and how the class predicted its rounds.
Pure: no I/O."""

from __future__ import annotations

from agent.events import ObservationFailure
from agent.grounding.figure_diff import differing
from bot.store.course_records import QuizRound, RunFacts, ToolCall
from bot.store.kinds import CourseMode, Lane, RunMode
from bot.view.differences import plain_text
from bot.view.transcript import Transcript, View

NEVER_RAN = (ObservationFailure.SKIPPED, ObservationFailure.NOT_RUN)
"""Calls that never ran are not the tool's to count (a person skipped it; past the cap)."""


def facts_of(view: View) -> RunFacts:
    last = list(view.lanes)[-1]  # a compare's chain is its last lane
    main = view.lanes.get(last) or Transcript()
    end = view.finished.get(last)
    calls = tuple(ToolCall(call.tool, bool(call.ok), call.failure)
                  for lane in view.lanes.values() for rnd in lane.rounds for call in rnd.calls
                  if call.ok is not None and call.failure not in NEVER_RAN)
    return RunFacts(mode=_mode(view, main), rounds=end.rounds if end else 0,
                    error_kind=end.error_kind if end else "", differs=_differs(view),
                    tool_calls=calls, quiz=_quiz(main))


def _mode(view: View, main: Transcript) -> CourseMode:
    if view.mode == RunMode.MODELS:  # a /compare of two models is a /compare to the class
        return CourseMode.COMPARE
    if view.mode != RunMode.ASK:
        return CourseMode(view.mode)
    if any(rnd.vote is not None for rnd in main.rounds):
        return CourseMode.QUIZ
    if any(call.decision for rnd in main.rounds for call in rnd.calls):
        return CourseMode.WALKTHROUGH
    return CourseMode.ASK


def _differs(view: View) -> bool | None:
    plain, react = view.answers.get(Lane.PLAIN), view.answers.get(Lane.REACT)
    if view.mode != RunMode.COMPARE or plain is None or react is None:
        return None
    return bool(differing(plain_text(plain), plain_text(react)))


def _quiz(main: Transcript) -> tuple[QuizRound, ...]:
    """The rounds the class voted on (someone did) whose move is known: as
    bot.view.quiz_view.class_record counts them."""
    out = []
    for rnd in main.rounds:
        vote, taken = rnd.vote, main.vote_taken(rnd)
        if vote is None or not vote.counts or not vote.voters or taken is None:
            continue
        top = max(vote.counts)
        out.append(QuizRound(rnd.number, vote.voters, sum(vote.counts[i] for i in taken),
                             any(vote.counts[i] == top for i in taken)))
    return tuple(out)
