"""/history and the /show header read in the class's time zone, named beside the times."""

from __future__ import annotations

from datetime import UTC, datetime

from agent.events import Usage
from bot.store.records import HistoryPage, RunRecord
from bot.view.history_view import history_text, run_header

RUN = RunRecord(id=1, n=7, chat_id=-100, user_id=1, user_name="Alice", mode="ask",
                question="Weather?", model="m", status="done",
                started_at=datetime(2026, 3, 1, 23, 30, tzinfo=UTC), ended_at=None,
                duration_ms=1000, usage=Usage(), message_ids=(), parent_id=None, answer="")


def test_history_times_are_in_the_class_time_zone() -> None:
    page = HistoryPage(runs=(RUN,), page=1, pages=1, total=1)
    shown = history_text(page, "en", "", "Asia/Shanghai")
    assert "(times in Asia/Shanghai)" in shown
    assert "#7</b> · 03-02 07:30 · Alice" in shown  # 23:30 UTC is 07:30 next morning
    assert "（Europe/Berlin 时间）" in history_text(page, "zh", "", "Europe/Berlin")
    assert "(times in UTC)" in history_text(page, "en", "weather", "UTC")


def test_the_show_header_names_the_zone() -> None:
    assert run_header(RUN, "en", "Asia/Shanghai") == (
        "📜 #7 · Alice · 2026-03-02 07:30 (Asia/Shanghai) · 🏁 done")
