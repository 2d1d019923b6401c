"""The HTTP API: ask over HTTP what the chat is asked, and get the answer and its steps.

`POST /api/v1/chat` runs a question to its end and answers with the run (bot/web/shapes.py);
`POST /api/v1/chat/stream` is the same run as server-sent events, one per step event (the
JSON of `python -m agent --json`), ending with `run_finished`; `GET /api/v1/runs/{runId}`
and `GET /api/v1/runs?sessionId=` read stored runs. Each token of API_TOKENS is a scope of
its own in the store (bot/store/api_sessions.py): its runs, its rate limit and daily budget; it sees
nothing of another's. Questions go through the run service's one entry point (`Runs.ask`)
as the chat's do: the same quota, admission and thread history; stored step by step, shown
on /metrics, and stopped cleanly by a shutdown.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from agent.classroom.confirm import Gate
from agent.events import Event, InputRead, RunFinished
from agent.inputs.images import Picture
from agent.lang import detect_lang
from agent.model.model_errors import ModelErrorKind
from bot.bot_settings import BotSettings
from bot.course.course_words import word
from bot.course.period import MAX_DAYS, PeriodProblem, from_query, today_in
from bot.runs.active import Active
from bot.runs.ask import Ask, Busy, Refusal
from bot.runs.compare_runs import Refused, Unfit, compare_stored
from bot.runs.model_names import known_name
from bot.runs.quota import OverBudget, RateLimited, refusal
from bot.runs.services import Services
from bot.store.api_sessions import ApiSessions
from bot.store.kinds import Lane, RunMode, RunStatus
from bot.store.records import Conversation, RunRecord, Scope
from bot.view.i18n import text
from bot.view.read_view import read_dict
from bot.view.transcript import View, replay, without_glassbox_remarks
from bot.view.when import wait_text
from bot.web.api_images import pictures_of
from bot.web.bodies import MAX_STORED_ID, PAGE, ApiError, ChatBody, chat_body
from bot.web.openapi import OPENAPI
from bot.web.shapes import STORED_MODES, api_mode, run_json, sse

log = logging.getLogger(__name__)

MODEL_DOWN = frozenset({ModelErrorKind.CONNECTION, ModelErrorKind.TIMEOUT, ModelErrorKind.SERVER,
                        ModelErrorKind.RATE_LIMIT, ModelErrorKind.MODEL_NOT_FOUND,
                        ModelErrorKind.AUTH, ModelErrorKind.QUOTA})
"""RunFinished.error_kind values that mean the model is unavailable (503), not the question."""


def api_routes(services: Services) -> list[BaseRoute]:
    settings = services.settings
    tokens = [token.get_secret_value().encode() for token in settings.api_tokens]

    async def authorised(request: Request) -> Conversation:
        """The token's scope of an authorised request."""
        if not tokens:
            raise ApiError(404, "not_found", "This Glassbox has no HTTP API (API_TOKENS is "
                           "not set).")
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        given = given.strip()
        if scheme.lower() != "bearer" or not any(
                hmac.compare_digest(given.encode(), token) for token in tokens):
            raise ApiError(401, "unauthorized",
                           "Send a valid token: Authorization: Bearer <token>.")
        return await services.store.api.scope(given)

    async def chat(request: Request) -> Response:
        scope = await authorised(request)
        body = await chat_body(request, settings.album_max_photos)
        if body.runs is not None:
            refused = await refusal(services.store, services.settings, scope, None)
            if refused is not None:  # a comparison is a run of the token's, and judged
                raise _refused(refused)
            return await _compared(services, scope, body.runs)
        run = await _start(services, scope, body, stream=False)
        return _answer(run, await run.ended(), body.showSteps)

    async def chat_stream(request: Request) -> Response:
        scope = await authorised(request)
        body = await chat_body(request, settings.album_max_photos)
        run = await _start(services, scope, body, stream=True)

        async def stream() -> AsyncIterator[str]:
            assert run.heard is not None
            number = 0
            while (item := await run.heard.get()) is not None:
                lane, event = item
                two = run.mode in (RunMode.COMPARE, RunMode.MODELS)
                if isinstance(event, RunFinished) and not two:
                    continue  # the run's own run_finished closes the stream
                data = event.to_dict()
                if isinstance(event, InputRead):  # worded as the chat and `reads` word it
                    data.update(read_dict(event, run.view.lang))
                if two:
                    data["lane"] = lane
                number += 1
                yield sse(number, event.type, data)
            status = await run.ended()
            end = run.view.outcome()
            data = {**end.to_dict(), "status": status,
                    "runId": run.record.id, "sessionId": run.session_id,
                    "answer": run_json(run.record, run.view, status, run.session_id,
                                       steps=False)["answer"]}
            yield sse(number + 1, "run_finished", data)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store"})

    async def one_run(request: Request) -> Response:
        scope = await authorised(request)
        api = services.store.api
        run_id = request.path_params["run_id"]
        record = await api.run_by_id(scope, run_id) if run_id <= MAX_STORED_ID else None
        if record is None:
            raise ApiError(404, "no_such_run", "No run of this token has that id.")
        view = replay(record, await services.store.events(record.id), detect_lang(record.question),
                      remarks=(await services.chat_settings(scope)).remarks)
        return JSONResponse(run_json(record, view, record.status,
                                     await api.session_of(record.id), steps=True))

    async def list_runs(request: Request) -> Response:
        scope = await authorised(request)
        api = services.store.api
        session = request.query_params.get("sessionId", "")
        if session:
            records = list(reversed(await api.session_runs(scope, session)))
            page = {"page": 1, "pages": 1, "total": len(records)}
        else:
            number = request.query_params.get("page", "1")
            if not PAGE.fullmatch(number) or int(number) < 1:
                raise ApiError(400, "invalid_query", "page: expected a whole number from 1.")
            found = await services.store.history(Scope.of(scope), page=int(number))
            records = list(found.runs)
            page = {"page": found.page, "pages": found.pages, "total": found.total}
        sessions = await api.sessions_of([r.id for r in records])
        runs = [{"runId": r.id, "sessionId": sessions.get(r.id, ""),
                 "question": r.question, "mode": api_mode(r.mode), "status": r.status,
                 "answer": r.answer, "startedAt": r.started_at.isoformat(),
                 "durationMs": r.duration_ms} for r in records]
        return JSONResponse({**page, "runs": runs})

    async def stats(request: Request) -> Response:
        """The course's figures of the token's own runs over `from`..`to`."""
        scope = await authorised(request)
        zone = (await services.chat_settings(scope)).timezone
        period = from_query(request.query_params.get("from", ""),
                            request.query_params.get("to", ""), zone, today_in(zone))
        if isinstance(period, PeriodProblem):
            raise ApiError(400, "invalid_query", "from, to: " + word(
                "en", f"period_{period}", most=MAX_DAYS) + " Dates are YYYY-MM-DD.")
        return JSONResponse((await services.course.figures(Scope.of(scope), period)).data())

    async def openapi(request: Request) -> Response:
        return JSONResponse(OPENAPI)

    async def not_found(request: Request) -> Response:
        raise ApiError(404, "not_found", "No such API endpoint (see /openapi.json).")

    return [
        Route("/api/v1/chat", _guarded(chat), methods=["POST"]),
        Route("/api/v1/chat/stream", _guarded(chat_stream), methods=["POST"]),
        Route("/api/v1/runs/{run_id:int}", _guarded(one_run), methods=["GET"]),
        Route("/api/v1/runs", _guarded(list_runs), methods=["GET"]),
        Route("/api/v1/stats", _guarded(stats), methods=["GET"]),
        Route("/openapi.json", openapi, methods=["GET"]),
        Route("/api/{rest:path}", _guarded(not_found)),
    ]


async def _compared(services: Services, scope: Conversation, run_ids: list[int]) -> Response:
    """Two stored runs of the token's side by side (bot/runs/compare_runs.py), asked
    nothing again, their answers judged: the comparison, stored as a run of the token's, as
    GET /api/v1/runs/{runId} gives it."""
    api, found = services.store.api, []
    for run_id in run_ids:
        record = await api.run_by_id(scope, run_id)
        if record is None:
            raise ApiError(404, "no_such_run", f"No run of this token has the id {run_id}.")
        found.append(record)
    settings = await services.chat_settings(scope)
    made = await compare_stored(services.store, Scope.of(scope), scope, user_id=None,
                                user_name=f"API {scope.id}", left=found[0].n,
                                right=found[1].n, zone=settings.timezone,
                                client=services.runs.client, tools=services.runs.tools)
    if isinstance(made, Refused):
        words = {Unfit.SAME: "runs: two different runs are needed.",
                 Unfit.RUNNING: "runs: one of them is still running; compare it once it ended.",
                 Unfit.COMPARISON: "runs: a comparison is no side of another.",
                 Unfit.MISSING: "runs: no run of this token has that id."}
        raise ApiError(409 if made.why is Unfit.RUNNING else 400, "cannot_compare",
                       words[made.why])
    view = replay(made, await services.store.events(made.id), detect_lang(made.question),
                  remarks=settings.remarks)
    return JSONResponse(run_json(made, view, made.status, "", steps=False))


async def _start(services: Services, scope: Conversation, body: ChatBody, *,
                 stream: bool) -> _ApiRun:
    """Ask in the token's session, through the run service as every front end does (the
    token asks: no Telegram user); an ApiError when it may not start now."""
    api = services.store.api
    session_id = body.sessionId or secrets.token_urlsafe(12)
    earlier = await api.session_runs(scope, session_id)
    models = tuple(_model_names(services, body.models)) if body.models else ()
    photos = await _photos(services.runs.settings, body.images)
    chat = await services.chat_settings(scope)
    # photos alone ask what a photo without a caption asks in a chat, in the scope's language
    question = body.message.strip() or text(chat.words_lang("en"), "photo_question")
    run = _ApiRun(api, session_id, RunMode.MODELS if models else STORED_MODES[body.mode],
                  stream=stream)
    started = await services.runs.ask(Ask(
        mode=run.mode, text=question, conversation=scope, user_id=None,
        user_name=f"API {scope.id}", run_lang=detect_lang(question),
        follows=earlier[-1] if earlier else None, planner=True if body.plan else None,
        chat=chat, models=models, photos=photos),
        run)  # the scope's settings
    if not isinstance(started, Active):
        raise _refused(started)
    return run


async def _photos(settings: BotSettings, images: list[str]) -> tuple[Picture, ...]:
    """The body's images as the chat's photos are read; a 400 when nobody reads photos."""
    if images and settings.photos_read_by is None:
        raise ApiError(400, "photos_off", "images: this Glassbox reads no photos (PHOTO_OCR "
                       "is off and PHOTO_READING=ocr); ask in words.")
    return await pictures_of(images, settings.album_max_photos)


def _model_names(services: Services, asked: list[str]) -> list[str]:
    """The two models `asked` names, as the bot names them; a 400 naming the models there
    are for a name none has, or for one model twice."""
    known = services.runs.models.names
    names = []
    for name in asked:
        found = known_name(name, known)
        if found is None:
            raise ApiError(400, "unknown_model", f"models: there is no model called "
                           f"{name[:40]!r}; the models: {', '.join(known)}.")
        names.append(found)
    if names[0] == names[1]:
        raise ApiError(400, "invalid_body", f"models: two different models are needed; the "
                       f"models: {', '.join(known)}.")
    return names


def _refused(refused: Refusal) -> ApiError:
    """Why a question may not start, as the API says it (429, with Retry-After)."""
    match refused:
        case RateLimited(runs=runs, window=window, wait=wait):
            return ApiError(429, "rate_limited", f"This token has asked {runs} questions in "
                            f"the last {_minutes(window)}; it may ask again in "
                            f"{_minutes(wait)}.", wait.total_seconds())
        case OverBudget(budget=budget, wait=wait):
            return ApiError(429, "rate_limited", f"This token has used up today's budget of "
                            f"{budget:,} tokens; it frees up in {_minutes(wait)} (at 00:00 "
                            f"UTC).", wait.total_seconds())
        case Busy():
            return ApiError(429, "busy", "A run of this token is still running: one at a "
                            "time.", 2)


def _minutes(span: timedelta) -> str:
    return wait_text(span, "en")


class _ApiRun:
    """The run service's `Front` for one API question: the run's record and view for the
    answer, its events for a stream (`heard`, None after the last), its session."""

    def __init__(self, api: ApiSessions, session_id: str, mode: RunMode, *,
                 stream: bool) -> None:
        self.api, self.session_id, self.mode = api, session_id, mode
        self.heard: asyncio.Queue[tuple[str, Event] | None] | None = (
            asyncio.Queue() if stream else None)
        self.handle: Active | None = None
        self.record: RunRecord | None = None
        self.unsaved = False

    def claimed(self, run: Active) -> None:
        self.handle = run

    def queued(self, ahead: Callable[[], int]) -> None:
        """The caller waits for its answer all the same."""

    async def not_saved(self) -> None:
        self.unsaved = True
        if self.heard is not None:
            self.heard.put_nowait(None)

    async def started(self, record: RunRecord, view: View) -> Gate | None:
        self.record, self.view = record, view
        await self.api.add_to_session(record.id, self.session_id)
        return None

    def stepped(self, lane: str, event: Event | None) -> None:
        if self.heard is None or event is None:
            return
        shown = event if self.view.remarks else without_glassbox_remarks(event)
        if shown is not None:
            self.heard.put_nowait((lane, shown))

    async def finished(self, status: str | None) -> None:
        if self.heard is not None:
            self.heard.put_nowait(None)

    async def ended(self) -> str:
        """How the run ended, once its slot is free again (so the token may ask at once)."""
        assert self.handle is not None
        status = await self.handle.ended()
        if self.unsaved:
            raise ApiError(503, "not_saved", "The run could not be saved, so it did not start;"
                           " please try again.", 5)
        if status is None or self.record is None:
            raise RuntimeError("the run failed before it was finished (logged)")
        return status


def _answer(run: _ApiRun, status: str, steps: bool) -> Response:
    end = run.view.outcome()
    data = run_json(run.record, run.view, status, run.session_id, steps=steps,
                    usage=end.usage, duration_ms=end.duration_ms)
    finished = run.view.finished.get(Lane.REACT) or run.view.finished.get(Lane.MAIN)
    if status == RunStatus.ERROR and finished is not None and finished.error_kind in MODEL_DOWN:
        return JSONResponse({"error": {"status": 503, "code": "model_unavailable",
                                       "message": finished.reason or "The model could not "
                                       "be reached."}, "run": data},
                            status_code=503, headers={"Retry-After": "30"})
    return JSONResponse(data)


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

