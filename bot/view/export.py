"""A stored run as one self-contained HTML file: readable offline, printable.

Inline CSS only (no scripts, fonts or images to fetch), every stored text escaped. Events are
folded by bot.view.transcript, as for the live message and /show. The answer
is shown as preformatted text: Markdown stays readable that way and needs no converter.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from datetime import UTC

from agent.events import Event, RunFinished
from agent.notes import note_label
from agent.summary import figures, seconds
from bot.store.records import LANES, RunRecord, UnknownEvent
from bot.view.i18n import failure_label, lane_label, lang_code, mode_label, phrase, status_label
from bot.view.textlen import shorten
from bot.view.transcript import RoundView, ToolStep, Transcript

_CSS = """
body { font: 15px/1.5 system-ui, -apple-system, "PingFang SC", "Microsoft YaHei", sans-serif;
       max-width: 50em; margin: 2em auto; padding: 0 1em; color: #111; }
h1 { font-size: 1.3em; margin-bottom: .2em; }
h2 { font-size: 1.15em; border-bottom: 2px solid #999; margin-top: 2em; }
h3 { font-size: 1em; margin: 1.2em 0 .4em; color: #444; }
.question { font-size: 1.15em; border-left: 4px solid #4a7; padding: .3em .8em; }
table.meta td { padding: 0 1em 0 0; vertical-align: top; }
table.meta td:first-child { color: #666; }
.step { margin: .4em 0 .8em; }
.label { font-weight: 600; }
.note { color: #777; font-size: .85em; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f5f5f5;
      border: 1px solid #ddd; padding: .5em .7em; margin: .3em 0; font-size: .9em; }
.failed pre { border-color: #c55; }
.answer pre { background: #eef8ee; border-color: #8b8; font-size: 1em; }
h2, h3 { page-break-after: avoid; }
@media print { body { margin: 0; max-width: none; } pre { background: none; } }
"""


def export_html(record: RunRecord, events: dict[str, list[Event]], lang: str) -> str:
    """The whole transcript of `record` (its `events` by lane) as an HTML document."""
    title = phrase(lang, "export_title", n=record.n)
    lanes = [lane for lane in LANES if lane in events]
    body = [
        f"<h1>{_e(title)}</h1>",
        f'<p class="question">{_e(record.question)}</p>',
        _meta(record, lang),
        *(_lane(lane, events[lane], lang) for lane in lanes),
        f'<p class="note">{_e(phrase(lang, "export_footer"))}</p>',
    ]
    return (
        f'<!DOCTYPE html>\n<html lang="{lang_code(lang)}">\n'
        f'<head>\n<meta charset="utf-8">\n<title>{_e(title)}: {_e(shorten(record.question))}'
        f"</title>\n<style>{_CSS}</style>\n</head>\n<body>\n" + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def _meta(record: RunRecord, lang: str) -> str:
    started = record.started_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    rows = [
        (phrase(lang, "export_asked_by"), record.user_name),
        (phrase(lang, "export_when"), started),
        (phrase(lang, "export_mode"), mode_label(record.mode, lang)),
        (phrase(lang, "export_model"), record.model),
        (phrase(lang, "export_status"), status_label(record.status, lang)),
    ]
    if record.duration_ms is not None:
        rows.append((phrase(lang, "export_duration"), seconds(record.duration_ms, lang)))
    rows.append((phrase(lang, "export_tokens"), _tokens(record.usage.prompt_tokens,
                                                        record.usage.completion_tokens, lang)))
    cells = "".join(f"<tr><td>{_e(k)}</td><td>{_e(v)}</td></tr>" for k, v in rows)
    return f'<table class="meta">{cells}</table>'


def _lane(lane: str, events: Sequence[Event], lang: str) -> str:
    """One lane, folded by the same rules as the live message."""
    t = Transcript.from_events(events)
    title = lane_label(lane, lang)
    out = [f"<h2>{_e(title)}</h2>"] if title else []
    if t.plan:
        items = "".join(f"<li>{'☑' if done else '☐'} {_e(step.tool)}"
                        f"{_e(' — ' + step.why) if step.why else ''}</li>"
                        for step, done in t.checklist())
        out.append(f'<section class="round"><h3>📋 {_e(phrase(lang, "chain_plan"))}</h3>'
                   f"<ul>{items}</ul></section>")
    out += [_round(view, lang) for view in t.rounds]
    out += [_unknown(event) for event in events if isinstance(event, UnknownEvent)]
    if t.answer:
        out.append(f'<section class="answer"><h3>💬 {_e(phrase(lang, "chain_answer"))}</h3>'
                   f"<pre>{_e(t.answer)}</pre></section>")
    if t.finished is not None:
        out.append(_summary(t.finished, lang))
    return "\n".join(out)


def _round(view: RoundView, lang: str) -> str:
    heading = phrase(lang, "chain_round", n=view.number)
    out = [f'<section class="round"><h3>{_e(heading)}</h3>']
    notes = [*view.notes, *([view.thought] if view.synthesized else [])]
    out += [f'<div class="step glassbox"><span class="label">📝 {_e(note_label(lang))}'
            f'{_e(phrase(lang, "chain_colon"))}</span><i>{_e(note)}</i></div>' for note in notes]
    if view.thought and not view.synthesized:
        out.append(f'<div class="step"><span class="label">💭 {_e(phrase(lang, "chain_thought"))}'
                   f"</span><pre>{_e(view.thought)}</pre></div>")
    out += [_step(step, lang) for step in view.steps]
    out.append("</section>")
    return "\n".join(out)


def _step(step: ToolStep, lang: str) -> str:
    args = step.arguments if isinstance(step.arguments, str) else json.dumps(
        step.arguments, ensure_ascii=False, indent=2)
    out = (f'<div class="step"><span class="label">🔧 {_e(phrase(lang, "chain_action"))}: '
           f"{_e(step.tool)}</span><pre>{_e(args)}</pre></div>")
    if step.observation is not None:
        why = f" ({failure_label(step.failure, lang)})" if step.failure else ""
        mark = "" if step.ok else " ⚠️ " + phrase(lang, "export_failed") + why
        out += (f'\n<div class="step{"" if step.ok else " failed"}"><span class="label">👀 '
                f"{_e(phrase(lang, 'chain_observation'))}: {_e(step.tool)}{_e(mark)}</span> "
                f'<span class="note">{_e(seconds(step.duration_ms, lang))}</span>'
                f"<pre>{_e(step.observation)}</pre></div>")
    return out


def _unknown(event: UnknownEvent) -> str:
    data = event.to_dict()
    return (f'<div class="step"><span class="label">{_e(str(data.get("type")))}</span>'
            f"<pre>{_e(json.dumps(data, ensure_ascii=False, indent=2))}</pre></div>")


def _summary(finished: RunFinished, lang: str) -> str:
    calls = phrase(lang, "export_tool_calls", calls=finished.tool_calls)
    parts = [status_label(finished.status, lang), figures(finished, lang), calls,
             _tokens(finished.usage.prompt_tokens, finished.usage.completion_tokens, lang)]
    reason = f"<br>{_e(finished.reason)}" if finished.reason else ""
    return f'<p class="note">{_e(" · ".join(parts))}{reason}</p>'


def _tokens(prompt: int, completion: int, lang: str) -> str:
    return phrase(lang, "export_token_counts", prompt=prompt, completion=completion)


def _e(text: str) -> str:
    return html.escape(text, quote=True)
