"""Updates the installed python-telegram-bot cannot read: a shape it does not know, as a Bot
API server older than the library sends (a poll whose options have no `persistent_id`, before
Bot API 9.6), or Telegram on the day it changes a shape before the library follows. Left to
the library, one such update fails the whole getUpdates answer, which is fetched again at
the same offset at once, for ever. Here each update is read on its own, and one that fails
is logged by its id and type (never its body: it holds what people wrote), counted on
/metrics, and skipped; the bot goes on with the next."""

from __future__ import annotations

import logging
from typing import Any

import telegram
from telegram import Bot, Update

from bot.runs.metrics import Metrics
from wire.telegram_request import TelegramRequest

log = logging.getLogger(__name__)

UPDATE_TYPES = frozenset(Update.ALL_TYPES)
OTHER = "other"
"""The type label of an update of no type the library knows (a bounded set of labels)."""


def update_id_of(data: object) -> int | None:
    """The `update_id` of what should be an update; None if it has none."""
    value = data.get("update_id") if isinstance(data, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def type_of(data: object) -> str:
    """The update's type (its field beside `update_id`), or OTHER."""
    if not isinstance(data, dict):
        return OTHER
    kind = next((key for key in data if key != "update_id"), OTHER)
    return kind if kind in UPDATE_TYPES else OTHER


def read_update(data: object, bot: Bot | None, metrics: Metrics) -> Update | None:
    """The update python-telegram-bot reads from `data`; None (logged, counted) if it cannot."""
    try:
        return Update.de_json(data, bot)  # type: ignore[arg-type]  # a dict, or it raises
    except Exception as err:  # RecursionError too: whatever the library raises on a shape
        kind = type_of(data)
        metrics.updates_skipped.labels(kind).inc()
        log.warning("update %s (%s) skipped: python-telegram-bot %s cannot read it (%s); a "
                    "Bot API server older than the library sends such updates",
                    update_id_of(data), kind, telegram.__version__, type(err).__name__)
        return None


class UpdatesRequest(TelegramRequest):
    """The request getUpdates goes through (the Application's `get_updates_request`). Its
    answer is read update by update before the library reads it, in `parse_json_payload`
    (python-telegram-bot's documented hook), and an update it cannot read is replaced by its
    bare `update_id`: no handler takes a bare update, and the library confirms it with the
    next getUpdates as any other, so the offset moves past it."""

    def __init__(self, metrics: Metrics, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.metrics = metrics

    def parse_json_payload(self, payload: bytes) -> dict[str, Any]:  # type: ignore[override]
        answer = super().parse_json_payload(payload)
        updates = answer.get("result") if isinstance(answer, dict) and answer.get("ok") is True \
            else None
        if isinstance(updates, list):
            answer["result"] = [u for u in map(self._readable, updates) if u is not None]
        return answer

    def _readable(self, data: object) -> object | None:
        """`data` if the library can read it; else its bare id (None if it has none: then it
        cannot be confirmed either, and is dropped)."""
        if read_update(data, None, self.metrics) is not None:
            return data
        update_id = update_id_of(data)
        return None if update_id is None else {"update_id": update_id}
