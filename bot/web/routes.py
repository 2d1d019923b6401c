"""The Starlette application: which path goes where. /healthz and /metrics here; the class
board and the API add their own routes, and other front ends theirs (Telegram's webhook)."""

from __future__ import annotations

from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from bot.runs.metrics import CONTENT_TYPE
from bot.runs.services import Services
from bot.web.api import api_routes
from bot.web.board import Leads, board_routes
from bot.web.course_routes import course_routes


def glassbox_version() -> str:
    try:
        return version("glassbox")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown"


def web_app(services: Services, others: Sequence[BaseRoute] = (), *,
            leads: Leads | None = None) -> Starlette:
    """The HTTP front end over `services`, with `others`' routes; `leads`: the class board's
    (board_routes)."""

    async def healthz(request: Request) -> Response:
        readable = await services.store.readable()
        return JSONResponse({"status": "ok" if readable else "unavailable",
                             "version": glassbox_version(),
                             "database": "ok" if readable else "unreadable"},
                            status_code=200 if readable else 503)

    async def metrics(request: Request) -> Response:
        return Response(services.metrics.exposition(), media_type=CONTENT_TYPE)

    routes: list[BaseRoute] = [Route("/healthz", healthz, methods=["GET"]),
                               Route("/metrics", metrics, methods=["GET"]),
                               *board_routes(services, leads), *course_routes(services),
                               *api_routes(services), *others]
    return Starlette(routes=routes)
