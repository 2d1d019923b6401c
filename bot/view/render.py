"""A transcript as Telegram HTML pages: the chain, the answer and a footer.

A pure function of the transcript, so the live message, `/show` and the tests draw a run
the same way. Pages hold at most 4,096 UTF-16 units of visible text; a long chain goes on
in further pages and nothing visible is ever dropped. What the user, the model or a tool
wrote has its long runs of blank lines and spaces cut short (`squeeze`) before it is drawn.
"""

from __future__ import annotations

from agent.prompts import args_text
from agent.summary import difference, figures, seconds
from bot.view.i18n import phrase
from bot.view.markdown import md_spans
from bot.view.spans import (
    CODE,
    QUOTE,
    QUOTE_EXPANDABLE,
    B,
    I,
    Span,
    paginate,
    squeeze,
    to_html,
)
from bot.view.step_view import decision_spans
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
    out.append((phrase(lang, "compare_plain"), (B,)))
    _run_body(out, plain, lang, live)
    out.append(("\n\n", ()))
    out.append((phrase(lang, "compare_react"), (B,)))
    _run_body(out, react, lang, live)
    if plain.finished and react.finished:
        out.append(("\n\n", ()))
        out.append(("📊 " + difference(plain.finished, react.finished, lang), ()))
    return _pages(out)


def _pages(out: list[Span]) -> list[str]:
    return [to_html(page) for page in paginate(out)]


def _question(out: list[Span], question: str) -> None:
    out.append(("❓ ", ()))
    out.append((squeeze(question), (B,)))


def _run_body(out: list[Span], t: Transcript, lang: str, live: bool) -> None:
    running = t.finished is None and not t.notice
    if t.plan:
        _plan(out, t, lang)
    for view in t.rounds:
        if not (view.thought or view.steps or view.notes):
            continue
        out.append(("\n\n", ()))
        if t.mode == "react":
            heading = phrase(lang, "chain_round", n=view.number)
            out.append((f"— {heading} —", (B,)))
            out.append(("\n", ()))
        _round(out, view, lang, live, running)
    if t.answer:
        _answer(out, t, lang, running)
    _footer(out, t, lang, live, running)


def _plan(out: list[Span], t: Transcript, lang: str) -> None:
    out.append(("\n\n📋 ", ()))
    out.append((phrase(lang, "chain_plan"), (B,)))
    for step, done in t.checklist():
        name = phrase(lang, "chain_plan_answer") if step.tool == "finish" else step.tool
        out.append(("\n☑ " if done else "\n☐ ", ()))
        out.append((name, (CODE,) if step.tool != "finish" else (B,)))
        if step.why:
            out.append((f" — {squeeze(step.why)}", ()))


def _round(out: list[Span], view: RoundView, lang: str, live: bool, running: bool) -> None:
    for note in view.notes:
        out.append(("📝 ", ()))
        out.append((phrase(lang, "chain_glassbox_note"), (B,)))
        out.append((f" {squeeze(note)}\n", (I,)))
    if view.thought:
        out.append(("💭 ", ()))
        out.append((phrase(lang, "chain_thought"), (B,)))
        if view.synthesized:
            out.append((phrase(lang, "chain_synthesised"), (I,)))
        _thought(out, view.thought, (I,) if view.synthesized else (), lang)
    need_break = bool(view.thought)
    for step in view.steps:
        if need_break:
            out.append(("\n", ()))
        need_break = True
        _step(out, step, lang, live, running)


def _step(out: list[Span], step: ToolStep, lang: str, live: bool, running: bool) -> None:
    out.append(("🔧 ", ()))
    out.append((phrase(lang, "chain_action"), (B,)))
    out.append((" ", ()))
    out.append((f"{step.tool}({squeeze(args_text(step.arguments))})", (CODE,)))
    if decided := decision_spans(step, lang):
        out.append(("\n", ()))
        out.extend(decided)
    if step.awaiting or step.decision == "stop":
        return
    out.append(("\n👀 ", ()))
    out.append((phrase(lang, "chain_observation"), (B,)))
    if step.observation is None:
        out.append((" ⏳" if running else " —", ()))
        return
    mark = "✅" if step.ok else "⚠️"
    out.append((f" {mark} {seconds(step.duration_ms, lang)}", ()))
    text = squeeze(step.observation)
    if not text:
        out.append(("\n", ()))
        out.append((phrase(lang, "chain_empty"), (I,)))
        return
    out.append(("\n", ()))
    if not live or len(text) <= LIVE_OBSERVATION_CHARS:
        quote = QUOTE_EXPANDABLE if len(text) > FOLD_CHARS else QUOTE
        out.append((text, (quote,)))
        return
    out.append((text[:LIVE_OBSERVATION_CHARS].rstrip() + "…", (QUOTE_EXPANDABLE,)))
    note = phrase(lang, "chain_cut", chars=len(text))
    out.append((note, (QUOTE_EXPANDABLE, I)))


def _thought(out: list[Span], text: str, tags: tuple[str, ...], lang: str) -> None:
    """On the heading's line when short, in a collapsed quote when long (a thinking model's
    reasoning can run to pages; it stays whole, one tap away)."""
    text = squeeze(text)
    if len(text) > FOLD_CHARS:
        out.append(("\n", ()))
        out.append((text, (QUOTE_EXPANDABLE, *tags)))
    else:
        out.append((phrase(lang, "chain_colon"), ()))
        out.append((text, tags))


def _answer(out: list[Span], t: Transcript, lang: str, running: bool) -> None:
    out.append(("\n\n", ()))
    if t.answer_final:
        out.append(("✅ ", ()))
        out.append((phrase(lang, "chain_answer"), (B,)))
    else:
        out.append(("✍️ ", ()))
        out.append((phrase(lang, "chain_answer"), (B,)))
        state = phrase(lang, "chain_writing" if running else "chain_incomplete")
        out.append((state, (I,)))
    out.append(("\n", ()))
    out.extend(md_spans(squeeze(t.answer), draft=not t.answer_final))
    if t.unparsed:
        out.append(("\n", ()))
        out.append((phrase(lang, "chain_unparsed"), (I,)))


def _footer(out: list[Span], t: Transcript, lang: str, live: bool, running: bool) -> None:
    done = t.finished
    if done is not None:
        out.append(("\n\n", ()))
        if done.status == "error":
            out.append(("❌ " + (done.reason or phrase(lang, "chain_failed")), ()))
        elif done.status == "cancelled":
            out.append(("⏹ " + (done.reason or phrase(lang, "chain_stopped")), ()))
        else:
            out.append(("⏱ " + figures(done, lang), (I,)))
            if done.status == "max_rounds":
                limit = phrase(lang, "chain_step_limit")
                out.append(("\n⚠️ " + (done.reason or limit), ()))
    if t.notice:
        out.append(("\n\n⚠️ " + t.notice, ()))
    elif running and live:
        out.append(("\n\n", ()))
        out.append((phrase(lang, "chain_working"), (I,)))
    elif done is None:
        out.append(("\n\n", ()))
        out.append((phrase(lang, "chain_unfinished"), (I,)))
