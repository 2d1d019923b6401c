"""The course page over HTTP, behind the class board's secret: `/board/<token>/course` (the
page), `.csv` (the period's runs for a spreadsheet), `.json` (the figures the page shows),
and `/board/<token>/course/runs/<n>` (the board showing run n, where the page's lists
link). `from` and `to` pick the period (ISO dates, in the chat's time zone); `lang=zh`
the words. A link that was reset answers 404 as the board does.
"""

from __future__ import annotations

import html

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route

from bot.course.course_words import word
from bot.course.csv_file import runs_csv
from bot.course.drawing import AlreadyDrawing, DrawingFailed, TooBusy
from bot.course.page import course_page
from bot.course.period import MAX_DAYS, Period, PeriodProblem, from_query, today_in
from bot.runs.services import Services
from bot.store.records import Scope, telegram_chat
from bot.view.board_html import board_page
from bot.web.board import PAGE_HEADERS as BOARD_HEADERS
from bot.web.board import gone
from bot.web.bodies import MAX_STORED_ID
from wire.wire_errors import GlassboxError

PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src data:; "
                               "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer", "Cache-Control": "no-store",
}
"""No script at all; its own style; the charts as data: images; the picker's form to itself."""


def course_routes(services: Services) -> list[BaseRoute]:

    async def opened(request: Request) -> tuple[Scope, Period | PeriodProblem, str]:
        chat_id = await services.store.boards.chat(request.path_params["token"])
        if chat_id is None:
            raise _Gone
        zone = (await services.chat_settings(telegram_chat(chat_id))).timezone
        query = request.query_params
        lang = "zh" if query.get("lang", "").startswith("zh") else "en"
        period = from_query(query.get("from", ""), query.get("to", ""), zone, today_in(zone))
        return Scope(chat_id), period, lang

    async def page(request: Request) -> Response:
        try:
            scope, period, lang = await opened(request)
        except _Gone:
            return gone()
        if isinstance(period, PeriodProblem):
            return _problem(period, lang)
        try:
            with services.drawing.turn(("course", scope.chat_id)):
                figures = await services.course.figures(scope, period)
                svgs = await services.drawing.svgs(figures, lang)
        except (AlreadyDrawing, TooBusy, DrawingFailed):
            return HTMLResponse(_words_page(word(lang, "drawing_busy")), status_code=503,
                                headers={**PAGE_HEADERS, "Retry-After": "5"})
        return HTMLResponse(course_page(figures, svgs, lang), headers=PAGE_HEADERS)

    async def data(request: Request) -> Response:
        try:
            scope, period, lang = await opened(request)
        except _Gone:
            return JSONResponse({"error": "no such board"}, status_code=404)
        if isinstance(period, PeriodProblem):
            return JSONResponse({"error": word(lang, f"period_{period}", most=MAX_DAYS)},
                                status_code=400)
        figures = await services.course.figures(scope, period)
        return JSONResponse(figures.data(), headers={"Cache-Control": "no-store"})

    async def table(request: Request) -> Response:
        try:
            scope, period, lang = await opened(request)
        except _Gone:
            return gone()
        if isinstance(period, PeriodProblem):
            return _problem(period, lang)
        lines = await services.course.lines(scope, period)
        body = runs_csv(lines, lang, period.zone,
                        anonymous=services.settings.course_anonymous_askers)
        name = f"course-{period.first.isoformat()}-{period.last.isoformat()}.csv"
        return Response("\ufeff" + body, media_type="text/csv; charset=utf-8", headers={
            "Content-Disposition": f'attachment; filename="{name}"',
            "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"})

    async def run(request: Request) -> Response:
        try:
            _, _, lang = await opened(request)
        except _Gone:
            return gone()
        n = request.path_params["n"]
        if n > MAX_STORED_ID:
            return gone()
        return HTMLResponse(board_page(request.path_params["token"], lang, run=n),
                            headers={"Cache-Control": "no-store", **BOARD_HEADERS})

    return [
        Route("/board/{token}/course", page, methods=["GET"]),
        Route("/board/{token}/course.json", data, methods=["GET"]),
        Route("/board/{token}/course.csv", table, methods=["GET"]),
        Route("/board/{token}/course/runs/{n:int}", run, methods=["GET"]),
    ]


class _Gone(GlassboxError):
    """No such board link (reset, or never made), or the bot is starting."""


def _problem(problem: PeriodProblem, lang: str) -> Response:
    return HTMLResponse(_words_page(word(lang, f"period_{problem}", most=MAX_DAYS)),
                        status_code=400, headers=PAGE_HEADERS)


def _words_page(words: str) -> str:
    return (f"<!DOCTYPE html><meta charset=\"utf-8\"><title>Glassbox</title>"
            f"<p>{html.escape(words)}</p>")
