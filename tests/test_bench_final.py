"""When the benchmarks count an answer as final on screen: the one test both the live
figures (`Stage.final`) and the scale run (`scale.finals`) go by, on the fake Telegram's
screen as the bot's real Bot API calls leave it."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import httpx

from bench.live import Asked
from bench.scale import finals
from bench.stage import Stage
from testkit.fakes.telegram import TOKEN, FakeTelegram

STOP = {"inline_keyboard": [[{"text": "⏹ Stop", "callback_data": "stop"}]]}


def send(tg: FakeTelegram, chat: int, text: str, reply_to: int,
         markup: dict[str, Any] | None = None) -> int:
    data = {"chat_id": chat, "text": text,
            "reply_parameters": json.dumps({"message_id": reply_to})}
    if markup:
        data["reply_markup"] = json.dumps(markup)
    sent = httpx.post(f"{tg.base_url}{TOKEN}/sendMessage", data=data).json()
    return int(sent["result"]["message_id"])


def test_an_answer_is_final_only_when_no_page_is_still_to_come() -> None:
    with FakeTelegram(scale=0.001) as tg:  # no flood waits between the sends
        user = tg.user(5)
        paged = tg.send(user, user, "/ask at length")
        first = send(tg, user, "Answer, part one (1/2)", paged)
        working = tg.send(user, user, "/ask weather")
        send(tg, user, "🔍 Round 1\n⏳ Working…", working)
        stopping = tg.send(user, user, "/ask again")
        send(tg, user, "🔍 Round 1 thinking", stopping, STOP)
        whole = tg.send(user, user, "/ask short")
        send(tg, user, "Answer.", whole)
        asked = [Asked(user, m, f"q{m}", 0.0) for m in (paged, working, stopping, whole)]
        st: Any = SimpleNamespace(tg=tg)
        assert [Stage.final(st, a.chat_id, a.message_id) is not None for a in asked] == [
            False, False, False, True]
        assert list(finals(st, asked)) == [3]

        send(tg, user, "part two (2/2)", first)
        assert sorted(finals(st, asked)) == [0, 3]
        assert [p.text for p in Stage.final(st, user, paged) or []] == [
            "Answer, part one (1/2)", "part two (2/2)"]
