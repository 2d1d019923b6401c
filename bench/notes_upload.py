"""Course notes by upload: how long a teacher waits between sending a 100-page PDF with the
caption /notes and the bot's answer saying what it indexed, through the real Application
against the fake Bot API (getFile and the download included), and how long the text
extraction alone takes (its own process, started and read)."""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

from agent.tools.documents import read_document
from bench.bench_figures import Figure
from testkit.botkit import ADMIN, GROUP, SCALE, people, running
from testkit.fakes.model import FakeModel
from testkit.fakes.telegram import FakeTelegram
from testkit.pdfkit import make_pdf

TARGET_S = 5.0
LINE = "Slide {page}, point {n}: the ReAct loop interleaves thought, action and observation."


def lecture(pages: int) -> bytes:
    """A PDF of `pages` pages of 20 lines of text each (about 1,700 characters a page)."""
    return make_pdf(["\n".join(LINE.format(page=p, n=n) for n in range(20))
                     for p in range(1, pages + 1)])


def notes_figures(quick: bool) -> list[Figure]:
    pages = 10 if quick else 100
    pdf = lecture(pages)
    started = time.perf_counter()
    document = asyncio.run(read_document("lecture.pdf", pdf))
    extract = time.perf_counter() - started
    with tempfile.TemporaryDirectory(prefix="glassbox-notes-") as tmp, \
            FakeTelegram(scale=SCALE) as tg, FakeModel() as model:
        people(tg)
        waited = asyncio.run(_upload(tg, model, Path(tmp), pdf))
    what = f"a {pages}-page PDF ({len(pdf) // 1024} KB, {document.chars:,} characters)"
    return [
        Figure(f"/notes of {what}: text extraction alone", f"{extract:.2f} s"),
        Figure(f"/notes of {what}: upload → the bot's answer", f"{waited:.2f} s",
               f"≤ {TARGET_S:g} s", waited <= TARGET_S),
    ]


async def _upload(tg: FakeTelegram, model: FakeModel, tmp: Path, pdf: bytes) -> float:
    (tmp / "notes").mkdir()
    async with running(tg, model, tmp / "notes.sqlite3", tools=None, agent_tools="search_notes",
                       notes_dir=tmp / "notes") as gb:
        started = time.perf_counter()
        sent = tg.send_document(GROUP, ADMIN, "lecture.pdf", pdf, caption="/notes")
        await tg.wait(lambda: bool(gb.replies_to(GROUP, sent)), timeout=60)
        waited = time.perf_counter() - started
        assert "Indexed lecture.pdf" in gb.replies_to(GROUP, sent)[0].text
    return waited
