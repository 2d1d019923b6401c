"""Text built to make a parser backtrack: long runs of spaces, tabs, `|`, `*`, `_`, backticks,
`[`, `(`, nested brackets, half-written styles and labels, behind prefixes that pick each
block rule (`| `, `> `, `- `, `# `, a fence). The model writes it (or is asked to echo it), and
every step that reads it runs on the event loop, again at every edit of the live message:
each must be linear. Checked with a time bound per 200,000 characters, and by scaling: eight
times the text must take about eight times as long (a quadratic step takes sixty-four). The
pages and the fold of a streamed answer are also timed alone: inside a whole render, a
quadratic step cheap per character hides behind the linear ones until the text is huge (a
render of 228,000 → 912,000 characters of this text took 2.9× as long, yet 3.6 million took
18.6 s, 12 s of it cutting pages)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from agent.events import (
    Action,
    Answer,
    AnswerDelta,
    Event,
    Observation,
    ObservationFailure,
)
from agent.grounding.backing import ledger
from agent.protocols.echoed_errors import no_errors_as_answers
from agent.protocols.embedded_calls import computes_in_code, extract_calls
from agent.protocols.text_protocol import (
    answer_start,
    arguments_for,
    clean_input,
    cut_observation,
    parse_reply,
)
from agent.tools.calculator import Calculate
from agent.tools.notes_index import split_passages
from agent.tools.percent import percent_syntax
from bot.view.markdown import md_spans
from bot.view.render import render_run
from bot.view.spans import QUOTE_EXPANDABLE, paginate
from bot.view.textlen import utf16_len
from bot.view.transcript import Transcript
from testkit.botkit import ALICE, BOB, Glassbox
from testkit.fakes.model import DashScope, Reply, sse, text_reply
from testkit.fakes.telegram_html import parse_html
from testkit.hostile_text import hostile, render_live, transcript
from tests.faults.kit import still_answers

pytestmark = pytest.mark.usefixtures("no_crash")

N = 200_000
BOUND_S = 4.0
"""Per 200,000 characters, the least of three timings of a text that took longer once.
Measured at most 0.85 s on a quiet machine (`*_` repeated, 66,000 tiny styled spans in each
of the thought and the answer), 1.6 s at a load of 6 on 2 cores; most under 0.1 s. A
quadratic step takes minutes: before the fix 20,000 characters took over 5 s."""
SMALL, LARGE = 1_000, 8_000
"""hostile(SMALL) joined is about 114,000 characters, hostile(LARGE) eight times that."""
SCALING = 20.0
"""Time at 8n over time at n: 8 when linear (measured 6–13 with the caches), 64 when
quadratic; the bound lies between them with room either side for a loaded machine."""

def fresh_md(text: str) -> None:
    md_spans.cache_clear()
    md_spans(text)


def render_final(text: str) -> None:
    md_spans.cache_clear()
    render_run(transcript(text), "en", live=False)


def parse(text: str) -> None:
    parse_reply(text)
    cut_observation(text)
    answer_start(text)
    arguments_for(text, None)
    arguments_for("a=" + text, None)
    arguments_for("expression: " + text, Calculate())
    clean_input("```" + text)


def calls(text: str) -> None:
    extract_calls(text, {"add"})
    extract_calls("<tool_call>" + text, {"add"})
    extract_calls('{"name": "add", "arguments": ' + text, {"add"})
    computes_in_code("```" + text, "12 × 34 = " + text)


def notes(text: str) -> None:
    split_passages("# " + text)


def grounding(text: str) -> None:
    """The figure ledger of an answer that is `text`, over an observation and a question
    that are `text` too."""
    ledger(text, [text], text)


def pages(text: str) -> None:
    """A huge thought's pages, not all ASCII (so measured in UTF-16 units). Eight copies of
    `text`: a page costs so little per character that a quadratic way of cutting them (each
    cut re-measuring all that was left) showed only from millions of characters on."""
    paginate([("💭 " + text * 8, (QUOTE_EXPANDABLE,))])


def fold(text: str) -> None:
    """An answer streamed in 8-character deltas, folded, then read once."""
    t = Transcript()
    for start in range(0, len(text), 8):
        t.apply(AnswerDelta(round=1, text=text[start:start + 8]))
    assert t.answer == text


STEPS: dict[str, Callable[[str], None]] = {
    "md_spans": fresh_md, "render live": render_live, "render final": render_final,
    "text-ReAct parser": parse, "embedded calls": calls, "notes headings": notes,
    "grounding": grounding, "pages": pages, "stream fold": fold}


def seconds(step: Callable[[str], None], text: str) -> float:
    """The CPU time `step` takes on this thread: on a loaded machine, the time other
    processes had the CPU would count against a long step more than a short one."""
    start = time.thread_time()
    step(text)
    return time.thread_time() - start


@pytest.mark.parametrize("name", STEPS)
def test_each_step_reads_hostile_text_in_linear_time(name: str) -> None:
    step = STEPS[name]
    slow = [(round(took, 2), text[:24]) for text in hostile(N)
            if seconds(step, text) > BOUND_S  # once; then the least of three
            and (took := min(seconds(step, text) for _ in range(3))) > BOUND_S]
    assert slow == []


@pytest.mark.parametrize("name", STEPS)
def test_eight_times_the_text_takes_about_eight_times_as_long(name: str) -> None:
    step = STEPS[name]
    small, large = "".join(hostile(SMALL)), "".join(hostile(LARGE))
    smalls, larges = [], []
    for _ in range(5):  # the least of five, each size in turn
        smalls.append(seconds(step, small))
        larges.append(seconds(step, large))
    ratio = min(larges) / min(smalls)
    assert ratio < SCALING, f"{name}: {ratio:.1f}× the time for 8× the text"


PERCENT_UNITS = ["1%", "1 %", "1% ", "1 % ", "1%的", "的1", "的 1 ", "1.", "1%off ",
                 "1 % of ", "打", "打 ", "八", "八 ", "1 ", "1折", "百分之", "百分之 1",
                 "1 percent ", "1" * 50 + " ", " " * 50 + "%"]


def percent_texts(n: int) -> list[str]:
    """Each percent unit repeated to n characters, and behind a number."""
    return [text for unit in PERCENT_UNITS
            for text in ((unit * (n // len(unit))), "1" + unit * (n // len(unit)))]


def test_the_calculators_percent_rewrite_is_linear() -> None:
    """The calculator caps its input (MAX_CHARS), and its percent rewrite is linear
    below the cap anyway: the same bounds as every other step, on its own hostile text."""
    small, large = "".join(percent_texts(SMALL)), "".join(percent_texts(LARGE))
    smalls, larges = [], []
    for _ in range(3):
        smalls.append(seconds(percent_syntax, small))
        larges.append(seconds(percent_syntax, large))
    assert min(larges) < BOUND_S * len(large) / N  # about 340,000 characters
    assert min(larges) / min(smalls) < SCALING


def guard(text: str) -> None:
    """A failed call whose error is `text`'s first 4,000 characters, then `text` as the
    answer in 8-character deltas, through the guard that keeps an error from being the
    answer: it holds the deltas while they may repeat the error."""
    async def steps() -> AsyncIterator[Event]:
        yield Action(round=1, call_id="c1", tool="add", arguments={"a": 1})
        yield Observation(round=1, call_id="c1", tool="add", text=text[:4000], ok=False,
                          duration_ms=1, failure=ObservationFailure.TOOL_ERROR)
        for start in range(0, len(text), 8):
            yield AnswerDelta(round=2, text=text[start:start + 8])
        yield Answer(round=2, text=text)

    async def drain() -> None:
        async for _ in no_errors_as_answers(steps(), "en"):
            pass

    asyncio.run(drain())


@pytest.mark.parametrize("unit", ["a", " ", "Error: 错误"])
def test_the_error_guard_holds_and_sends_in_linear_time(unit: str) -> None:
    small, large = unit * (10_000 // len(unit)), unit * (80_000 // len(unit))
    smalls, larges = [], []
    for _ in range(3):
        smalls.append(seconds(guard, small))
        larges.append(seconds(guard, large))
    assert min(larges) < BOUND_S and min(larges) / min(smalls) < SCALING


@pytest.mark.parametrize("live", [True, False])
def test_every_page_of_hostile_text_is_one_telegram_accepts(live: bool) -> None:
    """Trimmed like Telegram trims it, no page is empty (a page of only spaces was refused,
    so that part of the answer never showed) and none is too long."""
    for text in hostile(20_000):
        pages = render_run(transcript(text), "en", live=live)
        for page in pages:
            shown = parse_html(page).text.strip()
            assert shown and utf16_len(shown) <= 4096, (text[:24], page[:80])


async def test_a_hostile_answer_streams_while_another_chat_is_answered(gb: Glassbox) -> None:
    """The live message re-renders the growing answer at every edit: a quadratic render
    froze every chat (20,000 characters of `[` took over 5 s a render)."""
    answer = ("Here:\n" + " " * 20_000 + "x\n" + "[" * 20_000 + "\n" + "*a " * 6_000
              + "\nThe end.")

    def model(body: dict[str, Any]) -> Reply:
        if body["messages"][-1]["content"] == "echo this":
            return sse(DashScope().text(answer, pieces=8), delay=0.05)
        return text_reply("Still here, Bob.")

    gb.model.default = model
    hostile_question = gb.tg.send(ALICE, ALICE, "/ask echo this")
    await gb.tg.wait(lambda: bool(gb.replies_to(ALICE, hostile_question)), 10)
    started = time.perf_counter()
    other = gb.tg.send(BOB, BOB, "/ask are you there?")
    assert "Still here, Bob." in (await gb.answer_to(BOB, other)).text
    assert time.perf_counter() - started < 5
    await gb.answer_to(ALICE, hostile_question, timeout=30)
    shown = "".join(m.text for m in gb.tg.bot_messages(ALICE))
    assert "[" * 4000 in shown and "The end." in shown
    await still_answers(gb)
