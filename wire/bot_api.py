"""One Bot API call through python-telegram-bot's request layer, without the objects its
`Bot` methods build around it.

`Bot.edit_message_text` and its kind copy and check their arguments, turn each of our
buttons and options into a TelegramObject and back into JSON, and build a `Message` (with
its `User` and `Chat`, frozen attribute by attribute) from every reply; a live message only
ever reads a sent message's id. Under load that was a third of each call's CPU (issue 16).
Here a call goes to `bot.request.post`, the request object every `Bot` method uses (the same
HTTP client, timeouts and metrics) with the same failures (`RetryAfter`, `BadRequest`,
`Forbidden`, `TimedOut` / `NetworkError`: call_errors reads them), and the reply's `result`
comes back as the JSON Telegram sent. Parameters are what the Bot API documents; a dict or a
list goes as JSON, an `InputFile` as a multipart upload.

(PTB's `Bot.do_api_request` would do the same, but warns on every call to a method `Bot`
has; the parameters are encoded here, as `_Params`, because how PTB builds a RequestData
is, in its words, not public.)
"""

from __future__ import annotations

import json
from typing import Any

from telegram import Bot, InputFile
from telegram.request import RequestData

Result = dict[str, Any] | list[Any] | bool


async def call(bot: Bot, method: str, **params: object) -> Result:
    """Make Bot API call `method` (e.g. "editMessageText") with `params` (None: left out);
    Telegram's `result`."""
    return await bot.request.post(f"{bot.base_url}/{method}", _Params(params))


class _Params(RequestData):
    """A call's parameters as PTB's Bot methods encode them, read by a request class through
    RequestData's documented properties (`json_parameters`, `json_payload`, `multipart_data`,
    `contains_files`): a str as it is (an enum of PTB's is a str), anything else as its JSON,
    an `InputFile` as a file of the multipart upload."""

    __slots__ = ("_files", "_json", "_values")

    def __init__(self, params: dict[str, object]) -> None:
        super().__init__()
        self._values = {name: value for name, value in params.items() if value is not None}
        self._json: dict[str, str] = {}
        self._files: dict[str, Any] = {}
        for name, value in self._values.items():
            if isinstance(value, InputFile):
                self._files[name] = value.field_tuple
            else:
                self._json[name] = str(value) if isinstance(value, str) else json.dumps(value)
        self.contains_files = bool(self._files)

    @property
    def parameters(self) -> dict[str, Any]:
        return self._values

    @property
    def json_parameters(self) -> dict[str, str]:
        return self._json

    @property
    def multipart_data(self) -> dict[str, Any]:
        return self._files
