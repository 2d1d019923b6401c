"""/history as a weapon: a search of a thousand one-letter words, a sender who lists again
and again, and a handler that fails for a reason of its own. Each gets one polite line."""

from __future__ import annotations

import time
from pathlib import Path

from agent.events import Usage
from bot.store.records import Scope
from bot.store.transcripts import MAX_SEARCH_WORDS
from testkit.botkit import ALICE, BOB, GROUP, SCALE, Glassbox
from testkit.dbkit import execute
from tests.faults.kit import glassbox, still_answers

COOLDOWN_S = 30 * SCALE
"""The bot's notice cooldown on the tests' clock (Limits.notice_cooldown_s, scaled)."""
WORDS = "".join(chr(0x4E00 + n) for n in range(1100))
"""1,100 different one-character words: 2,200 characters with the spaces, one message."""


async def stored(gb: Glassbox, question: str, answer: str) -> None:
    store = gb.services.store
    record = await store.start_run(chat_id=GROUP, user_id=ALICE, user_name="Alice", mode="ask",
                                   question=question, model="m", parent_id=None)
    await store.finish(record.id, status="done", usage=Usage(), duration_ms=10, answer=answer)


async def test_a_thousand_one_letter_words_search_the_first_twelve(gb: Glassbox) -> None:
    await stored(gb, "字 " + " ".join(WORDS[:MAX_SEARCH_WORDS]), "found me")
    await stored(gb, "other", " ".join(WORDS[:MAX_SEARCH_WORDS - 1]))
    asked = gb.tg.send(GROUP, ALICE, "/history " + " ".join(WORDS))
    await gb.tg.wait(lambda: bool(gb.replies_to(GROUP, asked)))
    [reply] = [m.text for m in gb.replies_to(GROUP, asked)]  # a list, with a button per run
    assert "1 found" in reply
    assert reply.endswith(f"(Only the first {MAX_SEARCH_WORDS} words were searched.)")
    await still_answers(gb, GROUP)


async def test_listing_the_history_again_and_again_is_rate_limited(tmp_path: Path) -> None:
    async with glassbox(tmp_path, history_rate_limit="3/1m") as gb:
        began = time.monotonic()
        asked = [gb.tg.send(GROUP, ALICE, f"/history x{n}") for n in range(8)]
        await gb.tg.wait(lambda: len([m for m in gb.tg.bot_messages(GROUP)
                                      if m.reply_to in asked]) >= 4)
        spent = time.monotonic() - began
        replies = [m.text for m in gb.tg.bot_messages(GROUP) if m.reply_to in asked]
        lists = [r for r in replies if r.startswith("No question or answer contains")]
        limited = [r for r in replies if r.startswith("You have looked through the history")]
        assert len(lists) == 3
        assert limited[0].endswith("Please try again in 1 min.")
        assert 1 <= len(limited) <= 1 + spent / COOLDOWN_S
        other = gb.tg.send(GROUP, BOB, "/history")  # someone else is not limited
        assert (await gb.answer_to(GROUP, other)).text.startswith("这里还没有记录")
        await still_answers(gb, GROUP)


async def test_a_handler_that_fails_answers_with_one_polite_line(gb: Glassbox,
                                                                tmp_path: Path) -> None:
    """The search index is gone (a damaged database): /history fails inside the handler.
    The sender gets one line in their language, never a trace."""
    await execute(tmp_path / "g.sqlite3", "DROP TABLE runs_fts")
    asked = gb.tg.send(GROUP, ALICE, "/history weather")
    assert (await gb.answer_to(GROUP, asked)).text == (
        "Sorry, something went wrong with that message. Please try again later.")
    asked = gb.tg.send(GROUP, BOB, "/history 杭州天气")
    assert (await gb.answer_to(GROUP, asked)).text.startswith("抱歉，出了点问题")
    assert len(gb.tg.bot_messages(GROUP)) == 2


async def test_comparing_stored_runs_again_and_again_is_rate_limited(tmp_path: Path) -> None:
    """Each /compare N M is stored: a sender who keeps asking gets the history's limit."""
    async with glassbox(tmp_path, history_rate_limit="2/1m") as gb:
        await stored(gb, "what is 2+2?", "4")
        await stored(gb, "what is 2+2?", "four")
        asked = [gb.tg.send(GROUP, ALICE, "/compare 1 2") for _ in range(5)]
        await gb.tg.wait(lambda: len([m for m in gb.tg.bot_messages(GROUP)
                                      if m.reply_to in asked]) >= 3)
        replies = [m.text for m in gb.tg.bot_messages(GROUP) if m.reply_to in asked]
        assert sum("#1 · Alice · " in r for r in replies) == 2
        assert any(r.startswith("You have looked through the history") for r in replies)
        page = await gb.services.store.history(Scope(GROUP))
        assert page.total == 4  # the two runs and two comparisons, no more
        await still_answers(gb, GROUP)
