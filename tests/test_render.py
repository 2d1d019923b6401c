"""What a user sees of a run: the chain, the answer, the footer, over as many pages as needed."""

from __future__ import annotations

import re

from agent.events import (
    Action,
    Answer,
    AnswerDelta,
    Event,
    Judgement,
    Observation,
    RunFinished,
    RunStarted,
    Status,
    TextDelta,
    Thought,
    Usage,
)
from bot.view.render import render_compare, render_run
from bot.view.spans import B, paginate, to_plain
from bot.view.textlen import utf16_len
from bot.view.transcript import Transcript
from testkit.fakes.telegram_html import parse_html
from tests.test_transcript import weather_run


def unmarked(page: str) -> str:
    """A page without its mark, (2/3), so that pages join into the text they split."""
    return re.sub(r"\n\n<i>\(\d+/\d+\)</i>$", "", page)


def shown(pages: list[str]) -> str:
    """All pages as a user reads them, checking each the way Telegram would."""
    return "".join(parse_html(page).text for page in pages)


def finished(status: Status = "done", reason: str = "", rounds: int = 2) -> RunFinished:
    return RunFinished(round=rounds, status=status, usage=Usage(1000, 234, 1234),
                       duration_ms=3200, rounds=rounds, tool_calls=2, reason=reason)


def react(*events: Event, question: str = "Weather in Hangzhou?") -> Transcript:
    return Transcript.from_events([
        RunStarted(round=0, mode="react", question=question, model="qwen-plus"), *events])


def test_a_finished_chain_shows_every_step_in_english() -> None:
    pages = render_run(Transcript.from_events(weather_run()), "en")

    assert len(pages) == 1
    text = shown(pages)
    assert text.startswith("❓ Weather in Hangzhou?")
    order = ["🔎 2 rounds · weather · calculator", "Round 1",
             "💭 Thought: I need the current weather.",
             '🔧 Action weather(city="Hangzhou")', "👀 Observation ✅ 420 ms", "Sunny, 25 °C",
             '🔧 Action calculator(expr="25*9/5+32")', "👀 Observation ✅ 3 ms", "77",
             "Round 2", "📝 Written by Glassbox: the model wrote no reasoning",
             "💬 Answer", "It is sunny, 25 °C (77 °F).", "⏱ 3.2 s · 2 rounds · 2 tool calls"]
    positions = [text.index(piece) for piece in order]
    assert positions == sorted(positions)
    assert "Working" not in text and "tokens" not in text  # tokens are for /show
    assert "<i>📝 Written by Glassbox: the model wrote no reasoning" in pages[0]  # set apart,
    assert "<b>Written by Glassbox" not in pages[0]  # and never louder than the model's text
    assert "Thought (synth" not in text and "✅ Answer" not in text


def test_the_same_chain_in_chinese() -> None:
    text = shown(render_run(Transcript.from_events(weather_run()), "zh"))

    for piece in ("🔎 2 轮 · weather · calculator", "第 1 轮",
                  "💭 思考：I need the current weather.", "🔧 行动", "👀 观察 ✅", "第 2 轮",
                  "📝 由 Glassbox 补写：", "💬 回答",
                  "⏱ 3.2 秒 · 2 轮 · 2 次工具调用"):
        assert piece in text


def test_while_running_a_pending_observation_and_a_working_line_show() -> None:
    t = Transcript.from_events(weather_run()[:5])

    text = shown(render_run(t, "en"))

    assert '🔧 Action weather(city="Hangzhou")\n👀 Observation ⏳' in text
    assert text.endswith("⏳ Working…")
    assert shown(render_run(t, "zh")).endswith("⏳ 正在思考…")


def test_a_streaming_answer_shows_as_a_draft_with_its_formatting() -> None:
    t = react(AnswerDelta(round=1, text="It is **sunny** and"))

    page = render_run(t, "en")[0]

    assert "💬 Answer (writing…)\nIt is sunny and" in shown([page])
    assert "<b>sunny</b>" in page


def test_text_of_unknown_role_is_neutral_then_becomes_the_thought() -> None:
    draft = react(TextDelta(round=1, text="Let me **look** it up."))
    t = react(TextDelta(round=1, text="Let me **look** it up."),
              Thought(round=1, text="Let me look it up."),
              Action(round=1, call_id="c", tool="weather", arguments={"city": "Hangzhou"}))

    before, after = shown(render_run(draft, "en")), shown(render_run(t, "en"))

    assert "Round 1 —\n✍️ Let me look it up.\n\n⏳ Working…" in before
    assert "Answer" not in before and "Thought" not in before and "📝" not in before
    assert "💭 Thought: Let me look it up.\n🔧 Action" in after
    assert "Answer" not in after and "✍️" not in after
    assert after.count("Let me look it up.") == 1


def test_long_observations_are_shortened_live_and_whole_in_show() -> None:
    long = "Hangzhou is the capital of Zhejiang. " * 40
    t = react(Action(round=1, call_id="c", tool="wikipedia", arguments={"title": "Hangzhou"}),
              Observation(round=1, call_id="c", tool="wikipedia", text=long, ok=True,
                          duration_ms=1500))

    live = render_run(t, "en")
    full = render_run(t, "en", live=False)

    assert long not in shown(live)
    assert f"({len(long):,} chars in all" in shown(live)
    assert f"…</blockquote><i>({len(long):,} chars in all" in live[0]  # seen, not folded
    assert "<blockquote expandable>Hangzhou is the capital" in live[0]
    assert long in shown(full)
    assert "<blockquote expandable>" in full[0]


def test_a_failed_tool_is_marked() -> None:
    t = react(Action(round=1, call_id="c", tool="fx", arguments="{bad json"),
              Observation(round=1, call_id="c", tool="fx", text="The arguments are not valid",
                          ok=False, duration_ms=0))

    assert "🔧 Action fx({bad json)\n👀 Observation ⚠️ 0 ms" in shown(render_run(t, "en"))


def test_errors_stops_and_the_step_limit_are_marked_with_their_reason() -> None:
    quota = react(finished("error", "The model service's quota is used up."))
    stopped = react(Action(round=1, call_id="c", tool="weather", arguments={}),
                    finished("cancelled", "Stopped."))
    limit = react(Answer(round=7, text="Best guess."), finished("max_rounds", rounds=7))

    assert shown(render_run(quota, "en")).endswith("❌ The model service's quota is used up.")
    stopped_text = shown(render_run(stopped, "en"))
    assert stopped_text.endswith("⏹ Stopped.")
    assert "👀 Observation —" in stopped_text  # no result, and no hourglass
    limit_text = shown(render_run(limit, "zh"))
    assert "⏱ 3.2 秒 · 7 轮（最后一轮不用工具） · 2 次工具调用\n⚠️ 已达到轮数上限" in limit_text
    assert "🔎 7 轮（最后一轮不用工具） · 未用工具" not in limit_text  # nothing to fold


def test_a_notice_from_the_bot_replaces_the_working_line() -> None:
    t = react(Thought(round=1, text="Checking."))
    t.notice = "Interrupted by a restart."

    text = shown(render_run(t, "en"))

    assert text.endswith("⚠️ Interrupted by a restart.")
    assert "Working" not in text


def test_a_plain_run_has_no_round_headings() -> None:
    t = Transcript.from_events([
        RunStarted(round=0, mode="plain", question="What is 2+2?", model="m"),
        Thought(round=1, text="Simple sum."), AnswerDelta(round=1, text="4"),
        Answer(round=1, text="4"), finished(rounds=1)])

    text = shown(render_run(t, "en"))

    assert "Round" not in text
    assert "💭 Thought: Simple sum.\n\n💬 Answer\n4" in text
    assert text.endswith("⏱ 3.2 s · 1 round")


def test_hostile_text_everywhere_is_escaped_and_shown_literally() -> None:
    hostile = '<b>x</b></blockquote>&amp; <a href="javascript:1">`**'
    t = react(Thought(round=1, text=hostile),
              Action(round=1, call_id="c", tool="echo", arguments={"q": hostile}),
              Observation(round=1, call_id="c", tool="echo", text=hostile, ok=True,
                          duration_ms=1),
              Answer(round=2, text=hostile), finished("error", hostile), question=hostile)
    t.notice = hostile

    for live in (True, False):
        text = shown(render_run(t, "en", live=live))  # parse_html raises on broken markup
        # question, thought, observation, answer (unclosed ` and ** stay), reason, notice
        assert text.count(hostile) == 6


def test_bidi_zero_width_and_emoji_only_questions_render() -> None:
    for question in ("\u202eالطقس\u202c؟\u200f\u200b", "😀😀😀👨‍👩‍👧", "\u2066\u2069\ufeff"):
        t = react(Answer(round=1, text=question), finished(rounds=1), question=question)
        pages = render_run(t, "en")

        assert len(pages) == 1
        assert shown(pages).count(question) == 2


def test_a_10000_character_answer_continues_on_more_pages_losing_nothing() -> None:
    answer = " ".join(f"word{i}" for i in range(1700))
    assert len(answer) > 14_000
    t = react(Answer(round=1, text=answer), finished(rounds=1))

    pages = render_run(t, "en")

    sizes = [utf16_len(parse_html(p).text) for p in pages]
    assert len(pages) == 4
    assert all(4000 < size <= 4096 for size in sizes[:-1])  # cut at a space near the limit
    assert pages[0].startswith("❓ <b>Weather in Hangzhou?</b>")
    joined = "".join(to_plain(unmarked(p)) for p in pages)
    assert answer in joined
    assert joined.endswith("⏱ 3.2 s · 1 round · 2 tool calls")


def test_emoji_count_two_units_and_are_never_split_between_pages() -> None:
    answer = "😀" * 3000  # 6,000 UTF-16 units, no spaces to break at
    t = react(Answer(round=1, text=answer), finished(rounds=1))

    pages = render_run(t, "en")

    assert len(pages) == 2
    assert all(utf16_len(parse_html(p).text) <= 4096 for p in pages)  # also valid UTF-8
    assert "".join(to_plain(unmarked(p)) for p in pages).count("😀") == 3000


def test_an_emoji_streamed_in_two_halves_is_sent_whole() -> None:
    # A server that escapes an emoji as two \\u escapes may split them across chunks.
    t = react(AnswerDelta(round=1, text="Sunny \ud83d"), AnswerDelta(round=1, text="\ude00!"))

    page = render_run(t, "en")[0]

    assert "Sunny 😀!" in parse_html(page).text  # parse_html also needs valid UTF-8


def test_a_long_chinese_answer_breaks_after_punctuation() -> None:
    sentence = "杭州今天晴，气温二十五度，适合出门散步。"
    answer = sentence * 400  # 8,000 characters, no spaces or line breaks
    t = react(Answer(round=1, text=answer), finished(rounds=1), question="杭州天气？")

    pages = render_run(t, "zh")

    assert len(pages) >= 2
    texts = [parse_html(unmarked(p)).text for p in pages]
    assert all(utf16_len(text) <= 4096 for text in texts)
    assert texts[0].endswith(("。", "，"))
    assert answer in "".join(texts)


def test_a_code_block_straddling_the_page_limit_is_closed_and_reopened() -> None:
    code = "\n".join(f"print({i} < {i + 1})  # line {i}" for i in range(300))
    answer = "Here is the program:\n\n```python\n" + code + "\n```\n\n**Done.**"
    t = react(Answer(round=1, text=answer), finished(rounds=1))

    pages = render_run(t, "en")

    assert len(pages) >= 2
    for page in pages:
        assert '<pre><code class="language-python">' in page
        assert parse_html(page)  # balanced: every page closes the block it opened
    joined = "".join(to_plain(unmarked(p)) for p in pages)
    assert code in joined
    assert joined.index(code) < joined.index("Done.")


def test_a_long_observation_in_show_is_split_inside_its_quote() -> None:
    observation = "\n".join(f"row {i}: <data> & more" for i in range(600))
    t = react(Action(round=1, call_id="c", tool="db", arguments={}),
              Observation(round=1, call_id="c", tool="db", text=observation, ok=True,
                          duration_ms=10), Answer(round=2, text="Done."), finished())

    pages = render_run(t, "en", live=False)

    assert len(pages) >= 3
    assert all(p.count("<blockquote expandable>") == 1 for p in pages[:-1])
    assert observation in "".join(to_plain(unmarked(p)) for p in pages)
    assert len(render_run(t, "en")) == 1  # live: shortened


def compare_lanes(judgement: str = "") -> tuple[Transcript, Transcript]:
    plain = Transcript.from_events([
        RunStarted(round=0, mode="plain", question="Weather in Hangzhou?", model="qwen-plus"),
        Answer(round=1, text="I cannot know the *current* weather."),
        RunFinished(round=1, status="done", usage=Usage(20, 10, 30), duration_ms=1200,
                    rounds=1, tool_calls=0)])
    events = weather_run()
    if judgement:
        events.append(Judgement(round=0, text=judgement, usage=Usage(80, 20, 100)))
    return plain, Transcript.from_events(events)


def test_compare_shows_both_answers_first_then_the_difference_then_the_folded_chain() -> None:
    plain, react_run = compare_lanes("They differ: with tools it looked up 25 °C.")
    pages = render_compare(plain, react_run, "en")
    text = shown(pages)

    order = ["❓ Weather in Hangzhou?", "🧠 Model alone, no tools", "I cannot know the current",
             "🔍 ReAct, with tools", "It is sunny, 25 °C (77 °F).",
             "⚖️ The model's judgement: They differ: with tools it looked up 25 °C.",
             "📊 No tools → ReAct: rounds 1 → 2 · tool calls 0 → 2 · seconds 1.2 → 3.2 · "
             "tokens 30 → 150", "🔗 The ReAct chain", "Round 1", "weather(city=\"Hangzhou\")"]
    positions = [text.index(piece) for piece in order]
    assert positions == sorted(positions)
    chain = pages[-1][pages[-1].index("The ReAct chain"):]
    assert chain.count("<blockquote expandable>") == 1 and "<blockquote>" not in chain
    assert "Round 1" in chain[chain.index("<blockquote expandable>"):]  # folded, a tap away
    replayed = render_compare(plain, react_run, "en", live=False)  # /show: the chain open
    assert "<blockquote expandable>" not in replayed[-1].split("The ReAct chain")[1][:40]
    zh = shown(render_compare(plain, react_run, "zh"))
    assert ("📊 无工具 → ReAct：轮数 1 → 2 · 工具调用 0 → 2 · 用时（秒）1.2 → 3.2 · "
            "token 30 → 150") in zh
    assert "⚖️ 模型的评判：" in zh and "🔗 ReAct 的过程" in zh


def test_compare_without_a_judgement_keeps_the_cost_line_alone() -> None:
    plain, react_run = compare_lanes()
    text = shown(render_compare(plain, react_run, "en"))
    assert "⚖️" not in text and "📊 No tools → ReAct" in text
    waiting = shown(render_compare(plain, react_run, "en", judging=True))
    assert "⚖️ Asking the model how the answers differ…" in waiting


def test_compare_while_one_side_runs_has_no_summary_yet() -> None:
    plain = Transcript.from_events([
        RunStarted(round=0, mode="plain", question="q", model="m"), Answer(round=1, text="A"),
        finished(rounds=1)])
    running = Transcript.from_events(weather_run()[:3])

    text = shown(render_compare(plain, running, "en"))

    assert "📊" not in text and "⚖️" not in text
    assert "🔍 ReAct, with tools\n⏳ Working…" in text
    assert text.endswith("🔧 Action weather(city=\"Hangzhou\")\n👀 Observation ⏳")  # open


def test_to_plain_and_utf16_len() -> None:
    assert to_plain("<b>a &lt;b&gt; &amp;</b> <a href=\"https://x\">l</a>") == "a <b> & l"
    assert utf16_len("a😀中") == 4
    assert utf16_len("👨‍👩‍👧") == 8


def test_a_long_answer_is_paged_at_paragraphs_marked_and_never_ends_a_page_on_a_heading(
) -> None:
    paragraph = ("ReAct interleaves reasoning and acting: each round the model writes what it "
                 "thinks, then decides whether to call a tool. ") * 3
    answer = "\n\n".join(f"## Part {n}\n\n{paragraph}\n\n{paragraph}" for n in range(1, 13))
    t = Transcript.from_events([
        RunStarted(round=0, mode="react", question="Explain ReAct.", model="m"),
        Answer(round=1, text=answer), finished(rounds=1)])
    pages = render_run(t, "en")

    assert len(pages) >= 3
    for n, page in enumerate(pages, 1):
        assert page.endswith(f"\n\n<i>({n}/{len(pages)})</i>")
        assert utf16_len(parse_html(page).text) <= 4096
    for page in pages[:-1]:
        body = parse_html(unmarked(page)).text.rstrip()
        assert body.endswith("a tool."), body[-80:]  # a whole paragraph, not a cut line
        assert not body.endswith(tuple(f"Part {n}" for n in range(13)))
    joined = "".join(to_plain(unmarked(p)) for p in pages)
    assert joined.count("Part ") == 12 and joined.count("ReAct interleaves") == 72


def test_a_page_break_moves_before_a_heading_that_would_end_the_page() -> None:
    spans = [("a" * 50 + "\n\n", ()), ("b" * 30 + "\n\n", ()), ("Heading", (B,)),
             ("\n\n" + "c" * 40, ())]
    first, second = paginate(spans, 100)
    assert "".join(text for text, _ in first).rstrip() == "a" * 50 + "\n\n" + "b" * 30
    assert second[0] == ("Heading", (B,))
