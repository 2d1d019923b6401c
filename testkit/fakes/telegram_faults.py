"""The fake Bot API with the faults and odd updates of a real class: connections that
reset or stall (before the call is carried out, or after it with the reply lost), a host
that refuses connections, messages deleted by someone, edits, channel posts, photos with
captions, anonymous admins, 409 Conflict while another instance polls."""

from __future__ import annotations

import json
import time
from collections import defaultdict, deque
from typing import Any

from testkit.fakes.server import Reply, Request, wire
from testkit.fakes.telegram import FakeTelegram
from testkit.fakes.telegram_html import utf16_units

FAULTS = ("reset", "stall", "reset-after", "stall-after")

ANONYMOUS_ADMIN = {"id": 1087968824, "is_bot": True, "first_name": "Group",
                   "username": "GroupAnonymousBot"}
"""Who a message from an anonymous group admin is `from` (its `sender_chat` is the group)."""
CHANNEL_BOT = {"id": 136817688, "is_bot": True, "first_name": "Channel",
               "username": "Channel_Bot"}
"""Who a message posted in a group on behalf of a channel is `from` (`sender_chat`: the
channel)."""


class FaultyTelegram(FakeTelegram):
    def __init__(self, scale: float = 1.0) -> None:
        super().__init__(scale)
        self.breaks: dict[str, deque[str | Reply]] = defaultdict(deque)
        self.stall_s = 1.0
        self.broken: list[str] = []
        """The methods of the calls that were reset or stalled, in order."""

    def break_next(self, method: str, fault: str | Reply, times: int = 1) -> None:
        """The next `times` calls of `method` are not served: `reset` cuts the connection
        at once, `stall` after `stall_s` (longer than the bot's request timeout); a Reply
        (say a proxy's HTML 502 page) is sent instead of the Bot API's answer. With
        `reset-after` and `stall-after` the call is carried out first (a message is sent
        or edited) and only its reply is lost, as when Telegram did the work but the
        answer never made it back."""
        assert isinstance(fault, Reply) or fault in FAULTS
        self.breaks[method].extend([fault] * times)

    def refuse(self) -> None:
        """Telegram cannot be reached: every new connection is refused, so the bot knows its
        call was never sent, until `admit()`. The long poll's open connection goes on, so
        updates still arrive."""
        self.refuse_connections(keep=lambda path: path.endswith("/getUpdates"))

    def admit(self) -> None:
        """Reachable again after `refuse()`."""
        self.accept_connections()

    def conflict(self, times: int) -> None:
        """The next `times` getUpdates calls answer 409: another instance is polling."""
        body = json.loads(wire("telegram/error_409_conflict_getupdates.json"))
        self.break_next("getUpdates", Reply.json(body, 409), times)

    # -- updates a real chat produces ---------------------------------------------------

    def post(self, chat_id: int, sender: dict[str, Any], **fields: Any) -> int:
        """A message of any kind (`text`, `photo` with `caption`, `sticker`, `sender_chat`…)."""
        with self.lock:
            msg = self._store(chat_id, sender, fields.get("text", fields.get("caption", "")),
                              "", None)
            data = {**self._message_json(msg), **fields}
            if "text" not in fields:
                data.pop("text")
            words = (fields.get("text") or fields.get("caption") or "").split(maxsplit=1)
            if words and words[0].startswith("/"):
                key = "entities" if "text" in fields else "caption_entities"
                data[key] = [{"offset": 0, "length": utf16_units(words[0]),
                              "type": "bot_command"}]
            self._queue({"message": data})
        return msg.message_id

    def poll_from_an_older_server(self) -> int:
        """A `poll` update (a poll the bot sent got a vote) as a Bot API server older than 9.6
        sends it (tests/wire/telegram/getUpdates_poll_before_9_6.json: its options have no
        `persistent_id`); its update_id."""
        sample = json.loads(wire("telegram/getUpdates_poll_before_9_6.json"))["result"][0]
        with self.lock:
            update_id = self._next_update
            self._queue({"poll": sample["poll"]})
        return update_id

    def channel(self, chat_id: int, title: str) -> int:
        """A channel (its members may post in groups on its behalf)."""
        self.chats[chat_id] = {"id": chat_id, "title": title, "type": "channel"}
        return chat_id

    def posted_as(self, chat_id: int, sender_chat_id: int, text: str) -> int:
        """A message in group `chat_id` posted as a chat, as Telegram sends it: `from` the
        placeholder user every such message shares, `sender_chat` who it really is: a
        channel, or the group itself (an anonymous admin)."""
        placeholder = ANONYMOUS_ADMIN if sender_chat_id == chat_id else CHANNEL_BOT
        return self.post(chat_id, placeholder, text=text,
                         sender_chat=self.chats[sender_chat_id])

    def photo(self, chat_id: int, user_id: int, caption: str = "") -> int:
        size = {"file_id": "AgACAgIAAxkBAAIBZ2fake", "file_unique_id": "AQADfake",
                "width": 90, "height": 90, "file_size": 1200}
        fields: dict[str, Any] = {"photo": [size]}
        if caption:
            fields["caption"] = caption
        return self.post(chat_id, self.users[user_id], **fields)

    def edit_by_user(self, chat_id: int, message_id: int, text: str) -> None:
        """The author edits their message: Telegram sends an `edited_message`."""
        with self.lock:
            msg = self.messages[chat_id, message_id]
            msg.text = text
            data = {**self._message_json(msg), "edit_date": int(time.time())}
            if text.startswith("/"):
                data["entities"] = [{"offset": 0, "length": utf16_units(text.split()[0]),
                                     "type": "bot_command"}]
            self._queue({"edited_message": data})

    def channel_post(self, chat_id: int, text: str) -> None:
        """A post in a channel the bot is in (no `from`, a `sender_chat`)."""
        with self.lock:
            self.chats[chat_id] = {"id": chat_id, "title": "Course news", "type": "channel"}
            self._next_id[chat_id] += 1
            self._queue({"channel_post": {
                "message_id": self._next_id[chat_id], "sender_chat": self.chats[chat_id],
                "chat": self.chats[chat_id], "date": int(time.time()), "text": text,
                "entities": [{"offset": 0, "length": utf16_units(text.split()[0]),
                              "type": "bot_command"}] if text.startswith("/") else []}})

    def delete(self, chat_id: int, message_id: int) -> None:
        """Someone deletes a message (an admin tidying the group)."""
        with self.lock:
            del self.messages[chat_id, message_id]

    def answers_to_taps(self) -> list[str]:
        """The texts of the bot's answerCallbackQuery calls, in order."""
        with self.lock:
            return [c.params.get("text", "") for c in self.calls
                    if c.method == "answerCallbackQuery"]

    # -- the bot's side -----------------------------------------------------------------

    def _handle(self, request: Request) -> Reply:
        method = request.path.rsplit("/", 1)[-1]
        with self.lock:
            fault = self.breaks[method].popleft() if self.breaks[method] else None
            if fault:
                self.broken.append(method)
        if isinstance(fault, Reply):
            return fault
        if fault in ("reset-after", "stall-after"):
            super()._handle(request)  # carried out; the reply is lost below
        if fault in ("stall", "stall-after"):
            self.stopping.wait(self.stall_s)
        if fault:
            return Reply(reset=True)
        return super()._handle(request)

