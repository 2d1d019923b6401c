"""Uploads across chats add up: six students each upload a hostile PDF in their own chat at
once, against the real `python -m bot`. At most NOTES_READERS (2) reading processes run at a
time, so their memory is bounded by NOTES_EXTRACT_MEMORY_MB times that; the four others
wait, each told so in its uploader's language, and every upload gets its reply."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from dataclasses import dataclass
from pathlib import Path

from testkit.bot_process import ROOT, bot_process
from testkit.botkit import ADMIN, ALICE, BOB, people
from testkit.class_asking import CAROL
from testkit.fakes.model import FakeModel, text_reply
from testkit.fakes.telegram import FakeTelegram
from testkit.pdfkit import make_shared_stream_pdf

EXTRACT_S = 3
DAVE, ERIN = 444, 555
UPLOADERS = (ALICE, CAROL, ADMIN, DAVE, ERIN, BOB)  # Bob (Chinese) last: surely waits
QUEUED = {"en": "Files from other chats are being read right now; hostile.pdf is read as soon "
                "as one is done, and I will reply here.",
          "zh": "其他聊天的文件正在读取；轮到 hostile.pdf 时就读，读完在这里告诉你。"}


@dataclass
class Storm:
    readers: int
    """Reading processes at once, at most."""
    memory_mib: float
    """Their resident memory together, at most."""
    replies: dict[int, list[str]]
    """What each uploader was told, in order."""
    took_s: float


def readers_of(pid: int) -> list[int]:
    """The resident KiB of each `agent.extraction` process whose parent is `pid`."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            status = Path(entry.path, "status").read_text()
            fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
            if int(fields["PPid"]) != pid:
                continue
            if b"agent.extraction" in Path(entry.path, "cmdline").read_bytes():
                found.append(int(fields.get("VmRSS", "0 kB").split()[0]))
    return found


async def upload_at_once(tmp_path: Path, code: Path = ROOT, **env: str) -> Storm:
    """Six uploads of a hostile PDF at once, each in its uploader's private chat."""
    pdf = make_shared_stream_pdf(12, 1_000_000)
    with FakeTelegram() as tg, FakeModel(default=lambda body: text_reply("Hi.")) as model:
        people(tg)
        for user, name in ((CAROL, "Carol"), (DAVE, "Dave"), (ERIN, "Erin")):
            tg.user(user, name, "en")
        with bot_process(tg, model, tmp_path, code=code, AGENT_TOOLS="search_notes",
                         NOTES_EXTRACT_TIMEOUT_S=str(EXTRACT_S),
                         NOTES_DIR=str(tmp_path / "notes"), **env) as bot:
            await tg.wait(lambda: tg.polls > 0, timeout=30)
            began = time.monotonic()
            sent = {user: tg.send_document(user, user, "hostile.pdf", pdf, caption="/notes")
                    for user in UPLOADERS}

            def said(user: int) -> list[str]:
                return [m.text for m in tg.bot_messages(user) if m.reply_to == sent[user]]

            def read_all() -> bool:
                return all(any(not t.startswith(tuple(QUEUED.values())) for t in said(user))
                           for user in UPLOADERS)
            most, memory = 0, 0.0
            deadline = began + 6 * EXTRACT_S + 60
            while not read_all() and time.monotonic() < deadline:
                rss = readers_of(bot.proc.pid)
                most, memory = max(most, len(rss)), max(memory, sum(rss) / 1024)
                await asyncio.sleep(0.05)  # sampling the processes, not waiting on them
            took = time.monotonic() - began
            assert bot.terminate() == 0
            assert "Traceback" not in bot.output()
            return Storm(most, memory, {user: said(user) for user in UPLOADERS}, took)


async def test_six_uploads_at_once_are_read_two_at_a_time(tmp_path: Path) -> None:
    storm = await upload_at_once(tmp_path)
    assert 1 <= storm.readers <= 2, storm
    queued = [user for user, told in storm.replies.items() if told[0] in QUEUED.values()]
    assert len(queued) == 4, storm.replies
    assert storm.replies[BOB][0] == QUEUED["zh"]
    for user, told in storm.replies.items():
        assert len(told) == (2 if user in queued else 1), told
        assert told[-1].startswith(("📚", "Nothing could be read", "hostile.pdf 在")), told
