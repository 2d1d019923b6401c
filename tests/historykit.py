"""Helpers for the /history, /show, /export and /forget tests: stored runs, and what a user
sees after a command or a tap."""

from __future__ import annotations

from collections.abc import Sequence

from agent.events import Answer, Event, RunFinished, RunStarted, Usage
from bot.store.records import Conversation, RunRecord, telegram_chat
from bot.store.transcripts import Store
from testkit.botkit import Glassbox
from testkit.fakes.telegram import Message

OTHER_GROUP, DANA = -1009876543210, 444
"""A second class, and a real administrator of the first one (not in ADMIN_USER_IDS)."""


async def seed(store: Store, chat: int | Conversation, user_id: int | None, name: str,
               question: str, answer: str = "", steps: Sequence[Event] = ()) -> RunRecord:
    """A finished run as the bot stores one: started, its steps, the answer, the end; in a
    Telegram chat (its id) or another conversation."""
    chat = telegram_chat(chat) if isinstance(chat, int) else chat
    run = await store.start_run(chat_id=chat.id, kind=chat.kind, user_id=user_id,
                                user_name=name, mode="ask", question=question, model="qwen-plus")
    events: list[Event] = [RunStarted(round=0, mode="react", question=question,
                                      model="qwen-plus"), *steps]
    if answer:
        events.append(Answer(round=len(steps) + 1, text=answer))
    events.append(RunFinished(round=1, status="done", usage=Usage(10, 5, 15), duration_ms=1200,
                              rounds=1))
    for event in events:
        await store.append(run.id, event)
    await store.finish(run.id, status="done", usage=Usage(10, 5, 15), duration_ms=1200,
                       answer=answer)
    return run


async def reply(gb: Glassbox, chat_id: int, user_id: int, text: str,
                timeout: float = 10.0) -> Message:
    """A user sends `text`; the bot's (first) message in reply to it, within `timeout` s."""
    sent = gb.tg.send(chat_id, user_id, text)
    await gb.tg.wait(lambda: bool(gb.replies_to(chat_id, sent)), timeout)
    return gb.replies_to(chat_id, sent)[0]


async def replies(gb: Glassbox, chat_id: int, user_id: int, text: str,
                  count: int) -> list[Message]:
    """A user sends `text`; the bot's first message in reply and the `count - 1` pages that
    continue it, in order."""
    first = await reply(gb, chat_id, user_id, text)
    await gb.tg.wait(lambda: len(gb.replies_to(chat_id, first.message_id)) >= count - 1)
    return [first, *gb.replies_to(chat_id, first.message_id)]


async def tap(gb: Glassbox, chat_id: int, user_id: int, message: Message, data: str) -> str:
    """A user taps a button with `data` (forged or real); the popup text they get ('' if none)."""
    query_id = gb.tg.tap(chat_id, user_id, message.message_id, data)

    def answers() -> list[str]:
        with gb.tg.lock:
            return [c.params.get("text", "") for c in gb.tg.calls
                    if c.method == "answerCallbackQuery"
                    and c.params["callback_query_id"] == query_id]
    await gb.tg.wait(lambda: bool(answers()))
    return answers()[0]
