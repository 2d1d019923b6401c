"""One Bot API call through python-telegram-bot's request layer, without the objects its
`Bot` methods build around it.

`Bot.edit_message_text` and its kind copy and check their arguments, turn each of our
buttons and options into a TelegramObject and back into JSON, and build a `Message` (with
its `User` and `Chat`, frozen attribute by attribute) from every reply; a live message only
ever reads a sent message's id. Under load that was a third of each call's CPU (issue 16).
Here a call goes to `bot.request.post`, the request object every `Bot` method uses (the same
HTTP client, timeouts and metrics) with the same failures (`RetryAfter`, `BadRequest`,
`Forbidden`, `TimedOut` / `NetworkError` raised from httpx's error: call_errors reads them),
and the reply's `result` comes back as the JSON Telegram sent. Parameters are what the Bot
API documents; a dict or a list goes as JSON, an `InputFile` as a multipart upload.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from telegram import Bot
from telegram.request import RequestData

# PTB's own conversion of one parameter (JSON for objects, multipart for files), as its
# Bot methods use it; not re-exported by telegram.request.
from telegram.request._requestparameter import RequestParameter

from bot.view.buttons import Keyboard

Result = dict[str, Any] | list[Any] | bool


async def call(bot: Bot, method: str, **params: object) -> Result:
    """Make Bot API call `method` (e.g. "editMessageText") with `params` (None: left out);
    Telegram's `result`."""
    data = RequestData([RequestParameter.from_input(name, value)
                        for name, value in params.items() if value is not None])
    return await bot.request.post(f"{bot.base_url}/{method}", data)


@lru_cache(maxsize=1024)
def inline_keyboard(buttons: Keyboard | None) -> str | None:
    """The view's buttons as an `InlineKeyboardMarkup`'s JSON (None: no buttons)."""
    if not buttons:
        return None
    return json.dumps({"inline_keyboard": [[{"text": b.label, "callback_data": b.data}
                                            for b in row] for row in buttons]},
                      ensure_ascii=False)
