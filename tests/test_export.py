"""The exported HTML file: the whole chain, self-contained, every stored text shown as text."""

from __future__ import annotations

from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path

from agent.events import (
    Action,
    Answer,
    Event,
    Judgement,
    Observation,
    ObservationFailure,
    RunFinished,
    RunStarted,
    Thought,
    Usage,
)
from bot.store.records import RunRecord, Scope, UnknownEvent
from bot.store.transcripts import Store
from bot.view.export import export_html

HOSTILE = '<b>bold</b><script>alert("x")</script><img src=x onerror=alert(1)>'
LONG = "".join(f"line {i}: {'数据 ' * 20}\n" for i in range(300))  # far beyond one message


class Page(HTMLParser):
    """What a browser would show: the tags used, their attributes, and the visible text."""

    def __init__(self, document: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.attributes: set[str] = set()
        self.parts: list[str] = []
        self._in_style = False
        self.feed(document)
        self.text = "".join(self.parts)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attributes.update(name for name, _ in attrs)
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if not self._in_style:
            self.parts.append(data)


def record(**changes: object) -> RunRecord:
    values: dict[str, object] = dict(
        id=3, n=12, chat_id=-100, user_id=7, user_name="李雷 " + HOSTILE, mode="ask",
        question="What does the notes say? " + HOSTILE, model="qwen-plus", status="done",
        started_at=datetime(2025, 3, 1, 8, 0, 5, tzinfo=UTC),
        ended_at=datetime(2025, 3, 1, 8, 0, 17, tzinfo=UTC), duration_ms=12_340,
        usage=Usage(1200, 345, 1545), message_ids=(50,), parent_id=None, answer="",
    )
    values.update(changes)
    return RunRecord(**values)  # type: ignore[arg-type]


def chain(answer: str = "It says **ReAct** " + HOSTILE) -> list[Event]:
    return [
        RunStarted(round=0, mode="react", question="q", model="qwen-plus", tools=("notes",)),
        Thought(round=1, text="a draft thought"),
        Thought(round=1, text="I should search the notes " + HOSTILE),
        Action(round=1, call_id="c1", tool="notes", arguments={"query": HOSTILE}),
        Observation(round=1, call_id="c1", tool="notes", text=LONG + HOSTILE, ok=True,
                    duration_ms=420),
        Action(round=1, call_id="c2", tool="weather", arguments='{"city": broken'),
        Observation(round=1, call_id="c2", tool="weather", text="no such city", ok=False,
                    duration_ms=80),
        Thought(round=2, text="Now I can answer.", synthesized=True),
        Answer(round=2, text=answer),
        RunFinished(round=2, status="done", usage=Usage(1200, 345, 1545), duration_ms=12_340,
                    rounds=2, tool_calls=2),
    ]


def test_the_whole_chain_is_in_the_file() -> None:
    page = Page(export_html(record(), {"main": chain()}, "en"))

    for text in ("What does the notes say? " + HOSTILE, "李雷 " + HOSTILE,
                 "2025-03-01 08:00:05 (UTC)", "qwen-plus", "12.3 s", "1,200 in · 345 out",
                 "Round 1", "Round 2", "I should search the notes " + HOSTILE,
                 'notes(query="<b>bold</b>', LONG + HOSTILE, 'weather({"city": broken)',
                 "no such city", "failed", "420 ms", "📝 Written by Glassbox: Now I can answer.",
                 "It says ReAct " + HOSTILE, "2 rounds", "2 tool calls"):
        assert text in page.text, text
    assert "a draft thought" not in page.text  # superseded, as in the live message
    assert page.text.index("Round 1") < page.text.index("no such city") < page.text.index(
        "Round 2") < page.text.index("It says")


def test_hostile_text_stays_text_and_nothing_is_fetched() -> None:
    document = export_html(record(), {"main": chain()}, "en")
    page = Page(document)
    assert page.tags <= {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3",
                         "p", "table", "tr", "td", "section", "div", "span", "pre", "br",
                         "code", "b", "i", "s", "blockquote", "a"}
    assert page.attributes <= {"lang", "charset", "class", "href"}
    assert "<script" not in document and "<b>bold" not in document
    assert "http" not in document and "url(" not in document and "@import" not in document


def test_a_compare_run_shows_both_lanes_in_chinese() -> None:
    plain = [
        RunStarted(round=0, mode="plain", question="q", model="qwen-plus"),
        Thought(round=1, text="凭记忆回答", synthesized=True),
        Answer(round=1, text="大概是晴天。"),
        RunFinished(round=1, status="done", usage=Usage(50, 20, 70), duration_ms=900, rounds=1),
    ]
    react = [*chain("杭州今天晴，18 度。")[:-1],
             RunFinished(round=6, status="max_rounds", usage=Usage(900, 90, 990),
                         duration_ms=8000, rounds=6, tool_calls=2, reason="达到了 6 轮的上限。"),
             Judgement(round=0, text="两个回答不同：用了工具后查到了 18 度。")]
    page = Page(export_html(record(mode="compare", question="杭州天气？"),
                            {"react": react, "plain": plain}, "zh-hans"))

    text = page.text
    order = ["仅模型（不用工具）", "大概是晴天。", "ReAct（使用工具）", "杭州今天晴，18 度。",
             "⚖️ 两个回答的区别", "模型的评判：两个回答不同：用了工具后查到了 18 度。",
             "📊 无工具 → ReAct：轮数 1 → 6"]
    assert [text.index(p) for p in order] == sorted(text.index(p) for p in order)
    for expected in ("Glassbox 记录 #12", "提问人", "对比", "第 1 轮", "思考", "观察", "回答",
                     "达到轮数上限", "达到了 6 轮的上限。", "输入 900 · 输出 90",
                     "2 次工具调用"):
        assert expected in text, expected


def test_the_answer_is_drawn_from_its_markdown_in_the_class_time_zone() -> None:
    answer = "**Sunny**, 18 °C.\n\n| City | °C |\n|---|---:|\n| 杭州 | 18 |\n| Berlin | 2 |"
    events = [*chain(answer)[:-1], RunFinished(round=2, status="done", rounds=2, tool_calls=1,
                                               usage=Usage(1280, 45, 1325), duration_ms=1000)]
    document = export_html(record(), {"main": events}, "en", "Asia/Shanghai")
    page = Page(document)
    assert "<b>Sunny</b>, 18 °C." in document and "**" not in page.text.split("Answer")[-1]
    assert "City   | °C\n-------+---\n杭州   | 18\nBerlin |  2" in page.text
    assert "2025-03-01 16:00:05 (Asia/Shanghai)" in page.text  # 08:00 UTC
    assert "1 tool call" in page.text and "1 tool calls" not in page.text
    assert "1,325 tokens (1,280 in · 45 out)" in page.text and "out tokens" not in page.text
    calls = [line for line in document.split("\n") if "🔧" in line]
    assert len(calls) == 2 and all(  # each call in one block with its observation
        line.startswith('<div class="step">') and "👀" in line for line in calls)


def test_steps_of_unknown_types_are_shown_not_dropped() -> None:
    plan = UnknownEvent(round=1, payload={"type": "plan", "round": 1, "steps": ["搜索笔记"]})
    page = Page(export_html(record(status="interrupted", ended_at=None, duration_ms=None),
                            {"main": [plan]}, "en"))
    assert "plan" in page.text and "搜索笔记" in page.text
    assert "interrupted" in page.text and "Duration" not in page.text


async def test_a_stored_run_exports_from_the_store(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "glassbox.sqlite3")
    try:
        run = await store.start_run(chat_id=-100, user_id=7, user_name="Li", mode="ask",
                                    question="From disk?", model="qwen-plus")
        for event in chain("Stored answer."):
            await store.append(run.id, event)
        await store.finish(run.id, status="done", usage=Usage(1, 2, 3), duration_ms=4,
                           answer="Stored answer.")
        stored = await store.get(Scope(-100), run.n)
        assert stored is not None
        page = Page(export_html(stored, await store.events(run.id), "en"))
    finally:
        await store.close()
    assert "From disk?" in page.text and "Stored answer." in page.text
    assert LONG + HOSTILE in page.text


def test_a_failed_step_says_why_and_an_old_one_still_reads() -> None:
    """The stored failure kind tells a timeout from an upstream fault; a step stored before
    kinds existed (no `failure`) still reads as plainly failed."""
    events = chain()
    events[6] = Observation(round=1, call_id="c2", tool="weather", text="no such city",
                            ok=False, duration_ms=80, failure=ObservationFailure.TIMEOUT)
    assert "failed (timed out)" in Page(export_html(record(), {"main": events}, "en")).text
    assert "失败 (超时)" in Page(export_html(record(), {"main": events}, "zh")).text
    old = Page(export_html(record(), {"main": chain()}, "en")).text
    assert "⚠️ failed" in old and "failed (" not in old
