"""Walkthrough's gate in a chat: the run's live message shows the proposed action and the
buttons (bot/runs/pauses.py keeps the pauses; bot/telegram/handlers/pause_taps.py takes
the taps)."""

from __future__ import annotations

import asyncio

from agent.classroom.confirm import Decision, Gate
from agent.classroom.quiz_vote import Poller
from agent.events import Proposed
from agent.tool import Tool
from bot.runs.active import Active
from bot.runs.pauses import Pause, Pauses
from bot.telegram.delivery.live_message import LiveMessage
from bot.view.i18n import phrase
from bot.view.pause_view import pause_buttons


class ChatConfirmer:
    """Asks in the chat: the run's live message shows the proposal and the buttons."""

    def __init__(self, pauses: Pauses, active: Active, asker_name: str, live: LiveMessage,
                 timeout_s: float) -> None:
        self.pauses, self.active, self.asker_name = pauses, active, asker_name
        self.live, self.timeout_s = live, timeout_s

    async def decide(self, proposed: Proposed, tool: Tool | None) -> Decision:
        active = self.active
        pause = Pause(self.pauses.next_number(), active.key, active.conversation.id, active.user_id,
                      self.asker_name, active.run_lang, proposed, tool)
        self.pauses.add(pause)
        running = self.live.button
        self.live.set_button(pause_buttons(active.run_lang, active.key, pause.number))
        try:
            async with active.away():
                return await asyncio.wait_for(pause.decision, self.timeout_s)
        except TimeoutError:
            return Decision("stop", reason=phrase(active.run_lang, "pause_timeout_reason",
                                                  s=f"{self.timeout_s:g}"))
        finally:
            self.pauses.remove(pause)
            self.live.set_button(running)


def chat_gate(pauses: Pauses, active: Active, asker_name: str, live: LiveMessage, *,
              every: bool, tools: frozenset[str], timeout_s: float,
              poller: Poller | None = None) -> Gate | None:
    """The run's gate: every call pauses in walkthrough mode, the AGENT_CONFIRM_TOOLS always, and in
    quiz mode `poller` asks the class before each round; None when nothing would pause."""
    if not every and not tools and poller is None:
        return None
    confirmer = ChatConfirmer(pauses, active, asker_name, live, timeout_s) if (
        every or tools) else None
    return Gate(confirmer, every, tools, poller)
