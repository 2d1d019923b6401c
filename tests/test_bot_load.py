"""Many questions at once, with the fake Bot API enforcing Telegram's flood limits."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from testkit.botkit import GROUP, people, running
from testkit.fakes.model import DashScope, FakeModel, sse
from testkit.fakes.server import Reply
from testkit.fakes.telegram import FakeTelegram


def echo(body: dict[str, Any]) -> Reply:
    """A model that answers each question by name, streaming in small pieces."""
    question = body["messages"][-1]["content"]
    return sse(DashScope().text(f"Answer to {question}.", pieces=6), delay=0.01)


async def test_five_in_a_group_and_twenty_private_chats_at_once(tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel(default=echo) as model:
        people(tg)
        students = [tg.user(1000 + n, f"S{n}") for n in range(25)]
        async with running(tg, model, tmp_path / "g.sqlite3") as gb:
            group_asks = {tg.send(GROUP, s, f"/ask group question {n}"): n
                          for n, s in enumerate(students[:5])}
            private_asks = {s: tg.send(s, s, f"private question {n}")
                            for n, s in enumerate(students[5:])}
            finals = await asyncio.gather(
                *(gb.answer_to(GROUP, asked, timeout=30) for asked in group_asks),
                *(gb.answer_to(chat, asked, timeout=30) for chat, asked in private_asks.items()))

    for final, n in zip(finals[:5], group_asks.values(), strict=True):
        assert f"Answer to group question {n}." in final.text
    for final, n in zip(finals[5:], range(20), strict=True):
        assert f"Answer to private question {n}." in final.text
    assert all(final.buttons == [] for final in finals)
    assert tg.too_many == 0
