"""Long histories summarised rather than cut: when a thread's earlier turns outgrow
HISTORY_MAX_CHARS, the older ones are summarised by one short model call, and the model sees
that summary, marked as such, before the turns that still fit (agent.prompts.history_messages).
"""

from __future__ import annotations

from collections.abc import Sequence

from agent.events import Usage
from agent.model.model_client import ModelClient, complete
from agent.prompts import Turn, history_messages
from agent.words import say

SUMMARY_WORDS = 150
INPUT_CHARS = 20000
"""The text a summary call reads is cut to its last this many characters."""


def split_history(history: Sequence[Turn], max_chars: int) -> tuple[list[Turn], list[Turn]]:
    """(older, recent): the turns `history_messages` keeps in `max_chars` (the newest
    that fit), and those before them, which it would drop. Its cut, not a copy of it, so a
    summary covers exactly the turns the model would not see. `history` holds no summary."""
    kept = len(history_messages(history, max_chars)) // 2  # a question and an answer each
    cut = len(history) - kept
    return list(history[:cut]), list(history[cut:])


async def summarise(client: ModelClient, turns: Sequence[Turn], earlier: str,
                    lang: str) -> tuple[str, Usage]:
    """A short summary of `turns` (after an `earlier` summary, if any); its tokens.
    Raises ModelError as any model call does."""
    lines = [say(lang, "summary_earlier", summary=earlier)] if earlier else []
    for turn in turns:
        lines.append(say(lang, "summary_turn", question=turn.question, answer=turn.answer))
    text = "\n\n".join(lines)[-INPUT_CHARS:]
    ask = say(lang, "summary_ask", words=SUMMARY_WORDS)
    done = await complete(client, [{"role": "user", "content": f"{ask}\n\n{text}"}],
                          temperature=0.0)
    assert done is not None  # a stream ends with its Completion
    return done.content.strip(), done.usage
