"""The Starlette application: which path goes where. Telegram's webhook, /healthz and
/metrics here; the class board and the API add their own routes."""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Awaitable, Callable
from importlib.metadata import PackageNotFoundError, version
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route
from telegram import Update

from bot.app import App
from bot.settings import BotSettings
from bot.web.api import api_routes
from bot.web.board import board_routes
from bot.web.metrics import CONTENT_TYPE

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


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
        routes.append(Route(webhook_path(settings), _webhook(app, settings), methods=["POST"]))
    return Starlette(routes=routes)


def webhook_path(settings: BotSettings) -> str:
    return "/" + urlsplit(settings.webhook_url).path.lstrip("/")


def _webhook(app: App, settings: BotSettings) -> Callable[[Request], Awaitable[Response]]:
    """Telegram's pushed updates (python-telegram-bot's custom-webhook recipe): each goes on
    the update queue, as polling would put it. Only Telegram knows WEBHOOK_SECRET."""
    secret = settings.webhook_secret.get_secret_value().encode()

    async def receive(request: Request) -> Response:
        given = request.headers.get(SECRET_HEADER, "").encode()
        if secret and not hmac.compare_digest(given, secret):
            return Response(status_code=403)
        try:
            data = json.loads(await request.body())
            update = Update.de_json(data, app.bot)
        except Exception:
            log.warning("the webhook got a body that is not an update; ignored")
            return Response(status_code=400)
        await app.update_queue.put(update)
        return Response()

    return receive
