"""The board's renderer (bot/view/board_html.py): a pure function of the fold, every text escaped,
Glassbox's own notes apart from the model's thoughts, steps numbered for reveal mode."""

from __future__ import annotations

from datetime import UTC, datetime

from agent.events import (
    Action,
    Answer,
    Observation,
    Remark,
    RunFinished,
    RunStarted,
    Thought,
    Usage,
)
from bot.store.records import RunRecord
from bot.view.board_html import board_page, board_run
from bot.view.transcript import View

HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def record(question: str, mode: str = "ask") -> RunRecord:
    return RunRecord(id=1, n=7, chat_id=-100, user_id=1, user_name="<b>Eve</b>", mode=mode,
                     question=question, model="m", status="running",
                     started_at=datetime(2026, 12, 1, tzinfo=UTC), ended_at=None,
                     duration_ms=None, usage=Usage(), message_ids=(), parent_id=None,
                     answer="")


def test_every_text_is_escaped_and_notes_are_glassbox_s() -> None:
    view = View("ask", "en")
    for event in (RunStarted(round=0, mode="react", question=HOSTILE, model="m",
                             answer_model="qwen-max"),
                  Remark(round=1, kind="text_mode", text="Switched to the text format " + HOSTILE),
                  Thought(round=1, text="Think " + HOSTILE),
                  Action(round=1, call_id="c1", tool="add", arguments={"a": HOSTILE}),
                  Observation(round=1, call_id="c1", tool="add", text=HOSTILE, ok=True,
                              duration_ms=3),
                  Answer(round=2, text="Done " + HOSTILE),
                  RunFinished(round=2, status="done")):
        view.apply("main", event)
    html = board_run(record(HOSTILE), view, "done", "en")
    assert "<script>" not in html and "<img" not in html and "<b>Eve</b>" not in html
    assert "&lt;script&gt;" in html
    assert '<div class="step thought" data-step="0">' in html
    note = '<div class="step note" data-step="3"><span class="label">📝 Written by Glassbox: '
    assert note in html  # one line after the model's own words
    assert [html.count(f'data-step="{k}"') for k in range(5)] == [1, 1, 1, 1, 1]
    assert "💬 Answer (written by qwen-max)" in html  # as the chat names it
    assert 'data-n="7"' in html and 'data-status="done"' in html


def test_the_page_names_its_stream_and_fetches_nothing_from_elsewhere() -> None:
    page = board_page("tok_en-1", "zh")
    assert 'data-events="/board/tok_en-1/events?lang=zh"' in page
    assert 'lang="zh"' in page and "智能体下一步会做什么" in page
    assert "http://" not in page and "https://" not in page  # no CDN: a hall may be offline
