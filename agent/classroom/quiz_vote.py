"""Quiz mode: before each round's model call, the class predicts what the model will do
(which tool it calls next, or that it answers directly), and the round starts once the
vote is closed.

The vote comes before the model is asked, so nothing the class sees (a streamed thought, a
proposed call) gives the answer away; the round's Action or Answer is the reveal. How the
class is asked is the front end's business (a Telegram poll in the group: bot/telegram).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from agent.classroom.quiz_choices import quiz_choices
from agent.events import Event, VoteClosed, VoteCount, VoteOpened

COUNT_EVERY_S = 1.0
"""While a vote is open, how often the number of voters so far is looked at (and told, when
it changed): the teacher sees the class voting and knows when to reveal."""
@dataclass(frozen=True, slots=True)
class Tally:
    """A closed vote: how many chose each choice, who revealed (empty: the time ran out);
    `sent` False when the class could not be asked at all."""

    counts: tuple[int, ...]
    by: str = ""
    sent: bool = True


class Poller(Protocol):
    async def vote(self, rnd: int, choices: tuple[str, ...]) -> Tally:
        """Ask the class which of `choices` the model takes in round `rnd`; return once the
        vote is closed (revealed, or out of time)."""

    def voters(self) -> int:
        """How many have voted so far in the vote open now."""


async def quiz_vote(poller: Poller, rnd: int, tools: Sequence[str]) -> AsyncIterator[Event]:
    """The round's vote as events: opened (the front end shows it), the number of voters as
    it grows, then closed. Stopping the run stops the vote (the poller closes its poll)."""
    choices = quiz_choices(tools)
    yield VoteOpened(round=rnd, choices=choices)
    asked = asyncio.ensure_future(poller.vote(rnd, choices))
    told = 0
    try:
        while not (await asyncio.wait({asked}, timeout=COUNT_EVERY_S))[0]:
            if (voters := poller.voters()) != told:
                told = voters
                yield VoteCount(round=rnd, voters=voters)
    finally:
        asked.cancel()  # a no-op once it is done
    tally = asked.result()
    counts = tuple(tally.counts[:len(choices)]) + (0,) * (len(choices) - len(tally.counts))
    yield VoteClosed(round=rnd, choices=choices, counts=counts, by=tally.by, sent=tally.sent)
