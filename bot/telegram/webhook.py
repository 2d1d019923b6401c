"""Telegram's pushed updates (python-telegram-bot's custom-webhook recipe): each goes on the
update queue, as polling would put it.

Only Telegram knows WEBHOOK_SECRET (a random one is registered when none is set), so a
stranger's hand-made update is refused (403). A body longer than any update is refused
before it is read whole (413), an update Telegram delivers again (it does when it
thinks a call failed) is handled once, and one python-telegram-bot cannot read is skipped
(answered 200, or Telegram would deliver it again and again).
"""

from __future__ import annotations

import hmac
import json
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from bot.bot_settings import BotSettings
from bot.runs.metrics import Metrics
from bot.telegram.app import App
from bot.telegram.unreadable import read_update, update_id_of
from bot.web.bodies import capped_body

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
MAX_UPDATE_BYTES = 1024 * 1024
"""An update's JSON is at most a few tens of KB (a 4,096-character message with its
entities, a reply it quotes); a body longer than this is no update."""
REMEMBERED_UPDATES = 4096
"""update_ids remembered to drop a second delivery of the same update."""


class RecentIds:
    """The last `size` ids seen, to tell a repeat from a new one (bounded memory)."""

    def __init__(self, size: int = REMEMBERED_UPDATES) -> None:
        self.size = size
        self._seen: OrderedDict[int, None] = OrderedDict()

    def first_time(self, key: int) -> bool:
        """Whether `key` is new; it is remembered either way."""
        if key in self._seen:
            self._seen.move_to_end(key)
            return False
        self._seen[key] = None
        if len(self._seen) > self.size:
            self._seen.popitem(last=False)
        return True


def webhook_routes(app: App, settings: BotSettings, metrics: Metrics) -> list[BaseRoute]:
    """The webhook's route, when WEBHOOK_URL is set (none for long polling); updates the
    library cannot read are counted in `metrics`."""
    if not settings.webhook_url:
        return []
    return [Route(webhook_path(settings), webhook(app, settings, metrics), methods=["POST"])]


def webhook_path(settings: BotSettings) -> str:
    return "/" + urlsplit(settings.webhook_url).path.lstrip("/")


def webhook(app: App, settings: BotSettings, metrics: Metrics
            ) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint at webhook_path."""
    secret = settings.webhook_secret.get_secret_value().encode()
    seen = RecentIds()

    async def receive(request: Request) -> Response:
        given = request.headers.get(SECRET_HEADER, "").encode()
        if not hmac.compare_digest(given, secret):
            return Response(status_code=403)
        raw = await capped_body(request, MAX_UPDATE_BYTES)
        if raw is None:
            log.warning("the webhook got a body longer than %d bytes; refused",
                        MAX_UPDATE_BYTES)
            return Response(status_code=413)
        try:
            data = json.loads(raw)
        except Exception:  # RecursionError too: never a 500 Telegram would retry
            data = None
        update_id = update_id_of(data)
        if update_id is None:
            log.warning("the webhook got a body that is not an update; ignored")
            return Response(status_code=400)
        if not seen.first_time(update_id):
            log.info("update %d delivered again; handled once", update_id)
            return Response()
        update = read_update(data, app.bot, metrics)
        if update is not None:
            await app.update_queue.put(update)
        return Response()  # one the library cannot read too: Telegram would redeliver it

    return receive
