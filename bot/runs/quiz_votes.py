"""Quiz mode in a chat: the class votes (a poll in the group) before each round, and the
round starts when the asker or an admin reveals, or the time runs out.

An open vote counts each voter's latest choice by user id, as `poll_answer` updates arrive
(a retracted vote arrives with no options); only the counts are ever shown. A vote may
arrive before the bot has read sendPoll's reply (the poll's id): it is kept until then. The reveal
button carries the run's key and the vote's number, so a tap under an earlier round's
poll is stale rather than a reveal of this one.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass
class OpenVote:
    """One round's open vote (its poll in the group)."""

    number: int
    run_key: int
    chat_id: int
    asker_id: int
    asker_name: str
    size: int
    """How many choices the poll has."""
    poll_id: str = ""
    votes: dict[int, tuple[int, ...]] = field(default_factory=dict)
    revealed: asyncio.Future[str] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future())
    """Who revealed, once someone did."""

    @property
    def open(self) -> bool:
        return not self.revealed.done()

    def count(self, user_id: int, options: Sequence[int]) -> None:
        """A voter's choice (none: they took their vote back); options past the poll's are
        not the poll's and are dropped."""
        chosen = tuple(i for i in options if 0 <= i < self.size)
        if chosen:
            self.votes[user_id] = chosen
        else:
            self.votes.pop(user_id, None)

    def counts(self) -> tuple[int, ...]:
        return tuple(sum(i in chosen for chosen in self.votes.values())
                     for i in range(self.size))

    def reveal(self, by: str) -> bool:
        """Reveal, once; False if it was revealed (or closed) already."""
        if not self.open:
            return False
        self.revealed.set_result(by)
        return True


EARLY_POLLS = 256
"""Polls whose answers came before their open vote knew them, kept at most (the oldest go)."""


class OpenVotes:
    """The votes open now: by run (for the reveal button) and by poll (for the votes)."""

    def __init__(self) -> None:
        self._by_run: dict[int, OpenVote] = {}
        self._by_poll: dict[str, OpenVote] = {}
        self._early: OrderedDict[str, list[tuple[int, tuple[int, ...]]]] = OrderedDict()
        self._numbers = itertools.count(1)

    def next_number(self) -> int:
        return next(self._numbers)

    def of_run(self, run_key: int) -> OpenVote | None:
        return self._by_run.get(run_key)

    def of_poll(self, poll_id: str) -> OpenVote | None:
        return self._by_poll.get(poll_id)

    def add(self, vote: OpenVote) -> None:
        self._by_run[vote.run_key] = vote

    def answered(self, poll_id: str, user_id: int, options: Sequence[int]) -> None:
        """A vote (`poll_answer`): counted if its poll's vote is open, kept if its poll may be one
        just sent, whose id the bot is still reading."""
        vote = self._by_poll.get(poll_id)
        if vote is not None:
            if vote.open:
                vote.count(user_id, options)
            return
        self._early.setdefault(poll_id, []).append((user_id, tuple(options)))
        while len(self._early) > EARLY_POLLS:
            self._early.popitem(last=False)

    def polled(self, vote: OpenVote, poll_id: str) -> None:
        """The open vote's poll is in the chat as `poll_id`: its votes are counted now (those
        that came first too)."""
        vote.poll_id = poll_id
        self._by_poll[poll_id] = vote
        for user_id, options in self._early.pop(poll_id, ()):
            vote.count(user_id, options)

    def remove(self, vote: OpenVote) -> None:
        if self._by_run.get(vote.run_key) is vote:
            del self._by_run[vote.run_key]
        self._by_poll.pop(vote.poll_id, None)
