"""A stored run as one self-contained HTML file: readable offline, printable.

Inline CSS only (no scripts, fonts or images to fetch), every stored text escaped. Events are
folded by bot.view.transcript, as for the live message and /show. The answer's Markdown is
drawn by the chat's converter (bot/view/markdown.py: its few tags are HTML too, its tables
aligned code blocks); thoughts and observations stay preformatted text, as written. Each step
keeps together on a printed page. Times are in the class's time zone, named.
"""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Sequence

from agent.classroom.remarks import remark_label
from agent.classroom.summary import approx, difference, figures, seconds
from agent.events import Event, ObservationFailure, RunFinished
from agent.prompts import args_text
from bot.store.kinds import RunMode
from bot.store.records import LANES, RunRecord, UnknownEvent
from bot.view.alignment import align, moves
from bot.view.differences import Drawn, compared_answers, to_html_marks
from bot.view.grounding_marks import MARK, ledger_html, status, unfounded_line
from bot.view.i18n import (
    answer_heading,
    failure_label,
    lane_label,
    lang_code,
    mode_label,
    phrase,
    plural,
    side_heading,
    sides_text,
    status_label,
)
from bot.view.markdown import md_to_html
from bot.view.pause_view import decision_spans
from bot.view.quiz_view import vote_html
from bot.view.read_view import reads_html
from bot.view.textlen import shorten
from bot.view.transcript import CallView, RoundView, Transcript, without_glassbox_remarks
from bot.view.when import local_time

_CSS = """
body { font: 15px/1.5 system-ui, -apple-system, "PingFang SC", "Microsoft YaHei", sans-serif;
       max-width: 50em; margin: 2em auto; padding: 0 1em; color: #111; }
h1 { font-size: 1.3em; margin-bottom: .2em; }
h2 { font-size: 1.15em; border-bottom: 2px solid #999; margin-top: 2em; }
h3 { font-size: 1em; margin: 1.2em 0 .4em; color: #444; }
.question { font-size: 1.15em; border-left: 4px solid #4a7; padding: .3em .8em; }
table.meta td { padding: 0 1em 0 0; vertical-align: top; }
table.meta td:first-child { color: #666; }
.step { margin: .4em 0 .8em; break-inside: avoid; page-break-inside: avoid; }
.label { font-weight: 600; }
.label code { font-weight: normal; background: #f5f5f5; padding: 0 .2em; }
.note { color: #777; font-size: .85em; }
mark.differs { background: #fde68a; color: inherit; }
ul.votes { list-style: none; padding: 0; margin: .3em 0; }
ul.votes li { display: flex; gap: .6em; align-items: center; }
ul.votes .choice { min-width: 14em; }
ul.votes li.taken { font-weight: 600; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f5f5f5;
      border: 1px solid #ddd; padding: .5em .7em; margin: .3em 0; font-size: .9em; }
.failed pre { border-color: #c55; }
.answer .text { white-space: pre-wrap; overflow-wrap: anywhere; background: #eef8ee;
                border: 1px solid #8b8; padding: .5em .7em; margin: .3em 0; }
.answer .text pre { white-space: pre; overflow-x: auto; background: #fff; }
.answer .text blockquote { border-left: 3px solid #8b8; margin: .3em 0; padding-left: .7em; }
table.ledger { border-collapse: collapse; margin: .4em 0; font-size: .9em; }
table.ledger caption { text-align: left; font-weight: 600; }
table.ledger td, table.ledger th { border: 1px solid #ccc; padding: .1em .5em; text-align: left; }
.figure-backed, .figure-unbacked { text-decoration: underline dotted #999; cursor: help; }
.aligned, .answers.two { display: grid; grid-template-columns: 1fr 1fr; gap: 1em; }
.first-differs { background: #fff3c4; padding: .2em .5em; }
h2, h3 { break-after: avoid; page-break-after: avoid; }
figure.read { display: flex; gap: .8em; align-items: flex-start; margin: .5em 0;
              border-left: 3px solid #999; padding-left: .7em; }
figure.read img { max-width: 40%; max-height: 24em; }
figure.read .label { font-weight: 600; color: #555; }
mark.unsure { background: #fde8e8; }
.unsure-legend { color: #666; font-size: .9em; }
@media print { body { margin: 0; max-width: none; } pre { background: none; } }
"""


def export_html(record: RunRecord, events: dict[str, list[Event]], lang: str,
                zone: str = "UTC", *, remarks: bool = True,
                photos: Sequence[bytes] = ()) -> str:
    """The whole transcript of `record` (its `events` by lane) as an HTML document, its
    times in the time zone `zone`; `remarks`: whether the chat shows Glassbox's remarks;
    `photos`: the JPEGs kept with the run, embedded (the file stands alone)."""
    if not remarks:
        events = {lane: [shown for event in lane_events
                         if (shown := without_glassbox_remarks(event)) is not None]
                  for lane, lane_events in events.items()}
    title = phrase(lang, "export_title", n=record.n)
    folded = {lane: Transcript.from_events(events[lane]) for lane in LANES if lane in events}
    texts: dict[str, Drawn] = {lane: (t.answer, t.ledger) for lane, t in folded.items()}
    if len(folded) == 2:  # the digits that differ, marked in both
        first, second = folded
        texts[first], texts[second] = compared_answers(folded[first], folded[second])
    if record.mode == RunMode.MODELS:
        for t in folded.values():
            t.named_side = True
    copies = len(folded) == 2 and all(t.side_name for t in folded.values())
    body = [
        f"<h1>{_e(title)}</h1>",
        f'<p class="question">{_e(record.question)}</p>',
        _meta(record, lang, zone),
        reads_html([r for t in folded.values() for r in t.reads], lang,
                   (lambda n: _data_url(photos[n - 1]) if n <= len(photos) else "")
                   if photos else None),
        *(_two(folded, events, lang, texts, copies) if len(folded) == 2 else
          (_lane(lane, t, events[lane], lang, texts[lane]) for lane, t in folded.items())),
        f'<p class="note">{_e(phrase(lang, "export_footer"))}</p>',
    ]
    return (
        f'<!DOCTYPE html>\n<html lang="{lang_code(lang)}">\n'
        f'<head>\n<meta charset="utf-8">\n<title>{_e(title)}: {_e(shorten(record.question))}'
        f"</title>\n<style>{_CSS}</style>\n</head>\n<body>\n" + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def _data_url(jpeg: bytes) -> str:
    return "data:image/jpeg;base64," + base64.b64encode(jpeg).decode()


def _meta(record: RunRecord, lang: str, zone: str) -> str:
    started = local_time(record.started_at, zone, "%Y-%m-%d %H:%M:%S") + f" ({zone})"
    rows = [
        (phrase(lang, "export_asked_by"), record.user_name),
        (phrase(lang, "export_when"), started),
        (phrase(lang, "export_mode"), mode_label(record.mode, lang)),
        (phrase(lang, "export_sides" if record.mode == RunMode.RUNS else "export_model"),
         record.model),
        (phrase(lang, "export_status"), status_label(record.status, lang)),
    ]
    if record.duration_ms is not None:
        rows.append((phrase(lang, "export_duration"), seconds(record.duration_ms, lang)))
    rows.append((phrase(lang, "export_tokens"), _tokens(record.usage.prompt_tokens,
                                                        record.usage.completion_tokens, lang)))
    cells = "".join(f"<tr><td>{_e(k)}</td><td>{_e(v)}</td></tr>" for k, v in rows)
    return f'<table class="meta">{cells}</table>'


def _two(folded: dict[str, Transcript], events: dict[str, list[Event]], lang: str,
         texts: dict[str, Drawn], copies: bool) -> list[str]:
    """A run of two lanes as a class looks at it: both answers side by side at the top,
    then the judgement and the cost, then the chains (two runs' aligned round by round)."""
    answers = "".join(
        f'<section class="side">{_lane(lane, t, events[lane], lang, texts[lane], chain=False)}'
        "</section>" for lane, t in folded.items())
    chains = ([_aligned(*folded.values(), lang)] if copies else
              [_lane(lane, t, events[lane], lang, texts[lane], answer=False)
               for lane, t in folded.items() if t.rounds or t.plan])
    return [f'<div class="answers two">{answers}</div>',
            _difference(list(folded.values()), lang), *chains]


def _lane(lane: str, t: Transcript, events: Sequence[Event], lang: str, drawn: Drawn, *,
          chain: bool = True, answer: bool = True) -> str:
    """One lane (`t`, folded from `events` by the same rules as the live message), its
    answer drawn from `drawn` (its text and ledger); `chain`: with its rounds; `answer`:
    with its answer and what it cost (a compare draws the answers side by side first)."""
    title = side_heading(t, lang) or lane_label(lane, lang)
    out = [f"<h2>{_e(title)}</h2>"] if title else []
    if not chain:
        out += _lane_answer(t, lang, drawn)
        return "\n".join(out)
    if t.plan:
        items = "".join(f"<li>{'☑' if done else '☐'} {_e(action.tool)}"
                        f"{_e(' — ' + action.why) if action.why else ''}</li>"
                        for action, done in t.checklist())
        out.append(f'<section class="round"><h3>📋 {_e(phrase(lang, "chain_plan"))}</h3>'
                   f"<ul>{items}</ul></section>")
    out += [_round(t, view, lang) for view in t.rounds]
    out += [_unknown(event) for event in events if isinstance(event, UnknownEvent)]
    if answer:
        out += _lane_answer(t, lang, drawn)
    return "\n".join(out)


def _lane_answer(t: Transcript, lang: str, drawn: Drawn) -> list[str]:
    """A lane's answer (its figures marked and their ledger) and what the lane cost, with
    why it ended when it did not end well."""
    out = []
    if t.answer:
        line = unfounded_line(t, lang)
        under = f'<p class="note">{_e(line)}</p>' if line else ""
        out.append(f'<section class="answer step"><h3>💬 {_e(answer_heading(t.answer_model, lang))}'
                   f'</h3><div class="text">'
                   f"{to_html_marks(ledger_html(*drawn, t.unfounded, lang, md_to_html))}</div>"
                   f"{under}{_ledger(t, lang)}</section>")
    if t.finished is not None:
        out.append(_summary(t.finished, lang))
    return out


def _ledger(t: Transcript, lang: str) -> str:
    """The figure ledger as a table: each figure of the answer and what backs it."""
    if not t.ledger:
        return ""
    rows = "".join(f"<tr><td>{_e(e.text)}{MARK if e.unbacked else ''}</td>"
                   f"<td>{_e(status(e, lang))}</td></tr>" for e in t.ledger)
    return (f'<table class="ledger"><caption>🧾 {_e(phrase(lang, "ledger_heading"))}</caption>'
            f'<tr><th>{_e(phrase(lang, "ledger_figure"))}</th>'
            f'<th>{_e(phrase(lang, "ledger_status"))}</th></tr>{rows}</table>')


def _round(t: Transcript, view: RoundView, lang: str) -> str:
    heading = phrase(lang, "chain_round", n=view.number)
    out = [f'<section class="round"><h3>{_e(heading)}</h3>']
    if view.vote is not None:  # quiz mode: the class voted before the model was asked
        label, body = vote_html(t, view, lang)
        out.append(f'<div class="step vote"><span class="label">{label}</span>{body}</div>')
    if view.model_thought:
        out.append(f'<div class="step"><span class="label">💭 {_e(phrase(lang, "chain_thought"))}'
                   f"</span><pre>{_e(view.model_thought)}</pre></div>")
    out += [_call(call, lang) for call in view.calls]
    if view.glassbox_remark:  # one quiet line, after the model's own words
        label = remark_label(lang) + phrase(lang, "chain_colon")
        out.append(f'<p class="note glassbox">📝 {_e(label)}{_e(view.glassbox_remark)}</p>')
    out.append("</section>")
    return "\n".join(out)


def _call(call: CallView, lang: str) -> str:
    """A tool call as the chat writes it, `get_weather(city="Berlin")`, and what it returned,
    kept together on a printed page."""
    if call.failure == ObservationFailure.NOT_RUN:  # stands for all the calls not run
        return (f'<div class="step failed"><span class="label">⏭ '
                f'{_e(call.observation or "")}</span></div>')
    code = f"{call.tool}({args_text(call.arguments)})"
    out = [f'<div class="step"><span class="label">🔧 {_e(phrase(lang, "chain_action"))}: '
           f"<code>{_e(code)}</code></span>"]
    if decided := decision_spans(call, lang):
        out.append(f'<div class="note">{_e("".join(text for text, _ in decided))}</div>')
    if call.observation is not None:
        why = f" ({failure_label(call.failure, lang)})" if call.failure else ""
        mark = "" if call.ok else " ⚠️ " + phrase(lang, "export_failed") + why
        kind = "observation" if call.ok else "observation failed"
        out.append(f'<div class="{kind}"><span class="label">👀 '
                   f"{_e(phrase(lang, 'chain_observation'))}{_e(mark)}</span> "
                   f'<span class="note">{_e(seconds(call.duration_ms, lang))}</span>'
                   f"<pre>{_e(call.observation)}</pre></div>")
    out.append("</div>")
    return "".join(out)


def _difference(lanes: list[Transcript], lang: str) -> str:
    """A compare run's ending: the model's judgement of how the answers differ (if it gave
    one) and what each lane cost."""
    plain, react = lanes
    out = [f"<h2>⚖️ {_e(phrase(lang, 'export_difference'))}</h2>"]
    if react.judgement:
        out.append(f"<p><b>{_e(phrase(lang, 'compare_judgement'))}</b>{_e(react.judgement)}</p>")
    if plain.finished and react.finished:
        sides = sides_text(plain.side_name, react.side_name)
        out.append(f"<p>📊 {_e(difference(plain.finished, react.finished, lang, sides))}</p>")
    return "\n".join(out) if len(out) > 1 else ""


def _aligned(left: Transcript, right: Transcript, lang: str) -> str:
    """Two copied runs' chains round by round, side by side, a gap where a side has no such
    round, and the first differing action named above its round."""
    aligned = align(left, right)
    out = [f"<h2>🔗 {_e(phrase(lang, 'compare_rounds'))}</h2>"]
    if aligned.first is None:
        out.append(f'<p class="note">{_e(phrase(lang, "compare_same_moves"))}</p>')
    for row, pair in enumerate(aligned.rows):
        if aligned.first is not None and aligned.first[0] == row:
            at = aligned.first[1]
            said = " · ".join(
                f"{t.side_name} "
                f"{(moves(rnd)[at:at + 1] or (phrase(lang, 'compare_gap'),))[0]}"
                for t, rnd in zip((left, right), pair, strict=True))
            out.append(f'<p class="first-differs"><b>{_e(phrase(lang, "compare_first_differs"))}'
                       f"</b> {_e(said)}</p>")
        cells = "".join(
            f"<div><h3>{_e(t.side_name)}</h3>"
            f"{_round(t, rnd, lang) if rnd else _e(phrase(lang, 'compare_gap'))}</div>"
            for t, rnd in zip((left, right), pair, strict=True))
        out.append(f'<div class="aligned">{cells}</div>')
    return "\n".join(out)


def _unknown(event: UnknownEvent) -> str:
    data = event.to_dict()
    return (f'<div class="step"><span class="label">{_e(str(data.get("type")))}</span>'
            f"<pre>{_e(json.dumps(data, ensure_ascii=False, indent=2))}</pre></div>")


def _summary(finished: RunFinished, lang: str) -> str:
    calls = plural(lang, "chain_tool_calls", finished.tool_calls)
    usage = finished.usage
    parts = [status_label(finished.status, lang), figures(finished, lang, tokens=False), calls]
    if usage.total_tokens:  # one unit: '1,245 tokens (1,200 in · 45 out)'
        parts.append(f"{approx(usage)}{plural(lang, 'chain_tokens', usage.total_tokens)} "
                     f"({_tokens(usage.prompt_tokens, usage.completion_tokens, lang)})")
    reason = f"<br>{_e(finished.reason)}" if finished.reason else ""
    return f'<p class="note">{_e(" · ".join(parts))}{reason}</p>'


def _tokens(prompt: int, completion: int, lang: str) -> str:
    return phrase(lang, "export_token_counts", prompt=prompt, completion=completion)


def _e(text: str) -> str:
    return html.escape(text, quote=True)
