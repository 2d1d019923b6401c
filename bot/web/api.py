"""The HTTP API: ask over HTTP what the chat is asked, and get the answer and its steps.

`POST /api/v1/chat` runs a question to its end and answers with the run (bot/web/shapes.py);
`POST /api/v1/chat/stream` is the same run as server-sent events, one per step event (the
JSON of `python -m agent --json`), ending with `run_finished`; `GET /api/v1/runs/{runId}`
and `GET /api/v1/runs?sessionId=` read stored runs. Each token of API_TOKENS is a scope of
its own in the store (bot/store/web.py): its runs, its rate limit and daily budget; it sees
nothing of another's. Runs go through the same `Runs.fold` as the chat's: stored step by
step, shown on /metrics, and stopped cleanly by a shutdown.
"""

from __future__ import annotations

import asyncio
import hmac
import html
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from agent.events import Event, RunFinished
from agent.lang import detect_lang
from agent.prompts import Turn
from bot.runs.active import Active
from bot.runs.execute import Question
from bot.runs.quota import refusal_and_wait
from bot.settings import BotSettings
from bot.store.records import RunRecord, Scope
from bot.store.web import API_CHAT_BASE, WebStore
from bot.telegram.app import App
from bot.telegram.context import Parts
from bot.view.transcript import View, replay, without_glassbox_notes
from bot.web.bodies import MAX_STORED_ID, PAGE, ApiError, ChatBody, chat_body
from bot.web.openapi import OPENAPI
from bot.web.shapes import STORED_MODES, api_mode, run_json, sse

log = logging.getLogger(__name__)

MODEL_DOWN = {"connection", "timeout", "server", "rate_limit", "model_not_found", "auth",
              "quota"}
"""RunFinished.error_kind values that mean the model is unavailable (503), not the question."""


@dataclass
class _Run:
    q: Question
    active: Active
    record: RunRecord
    session_id: str
    view: View
    done: asyncio.Future[str]


def api_routes(app: App, settings: BotSettings) -> list[BaseRoute]:
    tokens = [token.get_secret_value().encode() for token in settings.api_tokens]

    async def scope(request: Request) -> tuple[Parts, int]:
        """The parts and the scope's chat id of an authorised request."""
        if not tokens:
            raise ApiError(404, "not_found", "This Glassbox has no HTTP API (API_TOKENS is "
                           "not set).")
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        given = given.strip()
        if scheme.lower() != "bearer" or not any(
                hmac.compare_digest(given.encode(), token) for token in tokens):
            raise ApiError(401, "unauthorized",
                           "Send a valid token: Authorization: Bearer <token>.")
        parts = app.bot_data.parts
        if parts is None:
            raise ApiError(503, "starting", "Glassbox is starting or stopping; try again.", 5)
        return parts, await WebStore(parts.store).api_chat(given)

    async def chat(request: Request) -> Response:
        parts, chat_id = await scope(request)
        body = await chat_body(request)
        run = await _start(parts, chat_id, body)
        return _answer(run, await _finished(run), body.showSteps)

    async def chat_stream(request: Request) -> Response:
        parts, chat_id = await scope(request)
        body = await chat_body(request)
        heard: asyncio.Queue[tuple[str, Event] | None] = asyncio.Queue()
        listener = _Heard(heard)
        parts.runs.listeners.add(listener)
        try:
            run = await _start(parts, chat_id, body, listener)
        except BaseException:
            parts.runs.listeners.remove(listener)
            raise

        async def stream() -> AsyncIterator[str]:
            try:
                number = 0
                while (item := await heard.get()) is not None:
                    lane, event = item
                    if isinstance(event, RunFinished) and run.q.mode != "compare":
                        continue  # the run's own run_finished closes the stream
                    data = event.to_dict()
                    if run.q.mode == "compare":
                        data["lane"] = lane
                    number += 1
                    yield sse(number, event.type, data)
                status = await _finished(run)
                end = run.view.outcome()
                data = {**end.to_dict(), "status": status,
                        "runId": run.record.id, "sessionId": run.session_id,
                        "answer": run_json(run.record, run.view, status, run.session_id,
                                           steps=False)["answer"]}
                yield sse(number + 1, "run_finished", data)
            finally:
                parts.runs.listeners.remove(listener)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store"})

    async def one_run(request: Request) -> Response:
        parts, chat_id = await scope(request)
        web = WebStore(parts.store)
        run_id = request.path_params["run_id"]
        record = await web.run_by_id(chat_id, run_id) if run_id <= MAX_STORED_ID else None
        if record is None:
            raise ApiError(404, "no_such_run", "No run of this token has that id.")
        view = replay(record, await parts.store.events(record.id), detect_lang(record.question),
                      notes=(await parts.chat_settings(chat_id)).notes)
        return JSONResponse(run_json(record, view, record.status,
                                     await web.session_of(record.id), steps=True))

    async def list_runs(request: Request) -> Response:
        parts, chat_id = await scope(request)
        web = WebStore(parts.store)
        session = request.query_params.get("sessionId", "")
        if session:
            records = list(reversed(await web.session_runs(chat_id, session)))
            page = {"page": 1, "pages": 1, "total": len(records)}
        else:
            number = request.query_params.get("page", "1")
            if not PAGE.fullmatch(number) or int(number) < 1:
                raise ApiError(400, "invalid_query", "page: expected a whole number from 1.")
            found = await parts.store.history(Scope(chat_id), page=int(number))
            records = list(found.runs)
            page = {"page": found.page, "pages": found.pages, "total": found.total}
        sessions = await web.sessions_of([r.id for r in records])
        runs = [{"runId": r.id, "sessionId": sessions.get(r.id, ""),
                 "question": r.question, "mode": api_mode(r.mode), "status": r.status,
                 "answer": r.answer, "startedAt": r.started_at.isoformat(),
                 "durationMs": r.duration_ms} for r in records]
        return JSONResponse({**page, "runs": runs})

    async def openapi(request: Request) -> Response:
        return JSONResponse(OPENAPI)

    async def not_found(request: Request) -> Response:
        raise ApiError(404, "not_found", "No such API endpoint (see /openapi.json).")

    return [
        Route("/api/v1/chat", _guarded(chat), methods=["POST"]),
        Route("/api/v1/chat/stream", _guarded(chat_stream), methods=["POST"]),
        Route("/api/v1/runs/{run_id:int}", _guarded(one_run), methods=["GET"]),
        Route("/api/v1/runs", _guarded(list_runs), methods=["GET"]),
        Route("/openapi.json", openapi, methods=["GET"]),
        Route("/api/{rest:path}", _guarded(not_found)),
    ]


async def _start(parts: Parts, chat_id: int, body: ChatBody,
                 listener: _Heard | None = None) -> _Run:
    """Check the scope may ask now, record the run in its session and start it."""
    lang = detect_lang(body.message)
    refused = await refusal_and_wait(parts.store, parts.settings, chat_id, chat_id, lang)
    if refused is not None:
        line, wait = refused
        raise ApiError(429, "rate_limited", html.unescape(line), wait.total_seconds())
    active = parts.runs.active.claim(chat_id, chat_id, lang)
    if active is None:
        raise ApiError(429, "busy", "A run of this token is still running: one at a time.", 2)
    try:
        web = WebStore(parts.store)
        chat = await parts.chat_settings(chat_id)  # the scope's, as a chat's run has its own
        session_id = body.sessionId or secrets.token_urlsafe(12)
        earlier = await web.session_runs(chat_id, session_id)
        last = earlier[-1] if earlier else None
        history = (Turn(last.question, last.answer),) if last and last.answer else ()
        q = Question(STORED_MODES[body.mode], body.message.strip(), chat_id, chat_id,
                     f"API {chat_id - API_CHAT_BASE}", lang, 0, history,
                     last.id if last else None, True if body.plan else None, chat=chat)
        record = await parts.store.start_run(
            chat_id=chat_id, user_id=chat_id, user_name=q.user_name, mode=q.mode,
            question=q.text, model=parts.settings.llm_model, parent_id=q.parent_id)
        await web.add_to_session(record.id, session_id)
    except BaseException:
        parts.runs.active.run(active, _nothing())  # frees the slot
        raise
    if listener is not None:
        listener.run_id = record.id
    run = _Run(q, active, record, session_id, View(q.mode, lang),
               asyncio.get_running_loop().create_future())
    run.view.notes = chat.notes

    async def work() -> None:
        try:
            status = await parts.runs.fold(q, active, record, run.view)
        except BaseException as err:
            if not run.done.done():
                run.done.set_exception(err)
            raise
        run.done.set_result(status)

    parts.runs.active.run(active, work())
    return run


async def _finished(run: _Run) -> str:
    """How the run ended, once its slot is free again (so the token may ask at once). A
    caller that goes away does not stop the run: it is stored to its end all the same."""
    assert run.active.task is not None
    await asyncio.shield(run.active.task)  # never raises: ActiveRuns.run logs what it raised
    return run.done.result()


async def _nothing() -> None:
    return None


def _answer(run: _Run, status: str, steps: bool) -> Response:
    end = run.view.outcome()
    data = run_json(run.record, run.view, status, run.session_id, steps=steps,
                    usage=end.usage, duration_ms=end.duration_ms)
    finished = run.view.finished.get("react") or run.view.finished.get("main")
    if status == "error" and finished is not None and finished.error_kind in MODEL_DOWN:
        return JSONResponse({"error": {"status": 503, "code": "model_unavailable",
                                       "message": finished.reason or "The model could not "
                                       "be reached."}, "run": data},
                            status_code=503, headers={"Retry-After": "30"})
    return JSONResponse(data)


class _Heard:
    """A run listener passing one run's events (by lane) to a queue; None after its end."""

    def __init__(self, queue: asyncio.Queue[tuple[str, Event] | None]) -> None:
        self.queue, self.run_id, self.notes = queue, -1, True

    def run_started(self, record: RunRecord, notes: bool) -> None:
        if record.id == self.run_id:
            self.notes = notes

    def run_event(self, record: RunRecord, lane: str, event: Event) -> None:
        if record.id != self.run_id:
            return
        shown = event if self.notes else without_glassbox_notes(event)
        if shown is not None:
            self.queue.put_nowait((lane, shown))

    def run_finished(self, record: RunRecord, status: str) -> None:
        if record.id == self.run_id:
            self.queue.put_nowait(None)


def _guarded(handler: Callable[[Request], Awaitable[Response]]
             ) -> Callable[[Request], Awaitable[Response]]:
    """An endpoint whose refusals are ApiErrors and whose bugs are a JSON 500, logged."""
    async def guarded(request: Request) -> Response:
        try:
            return await handler(request)
        except ApiError as err:
            return err.response()
        except Exception:
            log.exception("API %s %s failed", request.method, request.url.path)
            return ApiError(500, "internal", "Glassbox failed to answer; it was logged."
                            ).response()
    return guarded

