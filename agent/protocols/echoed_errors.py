"""A tool's error is never the answer.

A small model that cannot mend a failed call may end the run by writing the tool's error
text as its answer (a 1.5B model answered "12.5% 的 3840 是多少？" with the calculator's
"无法理解这个表达式：12.5% * 3840" after the round cap). Such an answer says nothing the
chain above does not, and shown as 💬 Answer it would be the error in the model's name.

Wraps a run's steps. An Answer that only repeats a failed observation (the same letters
and digits, give or take spacing, punctuation and a label such as "Error:") is not shown:
Glassbox says in a Remark, in its own name, that the model's answer only repeated that
call's error, and the run ends as an error whose reason says, in the run's language, what
could not be done. While the run has failed calls, a round's streamed text (AnswerDeltas,
and TextDeltas, which become the Answer if no call follows) is held back as long as it
could still be such a repeat, so the error is never drawn as the answer either; the first
words that could not be are sent at once, with what was held.
"""

from __future__ import annotations

import dataclasses
import unicodedata
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from agent.events import (
    Action,
    Answer,
    AnswerDelta,
    Event,
    Observation,
    ObservationFailure,
    Remark,
    RunFinished,
    TextDelta,
)
from agent.prompts import args_text
from agent.words import say

REMARK_KIND = "error_as_answer"
ERROR_KIND = "error_as_answer"
"""RunFinished.error_kind of a run whose only answer was a tool's error."""

MIN_CHARS = 8
MIN_WORDS = 3
"""A part of an error is taken for its repeat only from this many letters and digits and
this many words (a Chinese character counts as half a word): "480" or "Marie Curie" may
well appear in an error and still be the answer."""

_LABELS = ("finalanswer", "answer", "error", "observation", "最终答案", "答案", "回答", "错误",
           "观察")
"""Labels a model puts before the text it repeats (in the normalized form)."""

_NEVER_RAN = (ObservationFailure.SKIPPED, ObservationFailure.NOT_RUN)


def _core(text: str) -> str:
    """The letters and digits of `text`, case-folded: what two wordings of it share."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", text).casefold() if ch.isalnum())


def _words(text: str) -> float:
    cjk = sum(1 for ch in text if "\u3400" <= ch <= "\u9fff")
    return len(text.split()) + cjk / 2


def _unlabelled(core: str) -> str:
    for label in _LABELS:
        if core.startswith(label):
            return core[len(label):]
    return core


CALL_CHARS = 80
"""The call named in the remark and the reason is cut to this many characters."""


@dataclass
class _Failure:
    call: str
    """The call as the chain shows it: calculate(12.5% * 3840)."""
    core: str


@dataclass
class _Guard:
    failures: dict[str, _Failure] = field(default_factory=dict)
    """The failed calls by their error's letters and digits (one error, one entry)."""
    candidates: list[str] = field(default_factory=list)
    """The errors the text held now may still repeat; each drops out once, for good."""
    held: list[AnswerDelta | TextDelta] = field(default_factory=list)
    holding: bool = True
    """The text streaming now may still turn out to repeat an error."""

    core: str = ""
    """The letters and digits of the held deltas."""

    def failed(self, observation: Observation, action: Action | None) -> None:
        args = args_text(action.arguments) if action is not None else ""
        if len(args) > CALL_CHARS:
            args = args[:CALL_CHARS] + "…"
        core = _core(observation.text)
        self.failures.pop(core, None)  # the latest call with this error names it
        self.failures[core] = _Failure(f"{observation.tool}({args})", core)
        if core not in self.candidates:
            self.candidates.append(core)

    def hold(self, delta: AnswerDelta | TextDelta) -> bool:
        """Whether `delta` is held back: the text so far may still repeat an error.
        Checked only when its letters grow, against the errors it may still repeat."""
        self.held.append(delta)
        grown = _core(delta.text)
        if not grown:
            return True
        self.core += grown
        self.holding = self.may_repeat(self.core)
        return self.holding

    def release(self) -> list[AnswerDelta | TextDelta]:
        """What was held, each run of deltas of one kind as one; nothing more is held
        until the next step."""
        runs: list[list[AnswerDelta | TextDelta]] = []
        for delta in self.held:
            if runs and type(runs[-1][0]) is type(delta) and runs[-1][0].round == delta.round:
                runs[-1].append(delta)
            else:
                runs.append([delta])
        self.held.clear()
        self.holding = False
        return [dataclasses.replace(run[0], text="".join(d.text for d in run)) for run in runs]

    def reset(self) -> None:
        """A new step: what streams next is held again (while calls have failed)."""
        self.held.clear()
        self.holding, self.core = True, ""
        self.candidates = list(self.failures)

    def repeated(self, answer: str) -> _Failure | None:
        """The failed call whose error `answer` only repeats, if any."""
        core = _unlabelled(_core(answer))
        if not core:
            return None
        for failure in reversed(self.failures.values()):
            if core == failure.core or (len(core) >= MIN_CHARS and _words(answer) >= MIN_WORDS
                                        and core in failure.core):
                return failure
        return None

    def may_repeat(self, core: str) -> bool:
        """Whether an answer whose letters and digits begin with `core` may still repeat
        an error."""
        if any(label.startswith(core) for label in _LABELS):
            return True
        core = _unlabelled(core)  # it only grows: an error without it never has it later
        self.candidates = [error for error in self.candidates if core in error]
        return bool(self.candidates)


def no_answer_reason(lang: str, call: str) -> str:
    return say(lang, "echo_no_answer", call=call)


def error_as_answer_remark(rnd: int, lang: str, call: str) -> Remark:
    return Remark(round=rnd, kind=REMARK_KIND, text=say(lang, "echo_remark", call=call))


async def no_errors_as_answers(steps: AsyncIterator[Event], lang: str
                               ) -> AsyncIterator[Event]:
    """`steps`, with an answer that only repeats a tool's error not shown as the answer."""
    guard = _Guard()
    actions: dict[str, Action] = {}
    reason = ""
    async for event in steps:
        if isinstance(event, AnswerDelta | TextDelta) and guard.failures:
            if guard.holding and guard.hold(event):
                continue
            for delta in guard.release() or [event]:
                yield delta
            continue
        if isinstance(event, Remark):  # the loop's remark on the answer comes before it
            yield event
            continue
        if isinstance(event, Answer) and (failure := guard.repeated(event.text)) is not None:
            guard.reset()
            reason = no_answer_reason(lang, failure.call)
            yield error_as_answer_remark(event.round, lang, failure.call)
            continue
        for delta in guard.release():
            yield delta
        guard.reset()
        if isinstance(event, Action):
            actions[event.call_id] = event
        elif isinstance(event, Observation) and not event.ok \
                and event.failure not in _NEVER_RAN:
            guard.failed(event, actions.get(event.call_id))
        elif isinstance(event, RunFinished) and reason:
            event = dataclasses.replace(event, status="error", reason=reason,
                                        error_kind=ERROR_KIND)
        yield event
