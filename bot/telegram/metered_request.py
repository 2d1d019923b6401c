"""The request every Bot API call goes through, counted on /metrics."""

from __future__ import annotations

from typing import Any

from bot.runs.metrics import Metrics
from bot.telegram.delivery.telegram_request import AiohttpRequest


class MeteredRequest(AiohttpRequest):
    """python-telegram-bot's request, counting each Bot API call and each 429."""

    def __init__(self, metrics: Metrics, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.metrics = metrics

    async def do_request(self, url: str, method: str, *args: Any,
                         **kwargs: Any) -> tuple[int, bytes]:
        name = url.rsplit("/", 1)[-1]  # the Bot API method; the URL before it holds the token
        self.metrics.telegram_call(name)
        code, payload = await super().do_request(url, method, *args, **kwargs)
        if code == 429:
            self.metrics.telegram_429.labels(name).inc()
        return code, payload
