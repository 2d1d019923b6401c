"""The Starlette application: which path goes where. Telegram's webhook, /healthz and
/metrics here; the class board and the API add their own routes."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from bot.runs.metrics import CONTENT_TYPE
from bot.settings import BotSettings
from bot.telegram.app import App
from bot.telegram.webhook import webhook, webhook_path
from bot.web.api import api_routes
from bot.web.board import board_routes


def glassbox_version() -> str:
    try:
        return version("glassbox")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown"


def web_app(app: App, settings: BotSettings) -> Starlette:
    """The HTTP side of the running bot `app` (a python-telegram-bot Application)."""

    async def healthz(request: Request) -> Response:
        parts = app.bot_data.parts
        readable = parts is not None and await parts.store.readable()
        return JSONResponse({"status": "ok" if readable else "unavailable",
                             "version": glassbox_version(),
                             "database": "ok" if readable else "unreadable"},
                            status_code=200 if readable else 503)

    async def metrics(request: Request) -> Response:
        return Response(app.bot_data.metrics.exposition(), media_type=CONTENT_TYPE)

    routes: list[BaseRoute] = [Route("/healthz", healthz, methods=["GET"]),
                               Route("/metrics", metrics, methods=["GET"]),
                               *board_routes(app), *api_routes(app, settings)]
    if settings.webhook_url:
        routes.append(Route(webhook_path(settings), webhook(app, settings), methods=["POST"]))
    return Starlette(routes=routes)
