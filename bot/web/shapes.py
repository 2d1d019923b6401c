"""What the HTTP API answers with: a run as JSON, built from the same fold as every other
front end (bot.view.transcript), so its steps are the chain the chat shows."""

from __future__ import annotations

import json
from typing import Any

from agent.classroom.summary import difference
from agent.events import Usage
from bot.store.kinds import RunMode
from bot.store.records import RunRecord
from bot.view.alignment import align, moves
from bot.view.i18n import sides_text
from bot.view.read_view import read_dict
from bot.view.transcript import Transcript, View

API_MODES: dict[RunMode, str] = {RunMode.ASK: "react", RunMode.PLAIN: "plain",
                                 RunMode.COMPARE: "compare"}
"""A run's mode (as stored) by the name the API documents (README, openapi.json)."""
STORED_MODES: dict[str, RunMode] = {api: stored for stored, api in API_MODES.items()}
"""The API's mode names back to the run's mode (a POST /api/v1/chat body's `mode`)."""


def api_mode(stored: str) -> str:
    """A stored run's mode as the API names it, in every answer that shows one."""
    return API_MODES.get(stored, stored)


def run_json(record: RunRecord, view: View, status: str, session_id: str, *,
             steps: bool, usage: Usage | None = None, duration_ms: int | None = None
             ) -> dict[str, Any]:
    """The answer of POST /api/v1/chat (and GET /api/v1/runs/{runId}) for one run."""
    if view.mode == RunMode.RUNS:
        return _runs_json(record, view)
    if view.mode == RunMode.MODELS:
        return _models_json(record, view, status, session_id, steps)
    main = view.lanes.get("react") or view.lanes["main"]
    out: dict[str, Any] = {
        "sessionId": session_id,
        "runId": record.id,
        "question": record.question,
        "mode": api_mode(record.mode),
        "answer": main.answer if main.answer_final else "",
        "status": status,
        "durationMs": record.duration_ms if duration_ms is None else duration_ms,
        "model": record.model,
        "usage": _usage(record.usage if usage is None else usage),
        "plan": [{"tool": s.tool, "why": s.why, "done": done}
                 for s, done in main.checklist()] if main.plan else None,
        "reads": _reads(view),
        "steps": _steps(main) if steps else None,
    }
    if view.mode == "compare":
        plain = view.lanes["plain"]
        out["answers"] = {"plain": plain.answer if plain.answer_final else "",
                          "react": out["answer"]}
        done_plain, done_react = view.finished.get("plain"), view.finished.get("react")
        out["difference"] = {
            "judgement": main.judgement or None,
            "figures": difference(done_plain, done_react, "en")
            if done_plain and done_react else None,
        }
        out["plainSteps"] = _steps(plain) if steps else None
    return out


def _reads(view: View) -> list[dict[str, Any]]:
    """What was read or heard from what the question came with, before round 1, as the
    chat shows it (in the run's language)."""
    return [read_dict(read, view.lang) for lane in view.lanes.values() for read in lane.reads]


def _models_json(record: RunRecord, view: View, status: str, session_id: str,
                 steps: bool) -> dict[str, Any]:
    """Two named models on one question: each side's model, how it ended (its error, when
    its endpoint failed) and answer, the judgement and what each cost."""
    left, right = view.lanes["left"], view.lanes["right"]
    ends = view.finished.get("left"), view.finished.get("right")
    end = view.outcome()
    return {
        "runId": record.id, "sessionId": session_id, "question": record.question,
        "mode": "models", "status": status, "answer": "", "durationMs": end.duration_ms,
        "model": record.model, "usage": _usage(end.usage), "reads": _reads(view),
        "sides": [{"model": t.model, "status": done.status if done else "running",
                   "error": done.reason if done and done.status != "done" else None,
                   "steps": _steps(t) if steps else None}
                  for t, done in zip((left, right), ends, strict=True)],
        "answers": {t.model: t.answer if t.answer_final else "" for t in (left, right)},
        "difference": {"judgement": right.judgement or None, "figures": difference(
            ends[0], ends[1], "en", sides_text(left.side_name, right.side_name))
            if ends[0] and ends[1] else None},
    }


def _runs_json(record: RunRecord, view: View) -> dict[str, Any]:
    """A comparison of two stored runs: each side's run and answer, what each cost, and the
    first action where their chains part (None: they made the same moves)."""
    left, right = view.lanes["left"], view.lanes["right"]
    aligned = align(left, right)
    first = None
    if aligned.first is not None:
        row, move = aligned.first
        first = {"round": next(r.number for r in aligned.rows[row] if r is not None),
                 **{side: (moves(rnd)[move:move + 1] or (None,))[0]
                    for side, rnd in zip(("left", "right"), aligned.rows[row], strict=True)}}
    ends = view.finished.get("left"), view.finished.get("right")
    return {
        "runId": record.id, "sessionId": "", "question": record.question, "mode": "runs",
        "status": record.status, "answer": "", "durationMs": record.duration_ms,
        "sides": [{"n": t.origin.n, "asker": t.origin.asker, "startedAt": t.origin.when,
                   "mode": api_mode(t.origin.mode)} if t.origin else None
                  for t in (left, right)],
        "answers": {"left": left.answer if left.answer_final else "",
                    "right": right.answer if right.answer_final else ""},
        "difference": {"judgement": right.judgement or None, "figures": difference(
            ends[0], ends[1], "en", sides_text(left.side_name, right.side_name))
            if ends[0] and ends[1] else None},
        "firstDifference": first,
        "usage": _usage(record.usage),
    }


def _steps(t: Transcript) -> list[dict[str, Any]]:
    """One entry per tool call (its round's thought with it), and one for a round that
    only thought (the answering round). A thought is the model's own: one Glassbox wrote for
    it (a run stored before Notes) is no model's reasoning, and is left out."""
    out: list[dict[str, Any]] = []
    for rnd in t.rounds:
        thought = rnd.model_thought or None
        if not rnd.calls:
            out.append({"round": rnd.number, "thought": thought, "tool": None,
                        "input": None, "output": None, "ok": None, "durationMs": None})
        for i, call in enumerate(rnd.calls):
            out.append({"round": rnd.number, "thought": thought if i == 0 else None,
                        "tool": call.tool, "input": call.arguments, "output": call.observation,
                        "ok": call.ok, "durationMs": call.duration_ms
                        if call.observation is not None else None})
    return out


def _usage(usage: Usage) -> dict[str, Any]:
    return {"promptTokens": usage.prompt_tokens, "completionTokens": usage.completion_tokens,
            "totalTokens": usage.total_tokens, "estimated": usage.estimated}


def sse(event_id: object, event: str, data: dict[str, Any]) -> str:
    """One server-sent event: its id (what a reconnect's Last-Event-ID sends back), its
    name and its JSON."""
    return f"id: {event_id}\nevent: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"
