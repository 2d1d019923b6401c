"""Two chains aligned round by round, and where they first chose differently.

Round 1 sits beside round 1; a side with fewer rounds has a gap (None) where the other
has one. A round's moves are its tool calls in order (tool and arguments, as the chain
shows them) or, with none, answering. The first differing action is the first move, in
the first round whose moves differ, that is not the same on both sides.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.prompts import args_text
from bot.view.transcript import RoundView, Transcript

ANSWERING = "answer"
"""A round without tool calls: the model answered (or stopped) there."""


@dataclass(frozen=True)
class Aligned:
    rows: tuple[tuple[RoundView | None, RoundView | None], ...]
    """Round by round: the left side's and the right side's (None: that side has no such
    round)."""
    first: tuple[int, int] | None
    """(row, move) of the first differing action; None when the chains moved alike."""

    def marked(self, row: int, move: int) -> bool:
        """Whether move `move` of row `row` (on either side) is the first differing action."""
        return self.first == (row, move)


def moves(rnd: RoundView | None) -> tuple[str, ...]:
    """A round's moves as the chain shows them; () for a round a side does not have."""
    if rnd is None:
        return ()
    calls = tuple(f"{s.tool}({args_text(s.arguments)})" for s in rnd.calls)
    return calls or (ANSWERING,)


def align(left: Transcript, right: Transcript) -> Aligned:
    shown = [r for r in left.rounds if r.shows], [r for r in right.rounds if r.shows]
    count = max(len(shown[0]), len(shown[1]))
    rows = tuple((shown[0][i] if i < len(shown[0]) else None,
                  shown[1][i] if i < len(shown[1]) else None) for i in range(count))
    for i, (a, b) in enumerate(rows):
        ours, theirs = moves(a), moves(b)
        if ours == theirs:
            continue
        at = next((j for j, (x, y) in enumerate(zip(ours, theirs, strict=False)) if x != y),
                  min(len(ours), len(theirs)))
        return Aligned(rows, (i, at))
    return Aligned(rows, None)
