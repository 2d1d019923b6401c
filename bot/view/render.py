"""A transcript as Telegram HTML pages: the chain, the answer and a footer.

A pure function of the transcript, so the live message, `/show` and the tests draw a run
the same way. Marks mean one thing each: 💭 the model's Thought, 📝 Glassbox's own remark,
✍️ text whose role is not known yet, 💬 the Answer, ✅/⚠️ whether a call worked. A finished
run in the chat folds its chain into one expandable quote under a one-line summary, so the
question, the summary and the answer fit on a screen; `/show` keeps the chain open.

Pages hold at most 4,096 UTF-16 units of visible text; a long chain goes on in further
pages and nothing visible is ever dropped. What the user, the model or a tool wrote has its
long runs of blank lines and spaces cut short (`squeeze`) before it is drawn.
"""

from __future__ import annotations

from agent.classroom.remarks import remark_label
from agent.classroom.summary import approx, difference, figures, seconds
from agent.events import ObservationFailure
from agent.prompts import args_text
from bot.view.alignment import align
from bot.view.differences import Drawn, compared_answers, to_span_marks
from bot.view.grounding_marks import MARK, marked, status, unfounded_line
from bot.view.i18n import (
    answer_heading,
    ending_line,
    phrase,
    plural,
    side_heading,
    sides_text,
)
from bot.view.markdown import md_spans
from bot.view.pause_view import decision_spans
from bot.view.quiz_view import class_record, vote_spans, voting_now
from bot.view.read_view import read_spans
from bot.view.spans import (
    CODE,
    PAGE_LIMIT,
    QUOTE,
    QUOTE_EXPANDABLE,
    B,
    I,
    Span,
    paginate,
    squeeze,
    to_html,
)
from bot.view.transcript import CallView, RoundView, Transcript, View

_NEVER_RAN = (ObservationFailure.SKIPPED, ObservationFailure.NOT_RUN)

LIVE_OBSERVATION_CHARS = 300
"""Longer observations are shortened in the live view (the transcript keeps them whole)."""
FOLD_CHARS = 300
"""Longer thoughts and observations go in a collapsed (expandable) blockquote."""


def render_view(view: View, *, live: bool, marks: bool = True) -> list[str]:
    """A run's pages: one lane as a chain, a compare run's two lanes together. `marks`:
    several pages are marked (1/2), (2/2)… (a run drawn only in part has no such count)."""
    if len(view.lanes) == 2:
        first, second = view.lanes.values()
        return render_compare(first, second, view.lang, live=live, judging=view.judging,
                              marks=marks, number=view.number)
    return render_run(view.lanes["main"], view.lang, live=live, marks=marks,
                      number=view.number)


def render_run(t: Transcript, lang: str, *, live: bool = True, marks: bool = True,
               number: int | None = None) -> list[str]:
    """HTML pages (parse_mode=HTML) of one run, the question first; `number` is the run's
    number in its chat, named in the footer once known."""
    out: list[Span] = []
    _question(out, t.question)
    out.extend(read_spans(t.reads, lang))
    _run_body(out, t, lang, live, number)
    return _pages(out, marks)


def render_compare(plain: Transcript, react: Transcript, lang: str, *,
                   live: bool = True, judging: bool = False, marks: bool = True,
                   number: int | None = None) -> list[str]:
    """What a class looks at first: the two answers (🧠 the model alone, 🔍 with tools; or
    two stored runs, each labelled with its number, asker and date), then the model's
    judgement of how they differ (⚖️, once both are done), then what each cost (📊), then
    the ReAct chain (two stored runs: both chains, aligned round by round), folded once it
    is finished (open while it runs, and in /show)."""
    out: list[Span] = []
    _question(out, react.question or plain.question)
    out.extend(read_spans(react.reads, lang))
    by = react.answer_model  # LLM_ANSWER_MODEL wrote both answers: each label names it
    texts = compared_answers(plain, react)
    copies = bool(plain.side_name and react.side_name)  # two runs, each with its chain
    for label, t, text in (("compare_plain", plain, texts[0]), ("compare_react", react, texts[1])):
        out.append(("\n\n", ()))
        out.append((side_heading(t, lang) or phrase(lang, label), (B,)))
        if by and by in (t.answer_model, t.model) and not copies:
            out.append((phrase(lang, "compare_written_by", model=by), (I,)))
        _lane_answer(out, t, lang, live, text)
    if react.judgement:
        out.append(("\n\n⚖️ ", ()))
        out.append((phrase(lang, "compare_judgement"), (B,)))
        out.append((react.judgement, ()))
    elif judging and live:
        out.append(("\n\n", ()))
        out.append((phrase(lang, "compare_judging"), (I,)))
    if plain.finished and react.finished:
        out.append(("\n\n📊 " + difference(plain.finished, react.finished, lang,
                                            sides_text(plain.side_name, react.side_name)), ()))
    if copies:
        out.append(("\n\n🔗 ", ()))
        out.append((phrase(lang, "compare_rounds"), (B,)))
        aligned = _lines_after_heading(_aligned(plain, react, lang, live))
        out.extend(_folded(aligned) if live else aligned)
    elif react.rounds or react.plan:
        out.append(("\n\n🔗 ", ()))
        out.append((phrase(lang, "compare_chain"), (B,)))
        if react.finished is not None:
            out.append((" · " + chain_summary(react, lang), ()))
        chain: list[Span] = []
        running = react.finished is None and not react.notice
        if react.plan:
            _plan(chain, react, lang)
        _rounds(chain, react, lang, live, running)
        chain = _lines_after_heading(chain)
        out.extend(_folded(chain) if react.finished is not None and live else chain)
    if number and plain.finished and react.finished:
        out.append(("\n\n" + _names(number), ()))
    notice = react.notice or plain.notice
    if notice:
        out.append(("\n\n⚠️ " + notice, ()))
    return _pages(out, marks)


ALIGNED_ROUNDS = 12
"""Rounds of two aligned chains drawn in the chat (and the first differing one, if later):
two runs of thousands of rounds would fill a hundred messages. The export has them all."""


def _aligned(left: Transcript, right: Transcript, lang: str, live: bool) -> list[Span]:
    """Two stored runs' chains round by round: round N of one beside round N of the other
    (one after the other, in a chat), a gap where a side has no such round, the first
    differing action marked ⚡; the first ALIGNED_ROUNDS rounds, and the first differing
    one."""
    aligned = align(left, right)
    first = aligned.first
    out: list[Span] = [("\n", ())]
    if first is None:
        out.append((phrase(lang, "compare_same_moves"), (I,)))
    rows = list(range(min(len(aligned.rows), ALIGNED_ROUNDS)))
    if first is not None and first[0] >= ALIGNED_ROUNDS:
        rows.append(first[0])
    for row in rows:
        pair = aligned.rows[row]
        if rows.index(row) and row != rows[rows.index(row) - 1] + 1:
            out.append(("\n\n…", ()))
        number = next(r.number for r in pair if r is not None)
        out.append(("\n\n", ()))
        out.append((f"— {phrase(lang, 'chain_round', n=number)} —", (B,)))
        for t, rnd in zip((left, right), pair, strict=True):
            out.append((f"\n▸ {t.side_name} ", (B,)))
            if rnd is None:
                out.append((phrase(lang, "compare_gap"), (I,)))
                continue
            out.append(("\n", ()))
            _round(out, t, rnd, lang, live, False,
                   flag=first[1] if first is not None and first[0] == row else None)
    if len(rows) < len(aligned.rows):
        out.append(("\n\n", ()))
        out.append((phrase(lang, "compare_more_rounds", n=len(aligned.rows) - len(rows)), (I,)))
    return out


def _names(number: int) -> str:
    """'#12 · /show 12 · /export 12': the run, and how to see all of it."""
    return f"#{number} · /show {number} · /export {number}"


def _lane_answer(out: list[Span], t: Transcript, lang: str, live: bool, drawn: Drawn) -> None:
    """One lane's answer under its label (`drawn`: with the digits that differ from the other
    answer's marked), or where the lane is: writing, working, failed."""
    running = t.finished is None and not t.notice
    if t.answer:
        out.append(("\n", ()))
        _answer_text(out, t, lang, live, drawn)
        if not t.answer_final:
            state = phrase(lang, "chain_writing" if running else "chain_incomplete")
            out.append((state.strip(), (I,)))
    elif running and live:
        out.append(("\n", ()))
        out.append((phrase(lang, "chain_working"), (I,)))
    done = t.finished
    ending = ending_line(done.status, done.reason, lang) if done is not None else ""
    if ending:
        out.append(("\n" + ending, ()))


def _answer_text(out: list[Span], t: Transcript, lang: str, live: bool,
                 drawn: Drawn | None = None) -> None:
    """The answer's text, its unbacked figures marked (in /compare, `drawn`: the digits that
    differ from the other answer's, underlined), and the line that names them; in /show (not
    live), the ledger too: what backs each figure, folded under the answer."""
    text, ledger = drawn or (t.answer, t.ledger)
    spans = md_spans(squeeze(marked(text, ledger, t.unfounded)), draft=not t.answer_final)
    out.extend(spans if drawn is None else to_span_marks(spans))
    line = unfounded_line(t, lang)
    if line:
        out.append(("\n", ()))
        out.append((line, (I,)))
    if not live and t.ledger:
        out.append(("\n🧾 ", ()))
        out.append((phrase(lang, "ledger_heading"), (B,)))
        rows = [(f"{e.text}{MARK if e.unbacked else ''} — {status(e, lang)}", ())
                for e in t.ledger]
        out.extend(_folded([("\n", ()), *_joined(rows)]))


def _joined(rows: list[Span]) -> list[Span]:
    return [piece for i, row in enumerate(rows) for piece in ((("\n", ()),) if i else ()) + (row,)]


def _lines_after_heading(spans: list[Span]) -> list[Span]:
    """`spans` starting on the line right under a heading: their leading blank lines go."""
    rest = [span for span in spans]
    while rest and not rest[0][0].strip():
        rest.pop(0)
    if rest:
        rest[0] = (rest[0][0].lstrip("\n"), rest[0][1])
    return [("\n", ()), *rest] if rest else []


def _folded(spans: list[Span]) -> list[Span]:
    """`spans` inside one collapsed (expandable) quote, a tap away. Telegram nests no quote
    in a quote: quotes inside become plain text lines of the fold."""
    return [(text, (QUOTE_EXPANDABLE, *(t for t in tags if not t.startswith("<blockquote"))))
            if text.strip() or i else (text, tags) for i, (text, tags) in enumerate(spans)]


PAGE_MARK_UNITS = 16
"""Room kept on every page for its mark, "\n\n(12/34)"."""


def _pages(out: list[Span], marks: bool = True) -> list[str]:
    """The pages of `out`, each marked (1/2), (2/2)… when there are several (`marks`)."""
    pages = [to_html(page) for page in paginate(out, PAGE_LIMIT - PAGE_MARK_UNITS)]
    if not marks or len(pages) < 2:
        return pages
    ends = [page.rstrip("\n") for page in pages]  # a page may end between paragraphs
    return [f"{page}\n\n<i>({n}/{len(pages)})</i>" for n, page in enumerate(ends, 1)]


def _question(out: list[Span], question: str) -> None:
    out.append(("❓ ", ()))
    out.append((squeeze(question), (B,)))


def _run_body(out: list[Span], t: Transcript, lang: str, live: bool,
              number: int | None) -> None:
    running = t.finished is None and not t.notice
    if t.plan:
        _plan(out, t, lang)
    chain: list[Span] = []
    _rounds(chain, t, lang, live, running)
    if live and t.answer_final and t.finished is not None and t.mode == "react" and chain:
        out.append(("\n\n🔎 ", ()))
        out.append((chain_summary(t, lang), (B,)))
        out.extend(_folded(_lines_after_heading(chain)))
    else:
        out.extend(chain)
    if t.answer:
        _answer(out, t, lang, running, live)
    _footer(out, t, lang, live, running, number)


def chain_summary(t: Transcript, lang: str) -> str:
    """'3 rounds · get_weather ×2 · ⚠️ 1 failed': what the chain did, in one line."""
    rounds = t.finished.rounds if t.finished else len(t.rounds)
    parts = [_rounds_text(rounds, t, lang)]
    calls: dict[str, int] = {}
    failed = 0
    for view in t.rounds:
        for call in view.calls:
            if call.failure in _NEVER_RAN:
                continue
            calls[call.tool] = calls.get(call.tool, 0) + 1
            failed += call.ok is False
    parts += [f"{tool} ×{n}" if n > 1 else tool for tool, n in calls.items()]
    if not calls:
        parts.append(phrase(lang, "chain_no_tools"))
    if failed:
        parts.append("⚠️ " + phrase(lang, "chain_failed_calls", n=failed))
    if record := class_record(t, lang):
        parts.append(record)
    return " · ".join(parts)


def _rounds_text(rounds: int, t: Transcript, lang: str) -> str:
    """'3 rounds', and why there is one round more than the cap allowed tools for."""
    text = plural(lang, "chain_rounds", rounds)
    if t.finished is not None and t.finished.status == "max_rounds":
        text += phrase(lang, "chain_last_forced")
    return text


def _rounds(out: list[Span], t: Transcript, lang: str, live: bool, running: bool) -> None:
    for view in t.rounds:
        if not view.shows:
            continue
        out.append(("\n\n", ()))
        if t.mode == "react":
            heading = phrase(lang, "chain_round", n=view.number)
            out.append((f"— {heading} —", (B,)))
            out.append(("\n", ()))
        _round(out, t, view, lang, live, running)


def _plan(out: list[Span], t: Transcript, lang: str) -> None:
    out.append(("\n\n📋 ", ()))
    out.append((phrase(lang, "chain_plan"), (B,)))
    for action, done in t.checklist():
        name = phrase(lang, "chain_plan_answer") if action.tool == "finish" else action.tool
        out.append(("\n☑ " if done else "\n☐ ", ()))
        out.append((name, (CODE,) if action.tool != "finish" else (B,)))
        if action.why:
            out.append((f" — {squeeze(action.why)}", ()))


def _round(out: list[Span], t: Transcript, view: RoundView, lang: str, live: bool,
           running: bool, flag: int | None = None) -> None:
    """One round's lines; `flag`: its move that is the first differing action of two
    aligned chains (one past its calls: the round answered instead), marked ⚡."""
    lines = 0
    if view.vote is not None:  # quiz mode: the class voted before the model was asked
        out.extend(vote_spans(t, view, lang))
        lines += 1
    if view.model_thought:
        if lines:
            out.append(("\n", ()))
        out.append(("💭 ", ()))
        out.append((phrase(lang, "chain_thought"), (B,)))
        _thought(out, view.model_thought, lang)
        lines += 1
    for i, call in enumerate(view.calls):
        if lines:
            out.append(("\n", ()))
        if i == flag:
            out.append((phrase(lang, "compare_first_differs") + "\n", (B,)))
        _call(out, call, lang, live, running)
        lines += 1
    if view.draft:
        if lines:
            out.append(("\n", ()))
        out.append(("✍️ ", ()))
        out.extend(md_spans(squeeze(view.draft), draft=True))
        lines += 1
    if view.glassbox_remark:  # after the model's own words: a fold's preview shows those
        _remark(out, view.glassbox_remark, lang, lines)
        lines += 1
    if flag is not None and flag >= len(view.calls):
        out.append(("\n" if lines else "", ()))
        out.append((phrase(lang, "compare_first_differs") + " · ", (B,)))
        out.append((phrase(lang, "compare_answered" if not view.calls else "compare_no_more"),
                    (I,)))


def _remark(out: list[Span], text: str, lang: str, lines: int) -> None:
    """Glassbox's own words, labelled as Glassbox's, never as the model's Thought; in italics
    and no bold, quieter than the model's text."""
    if lines:
        out.append(("\n", ()))
    out.append(("📝 " + remark_label(lang) + phrase(lang, "chain_colon") + squeeze(text), (I,)))


def _call(out: list[Span], call: CallView, lang: str, live: bool, running: bool) -> None:
    if call.failure == ObservationFailure.NOT_RUN:  # stands for all the calls not run
        out.append((f"⏭ {squeeze(call.observation or '')}", (I,)))
        return
    out.append(("🔧 ", ()))
    out.append((phrase(lang, "chain_action"), (B,)))
    out.append((" ", ()))
    out.append((f"{call.tool}({squeeze(args_text(call.arguments))})", (CODE,)))
    if decided := decision_spans(call, lang):
        out.append(("\n", ()))
        out.extend(decided)
    if call.awaiting or call.decision == "stop":
        return
    out.append(("\n👀 ", ()))
    out.append((phrase(lang, "chain_observation"), (B,)))
    if call.observation is None:
        out.append((" ⏳" if running else " —", ()))
        return
    mark = "✅" if call.ok else "⚠️"
    out.append((f" {mark} {seconds(call.duration_ms, lang)}", ()))
    text = squeeze(call.observation)
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
    out.append((phrase(lang, "chain_cut", chars=len(text)).strip(), (I,)))


def _thought(out: list[Span], text: str, lang: str) -> None:
    """On the heading's line when short, in a collapsed quote when long (a thinking model's
    reasoning can run to pages; it stays whole, one tap away)."""
    text = squeeze(text)
    if len(text) > FOLD_CHARS:
        out.append(("\n", ()))
        out.append((text, (QUOTE_EXPANDABLE,)))
    else:
        out.append((phrase(lang, "chain_colon"), ()))
        out.append((text, ()))


def _answer(out: list[Span], t: Transcript, lang: str, running: bool, live: bool) -> None:
    out.append(("\n\n💬 ", ()))
    out.append((answer_heading(t.answer_model, lang), (B,)))
    if not t.answer_final:
        state = phrase(lang, "chain_writing" if running else "chain_incomplete")
        out.append((state, (I,)))
    out.append(("\n", ()))
    _answer_text(out, t, lang, live)
    if t.unparsed:
        out.append(("\n", ()))
        out.append((phrase(lang, "chain_unparsed"), (I,)))


def _footer(out: list[Span], t: Transcript, lang: str, live: bool, running: bool,
            number: int | None) -> None:
    """How the run ended: '#12 · /show 12 · /export 12 · 3.2 s · 3 rounds · 2 tool calls'
    (tokens only in /show), or why it did not end well."""
    done = t.finished
    if done is not None:
        out.append(("\n\n", ()))
        if done.status in ("error", "cancelled"):
            out.append((ending_line(done.status, done.reason, lang), ()))
        else:
            if number:
                out.append((_names(number) + " · ", ()))
            if t.mode == "react":
                parts = [seconds(done.duration_ms, lang), _rounds_text(done.rounds, t, lang),
                         plural(lang, "chain_tool_calls", done.tool_calls)]
                if not live and done.usage.total_tokens:
                    parts.append(approx(done.usage)
                                 + plural(lang, "chain_tokens", done.usage.total_tokens))
                text = " · ".join(parts)
            else:
                text = figures(done, lang, tokens=not live)
            out.append(("⏱ " + text, (I,)))
            if done.status == "max_rounds":
                out.append(("\n" + ending_line(done.status, done.reason, lang), ()))
    if t.notice:
        out.append(("\n\n⚠️ " + t.notice, ()))
    elif running and live:
        out.append(("\n\n", ()))
        out.append((phrase(lang, "quiz_waiting" if voting_now(t) else "chain_working"), (I,)))
    elif done is None:
        out.append(("\n\n", ()))
        out.append((phrase(lang, "chain_unfinished"), (I,)))
