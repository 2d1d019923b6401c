"""Text with long runs of nothing (spaces, blank lines, blank markup) in an answer, a thought
or an observation, and a page Telegram refuses for a reason it never gave before. Telegram
refuses a message with nothing visible ("message text is empty"); the bot never sends one,
and a refused page never swallows the rest of the run."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from agent.tool import Tool
from testkit.botkit import ALICE, Add, Glassbox
from testkit.fakes.model import DashScope, sse, tool_reply
from tests.faults.kit import glassbox, runs_of, still_answers
from tests.faults.test_telegram import api_error

GAP_SPACES, GAP_LINES = " " * 10_000, "\n" * 5_000


class PadArgs(BaseModel):
    gap: str


class Pad(Tool):
    """A tool whose observation is "top", a long gap, then "bottom"."""

    name = "pad"
    description = "Return two words far apart."
    Args = PadArgs

    async def run(self, args: Any) -> str:
        return "top" + (GAP_SPACES if args.gap == "spaces" else GAP_LINES) + "bottom"


CASES = {
    "answer 10,000 spaces": (tool_reply(("add", {"a": 2, "b": 2})),
                             f"The sum is{GAP_SPACES}four. THE END"),
    "answer 5,000 newlines": (tool_reply(("add", {"a": 2, "b": 2})),
                              f"The sum is{GAP_LINES}four. THE END"),
    "answer 6,000 blank code spans": (tool_reply(("add", {"a": 2, "b": 2})),
                                      "The sum is " + "` ` " * 6000 + "four. THE END"),
    "thought 5,000 newlines": (tool_reply(("add", {"a": 2, "b": 2}),
                                          content=f"I will add{GAP_LINES}the two numbers."),
                               "four. THE END"),
    "thought 10,000 spaces": (tool_reply(("add", {"a": 2, "b": 2}),
                                         content=f"I will add{GAP_SPACES}the two numbers."),
                              "four. THE END"),
    "observation 10,000 spaces": (tool_reply(("pad", {"gap": "spaces"})), "four. THE END"),
    "observation 5,000 newlines": (tool_reply(("pad", {"gap": "lines"})), "four. THE END"),
}


@pytest.mark.usefixtures("no_crash")  # no page refused
@pytest.mark.parametrize("case", CASES)
async def test_a_long_run_of_nothing_never_makes_an_empty_page(tmp_path: Path,
                                                               case: str) -> None:
    first, answer = CASES[case]
    async with glassbox(tmp_path, tools=(Add(), Pad()), max_observation_chars=20_000) as gb:
        gb.model.push(first, sse(DashScope().text(answer), first_delay=0.2))
        asked = gb.tg.send(ALICE, ALICE, "What is 2+2?")
        await gb.answer_to(ALICE, asked, timeout=15)
        pages = gb.tg.bot_messages(ALICE)  # page 1 replies to the question, the others to it
        assert all(version.strip() for m in pages for version in m.versions)
        shown = "\n".join(m.text for m in pages)
        assert "Round 1" in shown and "Observation ✅" in shown
        assert 0 < shown.index("four. THE END") < shown.index("⏱")  # the end, then the footer
        assert ("top" in shown and "bottom" in shown) if "observation" in case else True
        assert ("the two numbers." in shown) if "thought" in case else True
        assert all(not m.buttons for m in pages)
        [run] = await runs_of(gb, ALICE)
        assert run.status == "done" and run.message_ids == tuple(m.message_id for m in pages)
        await still_answers(gb)


REFUSAL = api_error(400, "Bad Request: something Telegram never said before")


async def test_an_unexpected_400_on_the_first_send_does_not_stop_the_run(
        gb: Glassbox, caplog: pytest.LogCaptureFixture) -> None:
    """The refused page is tried again with the next state; the run goes on to its end."""
    caplog.set_level(logging.ERROR, logger="bot.telegram.delivery.live_message")
    gb.model.push(tool_reply(("add", {"a": 2, "b": 2})),
                  sse(DashScope().text("2 + 2 = 4"), first_delay=0.3))
    gb.tg.fail("sendMessage", REFUSAL)
    asked = gb.tg.send(ALICE, ALICE, "What is 2+2?")
    final = await gb.answer_to(ALICE, asked)
    assert "Round 1" in final.text and "2 + 2 = 4" in final.text and "⏱" in final.text
    assert len(gb.tg.bot_messages(ALICE)) == 1
    assert "never said before" in caplog.text
    [run] = await runs_of(gb, ALICE)
    assert run.status == "done" and run.message_ids == (final.message_id,)
    await still_answers(gb)


async def test_an_unexpected_400_on_page_two_does_not_swallow_it(gb: Glassbox) -> None:
    """Page 2's first send is refused; it lands with a later state, after page 1."""
    words = " ".join(f"w{i}" for i in range(1500)) + " THE END"
    gb.model.push(sse(DashScope().text(words, pieces=30), delay=0.03))
    asked = gb.tg.send(ALICE, ALICE, "Say many words")
    await gb.tg.wait(lambda: bool(gb.replies_to(ALICE, asked)))
    gb.tg.fail("sendMessage", REFUSAL)
    await gb.tg.wait(lambda: not gb.running(ALICE) and all(
        not m.buttons for m in gb.replies_to(ALICE, asked)), timeout=15)
    pages = gb.tg.bot_messages(ALICE)
    assert len(pages) == 2 and pages[1].reply_to == pages[0].message_id
    shown = " ".join(m.text for m in pages).split()
    assert set(words.split()) <= set(shown)  # every word, in order, the end on page 2
    assert shown.index("w0") < shown.index("w1499") < shown.index("THE")
    assert "THE END" in pages[1].text
    assert any(c.error and "never said before" in c.error for c in gb.tg.calls)
    [run] = await runs_of(gb, ALICE)
    assert run.status == "done" and len(run.message_ids) == 2
    await still_answers(gb)
