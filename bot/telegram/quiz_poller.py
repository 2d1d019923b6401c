"""Quiz mode's vote in a chat: before each round a poll in the group ("Which tool will the
model call next?") right under the run's message, which shows 👁 Reveal; the poll closed
(stopPoll) when the asker or an admin reveals or the time runs out, its counts read, and
then taken out of the chat: the run's message shows the counts beside what the model did, so
the chat reads question, run, answer, not a pile of closed polls above an answer scrolled
out of sight (bot/runs/quiz_votes.py keeps the open votes; bot/telegram/handlers/quiz.py
takes the taps and the votes)."""

from __future__ import annotations

import asyncio
import contextlib

from agent.classroom.quiz_vote import Tally
from bot.runs.active import Active
from bot.runs.quiz_votes import OpenVote, OpenVotes
from bot.telegram.delivery.live_message import LiveMessage
from bot.telegram.delivery.outbox import Outbox
from bot.telegram.delivery.quiz_polls import SentPoll, delete_poll, send_poll, stop_poll
from bot.view.buttons import Button, Keyboard
from bot.view.i18n import phrase, text
from bot.view.quiz_view import poll_words

FIRST_WAIT_S = 5.0
"""How long the first poll waits for the run's own message to be in the chat (a group busy
with a class's questions may hold it back)."""
_closing: set[asyncio.Task[object]] = set()
"""Polls being closed after their run stopped mid-vote (kept until done)."""


def reveal_buttons(lang: str, key: int, number: int) -> Keyboard:
    """👁 Reveal (`quiz:<run>:<vote>`, so a tap on an earlier round's is stale) and ⏹."""
    return ((Button(phrase(lang, "quiz_button_reveal"), f"quiz:{key}:{number}"),
             Button(text(lang, "stop_button"), f"stop:{key}")),)


class ChatPoller:
    """Asks the class in the run's chat: a poll replying to the question, closed at the
    reveal."""

    def __init__(self, votes: OpenVotes, active: Active, asker_name: str, question: str,
                 live: LiveMessage, outbox: Outbox, reply_to: int, timeout_s: float) -> None:
        self.votes, self.active, self.asker_name = votes, active, asker_name
        self.question, self.live, self.outbox = question, live, outbox
        self.reply_to, self.timeout_s = reply_to, timeout_s
        self._open: OpenVote | None = None

    def voters(self) -> int:
        return 0 if self._open is None else len(self._open.votes)

    async def vote(self, rnd: int, choices: tuple[str, ...]) -> Tally:
        active, outbox = self.active, self.outbox
        words, options = poll_words(rnd, self.question, choices, active.run_lang)
        vote = OpenVote(self.votes.next_number(), active.key, active.conversation.id,
                        active.user_id, self.asker_name, len(choices))
        self.votes.add(vote)
        self._open = vote
        running = self.live.button
        self.live.set_button(reveal_buttons(active.run_lang, active.key, vote.number))
        sending: asyncio.Future[SentPoll | None] | None = None
        try:
            sending = asyncio.ensure_future(send_poll(
                outbox.bot, outbox.pacer, active.conversation.id, await self._under(), words,
                options))
            # Shielded: a run stopped while its poll is on the way has the poll closed once
            # Telegram says which it is, instead of leaving it open in the chat.
            sent = await asyncio.shield(sending)
            if sent is None:
                return Tally((), sent=False)
            self.votes.polled(vote, sent.poll_id)
            async with active.away():
                by = await self._revealed(vote)
        except asyncio.CancelledError:  # the run stopped mid-vote: the poll closes anyway
            if sending is not None:
                self._close_later(sending)
            raise
        finally:
            self.votes.remove(vote)
            self._open = None
            self.live.set_button(running)
        final = await _closed(outbox, active.conversation.id, sent)
        counts = final if final is not None and len(final) == len(choices) else vote.counts()
        return Tally(counts, by)

    async def _under(self) -> int:
        """What the poll replies to: the run's message (so the poll comes right under it, its
        👁 Reveal above), or the question while that message is not in the chat yet."""
        with contextlib.suppress(TimeoutError):
            first = await asyncio.wait_for(self.live.first_sent(), FIRST_WAIT_S)
            if first is not None:
                return first
        return self.reply_to

    async def _revealed(self, vote: OpenVote) -> str:
        """Who revealed; empty when the time ran out (the vote is closed either way)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(vote.revealed), self.timeout_s)
        vote.reveal("")
        return vote.revealed.result()

    def _close_later(self, sending: asyncio.Future[SentPoll | None]) -> None:
        task = asyncio.ensure_future(
            _closed_once_sent(self.outbox, self.active.conversation.id, sending))
        _closing.add(task)
        task.add_done_callback(_closing.discard)


async def _closed_once_sent(outbox: Outbox, chat_id: int,
                            sending: asyncio.Future[SentPoll | None]) -> None:
    """The poll being sent closed and taken out once Telegram has it (if it took it)."""
    sent = await sending
    if sent is not None:
        await _closed(outbox, chat_id, sent)


async def _closed(outbox: Outbox, chat_id: int, sent: SentPoll) -> tuple[int, ...] | None:
    """Stop the poll and take it out of the chat; its final counts (None: not stopped)."""
    counts = await stop_poll(outbox.bot, outbox.pacer, chat_id, sent.message_id)
    await delete_poll(outbox.bot, outbox.pacer, chat_id, sent.message_id)
    return counts
