"""Two copied chains aligned round by round: the first differing action, the gap of a
shorter chain, and a chat message that draws the first rounds and the one where they part."""

from __future__ import annotations

from agent.events import Action, Answer, Event, Observation, Origin, RunFinished, Thought
from bot.view.alignment import align
from bot.view.render import ALIGNED_ROUNDS, render_compare
from bot.view.transcript import Transcript


def chain(n: int, calls: list[str], answer: str) -> Transcript:
    """Run #n: one `calc` call a round with these arguments, then the answer."""
    events: list[Event] = [Origin(round=0, n=n, asker="Ann", when="2026-12-01 10:00",
                                  mode="ask")]
    for i, arg in enumerate(calls, 1):
        events += [Thought(round=i, text=f"round {i}"),
                   Action(round=i, call_id=f"c{i}", tool="calc", arguments={"x": arg}),
                   Observation(round=i, call_id=f"c{i}", tool="calc", text=arg, ok=True,
                               duration_ms=1)]
    events += [Answer(round=len(calls) + 1, text=answer),
               RunFinished(round=len(calls) + 1, status="done", rounds=len(calls) + 1)]
    return Transcript.from_events(events)


def test_the_first_differing_action_and_the_gap() -> None:
    left = chain(1, ["1", "2", "3"], "6")
    right = chain(2, ["1", "9"], "10")
    aligned = align(left, right)
    assert aligned.first == (1, 0)  # round 2: calc(x=2) against calc(x=9)
    # The answering rounds show nothing of their own: three rows, the third a gap on #2's side.
    assert [tuple(r is None for r in row) for row in aligned.rows] == [
        (False, False), (False, False), (False, True)]
    assert align(left, chain(3, ["1", "2", "3"], "6")).first is None


def test_a_long_pair_draws_its_first_rounds_and_the_one_where_they_part() -> None:
    same = [str(i) for i in range(20)]
    left = chain(1, same, "done")
    right = chain(2, [*same[:15], "x", *same[16:]], "done")
    [page] = render_compare(left, right, "en", live=False)
    assert f"— Round {ALIGNED_ROUNDS} —" in page and f"— Round {ALIGNED_ROUNDS + 1} —" not in page
    part = page[page.index("— Round 16 —"):]
    assert page.index("…") < page.index("— Round 16 —")
    assert "⚡ first differing action" in part and 'calc(x="x")' in part
    assert "7 more rounds are not shown here" in page  # 20 rounds: 12 and round 16 drawn
