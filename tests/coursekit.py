"""A known course, seeded into a real store through its own writes (runs, their steps as the
loop yields them, their ends), so a test can check every figure against what it put in.

Two lectures in Asia/Shanghai: 2026-09-01 (6 runs) and 2026-09-03 (5 runs; its first run
starts at 07:30 local time, still 2026-09-02 in UTC); beside them runs that must not count:
a private chat's, one before the period, one forgotten. The expected figures are `EXPECTED`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from agent.events import (
    Action,
    Answer,
    Decided,
    Event,
    Observation,
    ObservationFailure,
    Proposed,
    RunFinished,
    RunStarted,
    Usage,
    VoteClosed,
    VoteOpened,
)
from bot.course.period import Period
from bot.course.service import Course
from bot.store.kinds import RefusalReason
from bot.store.records import Scope, telegram_chat
from bot.store.transcripts import Store

GROUP = -1001234
ZONE = "Asia/Shanghai"
ALICE, BOB, CAROL, TEACHER = 11, 12, 13, 19
NAMES = {ALICE: "Alice", BOB: "Bob", CAROL: "Carol", TEACHER: "Teacher"}
PERIOD = Period(datetime(2026, 9, 1).date(), datetime(2026, 9, 7).date(), ZONE)
ANSWER = ":answer"


def _call(rnd: int, tool: str, ok: bool = True, failure: ObservationFailure | None = None,
          text: str = "result 42") -> list[Event]:
    cid = f"c{rnd}{tool}"
    return [Action(round=rnd, call_id=cid, tool=tool, arguments={"q": "x"}),
            Observation(round=rnd, call_id=cid, tool=tool, text=text if ok else "it failed",
                        ok=ok, duration_ms=5, failure=None if ok else failure)]


def _react(question: str, body: list[Event], answer: str, rounds: int,
           status: str = "done", error_kind: str = "") -> list[Event]:
    end: list[Event] = [] if status != "done" else [Answer(round=rounds, text=answer)]
    return [RunStarted(round=0, mode="react", question=question, model="m"), *body, *end,
            RunFinished(round=rounds, status=status, rounds=rounds,  # type: ignore[arg-type]
                        error_kind=error_kind)]


def _plain(question: str, answer: str) -> list[Event]:
    return [RunStarted(round=0, mode="plain", question=question, model="m"),
            Answer(round=1, text=answer), RunFinished(round=1, status="done", rounds=1)]


def _vote(rnd: int, choices: tuple[str, ...], counts: tuple[int, ...]) -> list[Event]:
    return [VoteOpened(round=rnd, choices=choices),
            VoteClosed(round=rnd, choices=choices, counts=counts, by="Teacher")]


@dataclass(frozen=True)
class Seed:
    chat: int
    user: int
    mode: str
    question: str
    lanes: dict[str, list[Event]]
    at: str
    """Its start, UTC."""
    status: str = "done"


D1, D2 = "2026-09-01T02:00:00", "2026-09-02T23:30:00"  # 10:00 and (next day) 07:30 local
COURSE = (
    # lecture 1
    Seed(GROUP, ALICE, "ask", "Weather in Hangzhou?",
         {"main": _react("q", _call(1, "get_weather"), "18°C", 2)}, D1),
    Seed(GROUP, BOB, "ask", "What is 17% of 2480?",
         {"main": _react("q", [*_call(1, "calculate", False, ObservationFailure.TOOL_ERROR),
                               *_call(2, "calculate")], "421.6", 3)}, D1),
    Seed(GROUP, ALICE, "plain", "Who proposed the Turing test?",
         {"main": _plain("q", "Alan Turing")}, D1),
    Seed(GROUP, TEACHER, "compare", "What is 6 times 7?",
         {"plain": _plain("q", "The result is 44."),
          "react": _react("q", _call(1, "calculate"), "The result is 42.", 2)}, D1),
    Seed(GROUP, TEACHER, "ask", "How much is 3840 plus 5%?",
         {"main": _react("q", [*_vote(1, ("calculate", ANSWER), (3, 1)),
                               *_call(1, "calculate"),
                               *_vote(2, ("calculate", ANSWER), (3, 1))], "4032", 2)}, D1),
    Seed(GROUP, BOB, "ask", "A question the model timed out on",
         {"main": _react("q", [], "", 1, "error", "timeout")}, D1, "error"),
    # lecture 2
    Seed(GROUP, TEACHER, "compare", "How warm is Paris?",
         {"plain": _plain("q", "Paris is 12°C."),
          "react": _react("q", _call(1, "get_weather"), "Paris is 12°C.", 2)}, D2),
    Seed(GROUP, ALICE, "ask", "What time is it in London?",
         {"main": _react("q", [Proposed(round=1, call_id="c1get_time", tool="get_time"),
                               Decided(round=1, call_id="c1get_time", tool="get_time",
                                       decision="run", by="Alice"),
                               *_call(1, "get_time")], "08:00", 2)}, D2),
    Seed(GROUP, TEACHER, "ask", "Hours between Beijing and London?",
         {"main": _react("q", [*_vote(1, ("get_time", ANSWER), (1, 3)),
                               *_call(1, "get_time"),
                               *_vote(2, ("get_time", ANSWER), (0, 4))], "8 hours", 2)}, D2),
    Seed(GROUP, CAROL, "ask", "A question stopped by its asker",
         {"main": _react("q", [], "", 1, "cancelled")}, D2, "cancelled"),
    Seed(GROUP, ALICE, "ask", "Weather on Mars?",
         {"main": _react("q", _call(1, "get_weather", False, ObservationFailure.UPSTREAM_ERROR),
                         "", 6, "max_rounds")}, D2, "max_rounds"),
    # not counted: a private chat's run, one before the period
    Seed(ALICE, ALICE, "ask", "A private question",
         {"main": _react("q", _call(1, "search_notes"), "x", 2)}, D1),
    Seed(GROUP, BOB, "ask", "Before the course",
         {"main": _react("q", _call(1, "calculate"), "x", 2)}, "2026-08-15T02:00:00"),
)
FORGOTTEN = Seed(GROUP, BOB, "compare", "Forgotten compare",
                 {"plain": _plain("q", "1"), "react": _react("q", _call(1, "calculate"), "2", 2)},
                 D1)

EXPECTED = {
    "from": "2026-09-01", "to": "2026-09-07", "timeZone": ZONE,
    "runs": 11, "askers": 4, "tokens": sum(100 * n for n in range(1, 12)),
    "modes": {"ask": 5, "plain": 1, "compare": 2, "quiz": 2, "step": 1},
    "days": [
        {"day": "2026-09-01", "runs": 6,
         "modes": {"ask": 3, "plain": 1, "compare": 1, "quiz": 1, "step": 0},
         "tokens": 2100, "quizRounds": 2, "quizRight": 1},
        {"day": "2026-09-03", "runs": 5,
         "modes": {"ask": 2, "plain": 0, "compare": 1, "quiz": 1, "step": 1},
         "tokens": 4500, "quizRounds": 2, "quizRight": 1},
    ],
    "tools": [{"tool": "calculate", "calls": 4, "failed": 1},
              {"tool": "get_weather", "calls": 3, "failed": 1},
              {"tool": "get_time", "calls": 2, "failed": 0}],
    "endings": {"done": 8, "outOfRounds": 1, "failed": {"timeout": 1}, "stopped": 1,
                "interrupted": 0, "running": 0, "refusedRate": 2, "refusedBudget": 1},
    "compare": {"compared": 2, "differed": 1,
                "differing": [{"n": 4, "question": "What is 6 times 7?"}]},
    "quiz": {"rounds": 4, "topPickRight": 2, "missed": [
        {"n": 9, "question": "Hours between Beijing and London?", "round": 1,
         "rightVotes": 1, "voters": 4},
        {"n": 5, "question": "How much is 3840 plus 5%?", "round": 2,
         "rightVotes": 1, "voters": 4},
        {"n": 5, "question": "How much is 3840 plus 5%?", "round": 1,
         "rightVotes": 3, "voters": 4},
        {"n": 9, "question": "Hours between Beijing and London?", "round": 2,
         "rightVotes": 4, "voters": 4}]},
}
"""What the figures of GROUP over PERIOD must say (budget aside)."""
ALICE_RUNS = {"runs": 4, "askers": 1,
              "tools": [{"tool": "get_weather", "calls": 2, "failed": 1},
                        {"tool": "get_time", "calls": 1, "failed": 0}]}
"""What Alice alone sees of them."""


async def seed_course(store: Store, *, keep_facts: bool = True) -> None:
    """COURSE and FORGOTTEN, stored as runs of their own, their facts made from their steps
    (`keep_facts`; else left to make, as a run ended before Glassbox kept them); FORGOTTEN
    is then forgotten. Run n of the group is COURSE's n-th (the forgotten one after)."""
    for i, seed in enumerate((*COURSE, FORGOTTEN), start=1):
        record = await store.start_run(chat_id=seed.chat, user_id=seed.user,
                                       user_name=NAMES[seed.user], mode=seed.mode,
                                       question=seed.question, model="m")
        await store.append_steps(record.id, [(lane, e) for lane, events in seed.lanes.items()
                                             for e in events])
        await store.finish(record.id, status=seed.status, usage=Usage(0, 0, 100 * i),
                           duration_ms=1000 * i, answer="")
        await store.db.execute("UPDATE runs SET started_at = ? WHERE id = ?",
                               (datetime.fromisoformat(seed.at + "+00:00").astimezone(UTC)
                                .isoformat(timespec="milliseconds"), record.id))
    group = telegram_chat(GROUP)
    if keep_facts:
        await Course(store, None).fill()  # the forgotten run's too
    assert await store.forget(Scope.of(group), len([s for s in COURSE if s.chat == GROUP]) + 1)
    at = datetime(2026, 9, 1, 3, 10, tzinfo=UTC)
    for reason in (RefusalReason.RATE, RefusalReason.RATE, RefusalReason.BUDGET):
        await store.course.refused(group, BOB, reason, at)
    await store.course.refused(telegram_chat(ALICE), ALICE, RefusalReason.RATE, at)
