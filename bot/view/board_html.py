"""A run as HTML for the class board: a pure function of the folded transcript, beside the
Telegram renderer (render.py) and with the same labels, so the board shows what the chat does.

Nothing is cut for length (a projector has no 4,096-unit limit). Every step is its own
element numbered in its lane (`data-step`), so the board's script can hold back the next
step in reveal mode; Glassbox's own remarks are marked as Glassbox's, never as a Thought.
"""

from __future__ import annotations

import html
import itertools

from agent.classroom.remarks import remark_label
from agent.classroom.summary import difference, figures, seconds
from agent.prompts import args_text
from bot.store.records import RunRecord
from bot.view.alignment import align
from bot.view.differences import Drawn, compared_answers, to_html_marks
from bot.view.grounding_marks import ledger_html, unfounded_line
from bot.view.i18n import (
    answer_heading,
    ending_line,
    failure_label,
    lane_label,
    lang_code,
    mode_label,
    phrase,
    side_heading,
    sides_text,
    status_label,
)
from bot.view.markdown import md_to_html
from bot.view.pause_view import decision_spans
from bot.view.quiz_view import class_record, predicted, vote_html, voting_now
from bot.view.read_view import reads_html
from bot.view.spans import to_html
from bot.view.transcript import RoundView, Transcript, View


def board_run(record: RunRecord, view: View, status: str, lang: str, photos: str = "") -> str:
    """Run `record` (its state folded into `view`, `status` now) as one <article>; `photos`:
    where its photos are served (a number appended), "" for none.

    What tells how a run ends (its status, figures, judgement, cost) is marked `ending`: the
    board hides it while reveal mode holds steps back. A /compare puts the two answers side by
    side first, then the model's judgement, then a quiet cost line, then both chains (folded
    once the run is over), so its end fits one projector screen."""
    running = status == "running"
    head = (f'<header><h1 class="question">❓ {_e(record.question)}</h1>'
            f'<p class="meta">#{record.n} · {_e(record.user_name)} · '
            f"{_e(mode_label(record.mode, lang))}"
            f'<span class="status {_e(status)} ending"> · {_e(status_label(status, lang))}'
            "</span></p></header>")
    head += reads_html([r for t in view.lanes.values() for r in t.reads], lang,
                       (lambda number: f"{photos}{number}") if photos else None)
    article = (f'<article class="run" data-n="{record.n}" data-mode="{_e(record.mode)}" '
               f'data-status="{_e(status)}">{head}')
    if len(view.lanes) < 2:
        (lane, t), = view.lanes.items()
        chain, answer = _lane(lane, t, lang, running, (t.answer, t.ledger))
        return f"{article}{_section(lane, t, lang, chain + answer, running)}</article>"
    (first, plain), (second, react) = view.lanes.items()
    texts = dict(zip((first, second), compared_answers(plain, react), strict=True))
    cells, chains = [], []
    for lane, t in view.lanes.items():
        chain, answer = _lane(lane, t, lang, running, texts[lane])
        waiting = "" if answer else _lane_state(t, lang, running)
        cells.append(f'<section class="cell" data-lane="{_e(lane)}">{_heading(lane, lang, t)}'
                     f"{answer}{waiting}</section>")
        chains.append(_section(lane, t, lang, chain, running))
    tail = ""
    if react.judgement:
        tail += (f'<p class="judgement ending">⚖️ <b>{_e(phrase(lang, "compare_judgement"))}'
                 f"</b>{_e(react.judgement)}</p>")
    elif view.judging and running:
        tail += f'<p class="judgement working ending">{_e(phrase(lang, "compare_judging"))}</p>'
    ended = view.finished.get(first), view.finished.get(second)
    if ended[0] is not None and ended[1] is not None:
        sides = sides_text(plain.side_name, react.side_name)
        tail += f'<p class="difference ending">📊 {_e(difference(*ended, lang, sides))}</p>'
    folded = "" if running else " folded"
    if plain.side_name and react.side_name:
        summary, lanes = phrase(lang, "compare_rounds"), _aligned(plain, react, lang)
    else:
        summary = phrase(lang, "board_chains")
        lanes = f'<div class="lanes two">{"".join(chains)}</div>'
    return (f'{article}<div class="answers two">{"".join(cells)}</div>{tail}'
            f'<details class="chains{folded}"{"" if folded else " open"}><summary>🔗 '
            f'{_e(summary)}</summary>{lanes}</details></article>')


def _aligned(left: Transcript, right: Transcript, lang: str) -> str:
    """Two stored runs' chains as rows, round N beside round N, a gap where a side has no
    such round, the first differing action marked (`first-differs`)."""
    aligned = align(left, right)
    numbers = {"left": itertools.count(), "right": itertools.count()}
    rows = []
    if aligned.first is None:
        rows.append(f'<p class="same-moves">{_e(phrase(lang, "compare_same_moves"))}</p>')
    for row, pair in enumerate(aligned.rows):
        number = next(r.number for r in pair if r is not None)
        flag = aligned.first[1] if aligned.first and aligned.first[0] == row else None
        cells = []
        for lane, t, rnd in zip(("left", "right"), (left, right), pair, strict=True):
            if rnd is None:
                body = f'<p class="gap">{_e(phrase(lang, "compare_gap"))}</p>'
            else:
                body = "".join(_step(next(numbers[lane]), *piece)
                               for piece in _round_pieces(t, rnd, lang, flag))
            cells.append(f'<section class="lane" data-lane="{lane}">{body}</section>')
        heading = _e(phrase(lang, "chain_round", n=number))
        rows.append(f'<div class="aligned-round" data-round="{number}">'
                    f'<h3 class="round">{heading}</h3><div class="lanes two">'
                    f'{"".join(cells)}</div></div>')
    return "".join(rows)


def _heading(lane: str, lang: str, t: Transcript | None = None) -> str:
    """A lane's heading: a copied run's label (its number, asker, date) or a named model's,
    else the lane's."""
    if t is not None and t.side_name:
        return f"<h2>{_e(side_heading(t, lang))}</h2>"
    title = lane_label(lane, lang)
    return f"<h2>{_e(_lane_icon(lane))}{_e(title)}</h2>" if title else ""


def _section(lane: str, t: Transcript, lang: str, steps: str, running: bool) -> str:
    return (f'<section class="lane" data-lane="{_e(lane)}">{_heading(lane, lang, t)}{steps}'
            f"{_footer(t, lang, running)}</section>")


def _lane_state(t: Transcript, lang: str, running: bool) -> str:
    """Where a lane without an answer is: working, or how it ended."""
    done = t.finished
    if done is None:
        words = phrase(lang, "chain_unfinished") if not running else phrase(
            lang, "quiz_waiting" if voting_now(t) else "chain_working")
        return f'<p class="footer working">{_e(words)}</p>'
    return f'<p class="footer ending">{_e(ending_line(done.status, done.reason, lang))}</p>'


def _lane(lane: str, t: Transcript, lang: str, running: bool,
          drawn: Drawn) -> tuple[str, str]:
    """A lane's chain and its answer (`drawn`: its text and ledger), as HTML, their steps
    numbered in the order they came (the answer last)."""
    steps: list[str | Piece] = []
    """Round headings as HTML; steps as pieces, numbered below."""
    if t.plan:
        items = "".join(
            f"<li>{'☑' if done else '☐'} {_e(_plan_name(action.tool, lang))}"
            f"{_e(' — ' + action.why) if action.why else ''}</li>"
            for action, done in t.checklist())
        steps.append(("plan", f"📋 {_e(phrase(lang, 'chain_plan'))}",
                      f"<ul>{items}</ul>"))
    for rnd in t.rounds:
        if t.mode == "react" and rnd.shows:
            steps.append(f'<h3 class="round">{_e(phrase(lang, "chain_round", n=rnd.number))}'
                         "</h3>")
        steps += _round_pieces(t, rnd, lang)
    number = itertools.count()
    chain = "".join(piece if isinstance(piece, str) else _step(next(number), *piece)
                    for piece in steps)
    if not t.answer:
        return chain, ""
    state = "" if t.answer_final else phrase(
        lang, "chain_writing" if running else "chain_incomplete")
    label = f"💬 {_e(answer_heading(t.answer_model, lang))}<i>{_e(state)}</i>"
    if t.answer_final and t.rounds:
        label += _predicted(t.rounds[-1], None, lang)
    line = unfounded_line(t, lang)
    under = f'<p class="unfounded">{_e(line)}</p>' if line else ""
    body = _answer_html(t, drawn, lang)
    return chain, _step(next(number), "answer", label, f'<div class="text">{body}</div>{under}')


Piece = tuple[str, str, str]
"""A step of a chain as (kind, label HTML, body HTML), numbered when drawn."""


def _round_pieces(t: Transcript, rnd: RoundView, lang: str, flag: int | None = None
                  ) -> list[Piece]:
    """One round's steps; `flag`: its move that is the first differing action of two aligned
    chains (one past its calls: the round answered there, or called no more)."""
    steps: list[Piece] = []
    if rnd.vote is not None:  # quiz mode: the class voted before the model was asked
        steps.append(("vote", *vote_html(t, rnd, lang, marks=False)))
    if rnd.model_thought:
        label = f"💭 {_e(phrase(lang, 'chain_thought'))}"
        steps.append(("thought", label, f'<div class="text">{_e(rnd.model_thought)}</div>'))
    first = f'<b class="first-differs">{_e(phrase(lang, "compare_first_differs"))}</b> '
    for i, call in enumerate(rnd.calls):
        code = f"{call.tool}({args_text(call.arguments)})"
        decided = decision_spans(call, lang)
        decision = f'<div class="decision">{to_html(decided)}</div>' if decided else ""
        flagged = i == flag
        steps.append(("action first-differs" if flagged else "action",
                      f"{first if flagged else ''}🔧 {_e(phrase(lang, 'chain_action'))}"
                      f"{_predicted(rnd, call.tool, lang)}",
                      f"<code>{_e(code)}</code>{decision}"))
        if call.observation is not None and not call.awaiting:
            mark = "✅" if call.ok else "⚠️ " + (failure_label(call.failure, lang)
                                               if call.failure else "")
            label = (f"👀 {_e(phrase(lang, 'chain_observation'))} "
                     f'<span class="figure">{_e(mark)} '
                     f"{_e(seconds(call.duration_ms, lang))}</span>")
            body = _e(call.observation) or f"<i>{_e(phrase(lang, 'chain_empty'))}</i>"
            kind = "observation" if call.ok else "observation failed"
            steps.append((kind, label, f'<div class="text">{body}</div>'))
    if rnd.glassbox_remark:  # one quiet line after the model's own words
        steps.append(("note", f"📝 {_e(remark_label(lang))}{_e(phrase(lang, 'chain_colon'))}",
                      f'<span class="text">{_e(rnd.glassbox_remark)}</span>'))
    if flag is not None and flag >= len(rnd.calls):
        why = phrase(lang, "compare_no_more" if rnd.calls else "compare_answered")
        steps.append(("note first-differs", first, f'<span class="text">{_e(why)}</span>'))
    return steps


def _answer_html(t: Transcript, drawn: Drawn, lang: str) -> str:
    """The answer, each figure showing what backs it on hover or tap (its title), the digits
    that differ from the other answer's (in /compare) marked."""
    text, ledger = drawn
    return to_html_marks(ledger_html(text, ledger if t.answer_final else (), t.unfounded, lang,
                                     lambda text: md_to_html(text, draft=not t.answer_final)))


def _predicted(rnd: RoundView, tool: str | None, lang: str) -> str:
    """Quiz mode: how many of the class predicted this move, on its label."""
    words = predicted(rnd, tool, lang)
    return f' <span class="figure predicted">{_e(words)}</span>' if words else ""


def _step(k: int, kind: str, label_html: str, body_html: str) -> str:
    label = (f'<span class="label">{label_html}</span>' if kind == "note"  # one line
             else f'<div class="label">{label_html}</div>')
    return f'<div class="step {kind}" data-step="{k}">{label}{body_html}</div>'



def _footer(t: Transcript, lang: str, running: bool) -> str:
    """Under a lane's chain: where it is, or its figures and how it ended."""
    done = t.finished
    if done is None or done.status in ("error", "cancelled"):
        return _lane_state(t, lang, running)
    ending = ending_line(done.status, done.reason, lang)
    record = class_record(t, lang)
    words = "⏱ " + figures(done, lang) + "".join(f" · {w}" for w in (ending, record) if w)
    return f'<p class="footer ending">{_e(words)}</p>'


def _plan_name(tool: str, lang: str) -> str:
    return phrase(lang, "chain_plan_answer") if tool == "finish" else tool


def _lane_icon(lane: str) -> str:
    return {"plain": "🧠 ", "react": "🔍 "}.get(lane, "")


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def board_page(token: str, lang: str, lead: int | None = None, run: int | None = None) -> str:
    """The board's HTML shell; its script fills in the runs from the event stream. `lead`:
    who asked for the link (the teacher), whose newest run the board shows and stays on;
    `run`: a run to show and stay on instead (a link from the course page)."""
    words = {key: phrase(lang, f"board_{key}", n="{n}", name="{name}")
             for key in ("next", "waiting", "rail", "pinned", "following", "lead")}
    data = " ".join(f'data-{key}="{_e(value)}"' for key, value in words.items())
    if lead is not None:
        data += f' data-lead-id="{lead}"'
    if run is not None:
        data += f' data-run="{run}"'
    base = f"/board/{_e(token)}"
    return (
        f'<!DOCTYPE html>\n<html lang="{lang_code(lang)}" data-theme="dark">'
        '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width">'
        f"<title>{_e(phrase(lang, 'board_title'))}</title>"
        '<link rel="stylesheet" href="/static/board.css"></head>'
        f'<body data-events="{base}/events?lang={_e(lang)}" data-runs="{base}/runs/" '
        f'data-lang="{_e(lang)}" {data}>'
        f'<nav id="bar"><b>Glassbox</b> <span id="where"></span>'
        f'<span class="keys">{_e(phrase(lang, "board_keys"))}</span></nav>'
        f'<main id="run"><p class="waiting">{_e(words["waiting"])}</p></main>'
        '<aside id="rail" hidden></aside>'
        '<script src="/static/board.js"></script></body></html>\n'
    )
