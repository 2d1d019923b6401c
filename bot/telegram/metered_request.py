"""The request every Bot API call goes through, counted on /metrics."""

from __future__ import annotations

import re
from typing import Any

from bot.runs.metrics import Metrics
from wire.telegram_request import TelegramRequest

METHOD = re.compile(r"[A-Za-z]{1,64}")
FILE_LABEL = "(file)"


def method_label(url: str) -> str:
    """The Bot API method a call's URL names (`…/bot<token>/sendMessage`); a file's download
    (`…/file/bot<token>/documents/file_7.md`) is one label for all files, so /metrics never
    shows a path nor grows a series per file."""
    head, _, name = url.rpartition("/")
    if head.rpartition("/")[2].startswith("bot") and METHOD.fullmatch(name):
        return name
    return FILE_LABEL


class MeteredRequest(TelegramRequest):
    """python-telegram-bot's request, counting each Bot API call and each 429."""

    def __init__(self, metrics: Metrics, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.metrics = metrics

    async def do_request(self, url: str, method: str, *args: Any,
                         **kwargs: Any) -> tuple[int, bytes]:
        name = method_label(url)
        self.metrics.telegram_call(name)
        code, payload = await super().do_request(url, method, *args, **kwargs)
        if code == 429:
            self.metrics.telegram_429.labels(name).inc()
        return code, payload
