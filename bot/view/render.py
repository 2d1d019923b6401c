"""A transcript as Telegram HTML pages: the chain, the answer and a footer.

A pure function of the transcript, so the live message, `/show` and the tests draw a run
the same way. Pages hold at most 4,096 UTF-16 units of visible text; a long chain goes on
in further pages and nothing is ever dropped.
"""

from __future__ import annotations

from agent.lang import pick
from agent.prompts import args_text
from agent.summary import difference, figures, seconds
from bot.view.markdown import md_spans
from bot.view.spans import CODE, QUOTE, QUOTE_EXPANDABLE, B, I, Span, paginate, to_html
from bot.view.transcript import RoundView, ToolStep, Transcript, View

LIVE_OBSERVATION_CHARS = 300
"""Longer observations are shortened in the live view (the transcript keeps them whole)."""
FOLD_CHARS = 300
"""Longer thoughts and observations go in a collapsed (expandable) blockquote."""


def render_view(view: View, *, live: bool) -> list[str]:
    """A run's pages: one lane as a chain, a compare run's two lanes together."""
    if view.mode == "compare":
        return render_compare(view.lanes["plain"], view.lanes["react"], view.lang, live=live)
    return render_run(view.lanes["main"], view.lang, live=live)


def render_run(t: Transcript, lang: str, *, live: bool = True) -> list[str]:
    """HTML pages (parse_mode=HTML) of one run, the question first."""
    out: list[Span] = []
    _question(out, t.question)
    _run_body(out, t, lang, live)
    return _pages(out)


def render_compare(plain: Transcript, react: Transcript, lang: str, *,
                   live: bool = True) -> list[str]:
    """The no-tools answer, then the ReAct chain and its answer, then (when both are done)
    one line that sums up the difference."""
    out: list[Span] = []
    _question(out, react.question or plain.question)
    out.append(("\n\n", ()))
    out.append((pick(lang, "🧠 仅模型，不用工具", "🧠 Model alone, no tools"), (B,)))
    _run_body(out, plain, lang, live)
    out.append(("\n\n", ()))
    out.append((pick(lang, "🔍 ReAct，使用工具", "🔍 ReAct, with tools"), (B,)))
    _run_body(out, react, lang, live)
    if plain.finished and react.finished:
        out.append(("\n\n", ()))
        out.append(("📊 " + difference(plain.finished, react.finished, lang), ()))
    return _pages(out)


def _pages(out: list[Span]) -> list[str]:
    return [to_html(page) for page in paginate(out)]


def _question(out: list[Span], question: str) -> None:
    out.append(("❓ ", ()))
    out.append((question, (B,)))


def _run_body(out: list[Span], t: Transcript, lang: str, live: bool) -> None:
    running = t.finished is None and not t.notice
    if t.plan:
        _plan(out, t, lang)
    for view in t.rounds:
        if not (view.thought or view.steps):
            continue
        out.append(("\n\n", ()))
        if t.mode == "react":
            heading = pick(lang, f"第 {view.number} 轮", f"Round {view.number}")
            out.append((f"— {heading} —", (B,)))
            out.append(("\n", ()))
        _round(out, view, lang, live, running)
    if t.answer:
        _answer(out, t, lang, running)
    _footer(out, t, lang, live, running)


def _plan(out: list[Span], t: Transcript, lang: str) -> None:
    out.append(("\n\n📋 ", ()))
    out.append((pick(lang, "计划", "Plan"), (B,)))
    for step, done in t.checklist():
        name = pick(lang, "作答", "answer") if step.tool == "finish" else step.tool
        out.append(("\n☑ " if done else "\n☐ ", ()))
        out.append((name, (CODE,) if step.tool != "finish" else (B,)))
        if step.why:
            out.append((f" — {step.why}", ()))


def _round(out: list[Span], view: RoundView, lang: str, live: bool, running: bool) -> None:
    if view.thought:
        out.append(("💭 ", ()))
        out.append((pick(lang, "思考", "Thought"), (B,)))
        if view.synthesized:
            out.append((pick(lang, "（推断）", " (synthesised)"), (I,)))
        _thought(out, view.thought, (I,) if view.synthesized else (), lang)
    need_break = bool(view.thought)
    for step in view.steps:
        if need_break:
            out.append(("\n", ()))
        need_break = True
        _step(out, step, lang, live, running)


def _step(out: list[Span], step: ToolStep, lang: str, live: bool, running: bool) -> None:
    out.append(("🔧 ", ()))
    out.append((pick(lang, "行动", "Action"), (B,)))
    out.append((" ", ()))
    out.append((f"{step.tool}({args_text(step.arguments)})", (CODE,)))
    out.append(("\n👀 ", ()))
    out.append((pick(lang, "观察", "Observation"), (B,)))
    if step.observation is None:
        out.append((" ⏳" if running else " —", ()))
        return
    mark = "✅" if step.ok else "⚠️"
    out.append((f" {mark} {seconds(step.duration_ms, lang)}", ()))
    text = step.observation
    if not text:
        out.append(("\n", ()))
        out.append((pick(lang, "（空）", "(empty)"), (I,)))
        return
    out.append(("\n", ()))
    if not live or len(text) <= LIVE_OBSERVATION_CHARS:
        quote = QUOTE_EXPANDABLE if len(text) > FOLD_CHARS else QUOTE
        out.append((text, (quote,)))
        return
    out.append((text[:LIVE_OBSERVATION_CHARS].rstrip() + "…", (QUOTE_EXPANDABLE,)))
    note = pick(lang, f"（共 {len(text):,} 字，/show 可看全文）",
                f" ({len(text):,} chars in all; /show shows every one)")
    out.append((note, (QUOTE_EXPANDABLE, I)))


def _thought(out: list[Span], text: str, tags: tuple[str, ...], lang: str) -> None:
    """On the heading's line when short, in a collapsed quote when long (a thinking model's
    reasoning can run to pages; it stays whole, one tap away)."""
    if len(text) > FOLD_CHARS:
        out.append(("\n", ()))
        out.append((text, (QUOTE_EXPANDABLE, *tags)))
    else:
        out.append((pick(lang, "：", ": "), ()))
        out.append((text, tags))


def _answer(out: list[Span], t: Transcript, lang: str, running: bool) -> None:
    out.append(("\n\n", ()))
    if t.answer_final:
        out.append(("✅ ", ()))
        out.append((pick(lang, "回答", "Answer"), (B,)))
    else:
        out.append(("✍️ ", ()))
        out.append((pick(lang, "回答", "Answer"), (B,)))
        state = pick(lang, "（生成中…）", " (writing…)") if running else pick(
            lang, "（未完成）", " (incomplete)")
        out.append((state, (I,)))
    out.append(("\n", ()))
    out.extend(md_spans(t.answer))
    if t.unparsed:
        out.append(("\n", ()))
        out.append((pick(lang, "（模型未按格式作答，以上为原文）",
                         "(The model did not follow the format; this is its raw text.)"), (I,)))


def _footer(out: list[Span], t: Transcript, lang: str, live: bool, running: bool) -> None:
    done = t.finished
    if done is not None:
        out.append(("\n\n", ()))
        if done.status == "error":
            out.append(("❌ " + (done.reason or pick(lang, "出错了。", "Failed.")), ()))
        elif done.status == "cancelled":
            out.append(("⏹ " + (done.reason or pick(lang, "已停止。", "Stopped.")), ()))
        else:
            out.append(("⏱ " + figures(done, lang), (I,)))
            if done.status == "max_rounds":
                limit = pick(lang, "已达到步骤上限", "Step limit reached")
                out.append(("\n⚠️ " + (done.reason or limit), ()))
    if t.notice:
        out.append(("\n\n⚠️ " + t.notice, ()))
    elif running and live:
        out.append(("\n\n", ()))
        out.append((pick(lang, "⏳ 正在思考…", "⏳ Working…"), (I,)))
    elif done is None:
        out.append(("\n\n", ()))
        out.append((pick(lang, "⚠️ 这次运行没有结束。", "⚠️ This run did not finish."), (I,)))
