"""The class board in a real headless Chromium (Debian's, driven by Playwright; no browser
download): a group's board follows a /compare live in two columns, reveal mode holds back
the next step until space, text is projector size at 1280×720. Screenshots go to GALLERY."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from agent.classroom.compare_judge import JUDGE_MARK
from testkit.botkit import ADMIN, ALICE, BOB, GROUP, Add, people
from testkit.fakes.model import DashScope, FakeModel, Reply, sse
from testkit.fakes.telegram import FakeTelegram
from testkit.serving import serving
from tests.web.test_board import board_path

ROOT = Path(__file__).resolve().parents[2]
GALLERY = Path(os.environ.get("BOARD_GALLERY", ROOT / "build" / "board-gallery"))
"""Where the screenshots go: build/ (ignored by git) unless BOARD_GALLERY says otherwise;
`BOARD_GALLERY=docs/gallery scripts/test tests/web/test_board_browser.py` renews the ones
README shows, after a look at them."""


def slow_text(text: str, delay: float, first_delay: float = 0.0) -> Reply:
    """`text` streamed word by word, `delay` seconds apart: a run a browser can watch grow."""
    return sse(DashScope().text(text, pieces=len(text.split())), delay=delay,
               first_delay=first_delay)


async def on_screen(page: Any, n: int) -> None:
    """Wait until run #n is the one the board shows."""
    await page.wait_for_function(
        f'() => document.querySelector("article.run")?.dataset.n === "{n}"')


def lecture_model(body: dict[str, Any]) -> Reply:
    """A /compare about 17% of 2,480: the model alone guesses, the ReAct lane calculates."""
    system = body["messages"][0]["content"] if body["messages"] else ""
    if system.startswith(JUDGE_MARK):
        return slow_text("They differ: the model alone estimated about 400, while the "
                         "calculator gave the exact 421.6.", 0.01)
    if "tools" not in body:
        return slow_text("Roughly 17% of 2,480 is about 400, give or take a little.", 0.12)
    if body["messages"][-1]["role"] == "tool":
        return slow_text("17% of 2,480 is exactly **421.6**.", 0.12)
    return sse(DashScope().tool_calls([("add", {"a": 2480 * 0.17, "b": 0})],
                                      content="I should compute 17% of 2,480 exactly."),
               first_delay=0.6)


async def test_a_compare_fills_both_columns_live_on_the_projector(tmp_path: Path,
                                                                  browser: Any) -> None:
    GALLERY.mkdir(parents=True, exist_ok=True)
    with FakeTelegram(scale=0.02) as tg, FakeModel(default=lecture_model) as model:
        people(tg)
        async with serving(tg, model, tmp_path / "g.sqlite3", tools=[Add()]) as web:
            path = await board_path(web)
            page = await browser.new_page(viewport={"width": 1280, "height": 720})
            await page.goto(web.base_url + path)
            await page.wait_for_selector(".waiting")

            asked = tg.send(GROUP, ALICE, "/compare What is 17% of 2,480?")
            # Live: the model-alone column is writing while the run is still running.
            await page.wait_for_function(
                """() => {
                    const run = document.querySelector("article.run");
                    const plain = document.querySelector('[data-lane="plain"] .step.answer');
                    return run && run.dataset.status === "running" && plain
                        && plain.textContent.includes("17%");
                }""", timeout=15000)
            await page.screenshot(path=str(GALLERY / "board-compare-live.png"))
            await page.wait_for_selector(".difference", timeout=20000)
            await page.wait_for_selector(".judgement b", timeout=20000)
            await page.wait_for_function(
                '() => document.querySelector("article.run").dataset.status === "done"')
            await page.wait_for_timeout(300)  # the last frame drawn and scrolled
            # The end at the default size: both answers side by side at the top, each under
            # its label, and the judgement below them, all on the one screen.
            boxes = await page.evaluate("""() => [
                '.answers [data-lane="plain"] .step.answer',
                '.answers [data-lane="react"] .step.answer', '.judgement', '.difference']
                .map(s => { const r = document.querySelector(s).getBoundingClientRect();
                            return [r.left, r.top, r.bottom]; })""")
            assert all(top >= 0 and bottom <= 720 for _, top, bottom in boxes), boxes
            await page.screenshot(path=str(GALLERY / "board-compare-end.png"))  # followed
            cells = await page.eval_on_selector_all(
                ".answers > .cell", "cs => cs.map(c => c.getBoundingClientRect().top)")
            assert boxes[1][0] > boxes[0][0] + 300 and len(set(cells)) == 1  # side by side
            assert boxes[1][2] < boxes[2][1] < boxes[3][1]  # answers, judgement, cost
            labels = await page.inner_text(".answers")
            assert "🧠 Model alone" in labels and "🔍 ReAct (with tools)" in labels
            marked = await page.eval_on_selector_all(
                ".answers mark.differs",
                "ms => ms.map(m => [m.closest('[data-lane]').dataset.lane, m.textContent])")
            assert marked == [["plain", "00"], ["react", "21"], ["react", "6"]]  # 400 / 421.6
            quiet = await page.eval_on_selector(
                ".difference", "e => parseFloat(getComputedStyle(e).fontSize)")
            loud = await page.eval_on_selector(
                ".judgement", "e => parseFloat(getComputedStyle(e).fontSize)")
            assert quiet < loud  # the cost line is quieter than the judgement
            columns = await page.eval_on_selector_all(
                ".lanes.two > .lane", "lanes => lanes.map(l => l.getBoundingClientRect().x)")
            assert len(columns) == 2 and columns[1] > columns[0] + 300  # side by side
            # The same end in Chinese: its labels, and still one screen.
            zh = await browser.new_page(viewport={"width": 1280, "height": 720})
            await zh.goto(web.base_url + path + "?lang=zh")
            await zh.wait_for_selector("article.run .judgement")
            bottom = await zh.eval_on_selector(".difference",
                                               "e => e.getBoundingClientRect().bottom")
            assert bottom <= 720 and "🧠 仅模型（不用工具）" in await zh.inner_text(".answers")
            await zh.screenshot(path=str(GALLERY / "board-compare-end-zh.png"))
            await zh.close()
            text = await page.inner_text("article.run")
            assert "about 400" in text and "421.6" in text and "No tools → ReAct" in text
            size = await page.eval_on_selector(
                ".step.answer .text", "e => parseFloat(getComputedStyle(e).fontSize)")
            assert size >= 28
            await page.evaluate("window.scrollTo(0, 0)")
            await page.screenshot(path=str(GALLERY / "board-compare.png"))
            await web.gb.answer_to(GROUP, asked)

            # + makes the text larger; T switches to the light theme.
            await page.keyboard.press("+")
            bigger = await page.eval_on_selector(
                ".step.answer .text", "e => parseFloat(getComputedStyle(e).fontSize)")
            assert bigger > size
            await page.keyboard.press("-")
            await page.keyboard.press("t")
            assert await page.evaluate("document.documentElement.dataset.theme") == "light"
            await page.screenshot(path=str(GALLERY / "board-compare-light.png"))
            await page.keyboard.press("t")

            # Reveal mode: the next run's steps wait behind the question until space.
            await page.keyboard.press("r")
            asked_again = tg.send(GROUP, ALICE, "/compare And 17% of 3,000?")
            await page.wait_for_function(
                """() => document.querySelector("article.run").dataset.n === "2"
                    && document.querySelectorAll('[data-lane="react"] .step').length >= 1""",
                timeout=15000)
            hidden = await page.eval_on_selector_all(
                '[data-lane="react"] .step', "s => s.map(e => e.hidden)")
            assert hidden and all(hidden)
            assert await page.is_visible('[data-lane="react"] .next')
            # The run ends while its steps are held back: nothing on the page tells how.
            await page.wait_for_function(
                """() => document.querySelector("article.run").dataset.n === "2"
                    && document.querySelector("article.run").dataset.status === "done"
                    && document.querySelector(".difference")""", timeout=20000)
            text = await page.evaluate("document.body.innerText")
            for spoiler in (r"\bdone\b", r"\d\s*(ms|s)\b", r"\d+ rounds?\b", r"tokens?\b",
                            "judgement", "No tools → ReAct", "421"):
                assert not re.search(spoiler, text, re.IGNORECASE), (spoiler, text)
            # No empty row of answer labels above the chains while the answers are held back.
            assert await page.eval_on_selector_all(
                ".answers > .cell", "cs => cs.map(c => c.hidden)") == [True, True]
            await page.screenshot(path=str(GALLERY / "board-reveal.png"))
            await page.keyboard.press(" ")
            assert await page.is_visible('[data-lane="react"] .step[data-step="0"]')
            first = await page.inner_text('[data-lane="react"] .step[data-step="0"]')
            assert "Thought" in first

            # ← goes back to the first run, → returns to the newest.
            await page.keyboard.press("ArrowLeft")
            await on_screen(page, 1)
            await page.keyboard.press("ArrowRight")
            await on_screen(page, 2)
            await page.keyboard.press("r")  # reveal mode off

            # Two questions at once: the board follows the newest; the rail lists the other.
            await web.gb.answer_to(GROUP, asked_again, timeout=20)
            tg.send(GROUP, ALICE, "/ask What is 17% of 2,480?")
            await on_screen(page, 3)
            tg.send(GROUP, BOB, "/ask 2,480 的 17% 是多少？")
            await page.wait_for_function(
                """() => document.querySelector("article.run").dataset.n === "4"
                    && document.getElementById("rail").textContent.includes("#3 Alice ⏳")""",
                timeout=15000)
            await page.screenshot(path=str(GALLERY / "board-two-runs.png"))


def teacher_model(body: dict[str, Any]) -> Reply:
    """The teacher's question takes a while; a student's is answered at once."""
    question = body["messages"][-1]["content"] if body["messages"] else ""
    if "light" in str(question):
        return slow_text("Light travels about 299,792 km every second in a vacuum.", 0.15)
    return slow_text("Paris is the capital of France.", 0.01)


async def test_the_board_stays_on_the_teachers_run_when_a_student_asks(tmp_path: Path,
                                                                       browser: Any) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel(default=teacher_model) as model:
        people(tg)
        async with serving(tg, model, tmp_path / "g.sqlite3", tools=[Add()]) as web:
            path = await board_path(web)  # the teacher (ADMIN) asked for the link
            assert f"{path}?lead={ADMIN}" in tg.bot_messages(ADMIN)[-1].text
            page = await browser.new_page(viewport={"width": 1280, "height": 720})
            await page.goto(f"{web.base_url}{path}?lead={ADMIN}")
            await page.wait_for_selector(".waiting")

            tg.send(GROUP, ADMIN, "/ask How fast is light?")
            await on_screen(page, 1)
            asked = tg.send(GROUP, BOB, "/ask What is the capital of France?")
            await web.gb.answer_to(GROUP, asked, timeout=20)
            await page.wait_for_function(
                '() => document.querySelector("#rail .other")?.textContent.includes("Bob")')
            # The student's run waits in the rail; the teacher's stays on screen, pinned
            # neither by hand nor moved.
            assert await page.eval_on_selector("article.run", "a => a.dataset.n") == "1"
            rail = await page.inner_text("#rail")
            assert "other runs: 1" in rail and "#2 Bob" in rail
            assert "following Teacher" in await page.inner_text("#bar")
            await page.screenshot(path=str(GALLERY / "board-follows-teacher.png"))

            # A click shows the student's run and pins it; F follows the teacher again.
            await page.click("#rail .other")
            await on_screen(page, 2)
            assert "#2 pinned" in await page.inner_text("#bar")
            await page.keyboard.press("f")
            await on_screen(page, 1)
            # P pins the teacher's run: a new question of theirs does not replace it.
            await page.keyboard.press("p")
            tg.send(GROUP, ADMIN, "/ask And how fast is sound?")
            await page.wait_for_function(
                '() => document.querySelector("#rail").textContent.includes("#3")')
            assert await page.eval_on_selector("article.run", "a => a.dataset.n") == "1"


CO_TEACHER = 444


async def test_the_board_follows_a_co_teacher_and_no_student_moves_it(tmp_path: Path,
                                                                      browser: Any) -> None:
    """The teacher opened the board; another admin of the group (a co-teacher) asks: the
    board shows their run as it would the teacher's. A student's question goes to the rail,
    and once the run on screen is pinned, not even a teacher's new question moves it."""
    with FakeTelegram(scale=0.02) as tg, FakeModel(default=teacher_model) as model:
        people(tg)
        tg.user(CO_TEACHER, "Mr Li", "en")
        tg.admin(GROUP, CO_TEACHER)
        async with serving(tg, model, tmp_path / "g.sqlite3", tools=[Add()]) as web:
            path = await board_path(web)  # the teacher (ADMIN) asked for the link
            page = await browser.new_page(viewport={"width": 1280, "height": 720})
            await page.goto(f"{web.base_url}{path}?lead={ADMIN}")
            await page.wait_for_selector(".waiting")

            tg.send(GROUP, ADMIN, "/ask What is the capital of France?")
            await on_screen(page, 1)
            tg.send(GROUP, CO_TEACHER, "/ask How fast is light?")
            await on_screen(page, 2)
            assert "following Mr Li" in await page.inner_text("#bar")
            asked = tg.send(GROUP, BOB, "/ask What is the capital of Italy?")
            await web.gb.answer_to(GROUP, asked, timeout=20)
            await page.wait_for_function(
                '() => document.querySelector("#rail").textContent.includes("#3 Bob")')
            assert await page.eval_on_selector("article.run", "a => a.dataset.n") == "2"

            await page.keyboard.press("p")  # pinned: #2 stays whoever asks
            assert "#2 pinned" in await page.inner_text("#bar")
            for who, question in ((BOB, "/ask And of Spain?"), (ADMIN, "/ask And of Peru?")):
                asked = tg.send(GROUP, who, question)
                await web.gb.answer_to(GROUP, asked, timeout=20)
            await page.wait_for_function(
                '() => document.querySelector("#rail").textContent.includes("#5")')
            assert await page.eval_on_selector("article.run", "a => a.dataset.n") == "2"
            assert "#2 pinned" in await page.inner_text("#bar")
            await page.keyboard.press("f")  # following again: the teachers' newest, #5
            await on_screen(page, 5)
            assert "following Teacher" in await page.inner_text("#bar")
