"""A fake Telegram Bot API on a real local HTTP server, for running the real
python-telegram-bot Application without a network.

It keeps chats and messages, queues updates for `getUpdates` (a short long poll),
answers in the shapes of tests/wire/telegram/ (non-ASCII escaped, as the real API does),
and enforces what Telegram enforces: HTML entities, 4,096 UTF-16 units after parsing,
"message text is empty" for a text with nothing visible, "message is not modified", and
flood limits (one message a second per chat with a short burst of PER_CHAT_BURST, 20 a
minute per group, 30 a second overall: 429 with `retry_after`). `scale` shrinks those time
windows so a test can run many minutes of traffic in a second; `latency` makes every call
take that long, as the real API does over the network (benchmarks). Every call is recorded;
errors can be forced per method."""

from __future__ import annotations

import asyncio
import io
import json
import math
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter, defaultdict, deque
from collections.abc import Callable
from typing import Any

from PIL import Image

from testkit.fakes.server import FakeServer, Reply, Request, wire
from testkit.fakes.telegram_html import CantParseEntities, parse_html, shows_nothing, utf16_units
from testkit.fakes.telegram_objects import (
    SOUND_PATHS,
    ApiError,
    Call,
    Document,
    Frame,
    Message,
    Photo,
    Sound,
    chat_member,
    document_json,
    file_id,
    photo_file_id,
    photo_json,
    renditions,
    sound_id,
    sound_json,
)
from testkit.fakes.telegram_polls import Poll, new_poll

TOKEN = "7000000001:FAKE-token-for-tests-0123456789abcdef"
BOT = {"id": 7000000001, "is_bot": True, "first_name": "Glassbox", "username": "GlassboxBot"}
LIMITED = {"sendMessage", "sendDocument", "sendPhoto", "sendPoll", "editMessageText",
           "editMessageReplyMarkup"}
MAX_DOWNLOAD_BYTES = 20 * 1024 * 1024
MAX_PHOTO_BYTES, MAX_CAPTION = 10 * 1024 * 1024, 1024
PER_CHAT_S, GROUP_WINDOW_S, GROUP_MAX, GLOBAL_WINDOW_S, GLOBAL_MAX = 1.0, 60.0, 20, 1.0, 30
PER_CHAT_BURST = 2
"""Telegram's bot FAQ ("My bot is hitting limits, how do I avoid this?"): in a chat "avoid
sending more than one message per second. We may allow short bursts that go over this
limit, but eventually you'll begin receiving 429 errors"; in a group no more than 20
messages a minute; about 30 a second overall. It gives no burst size: a chat is modelled
as a token bucket of one a second holding this many (two back to back after a quiet
second, then one a second), in private chats and groups alike (the FAQ's per-chat rule
does not tell them apart). sendMessageDraft (Bot API 9.3) is answered but not limited:
its documentation states no limit, and the bot does not call it."""


def command_entities(text: str) -> list[dict[str, Any]]:
    """The bot_command entity Telegram gives a text or caption that starts with a command."""
    if not text.startswith("/"):
        return []
    command = text.split(maxsplit=1)[0]
    return [{"offset": 0, "length": utf16_units(command), "type": "bot_command"}]


class FakeTelegram(FakeServer):
    def __init__(self, scale: float = 1.0, token: str = TOKEN, latency: float = 0.0,
                 long_poll_s: float = 1.0) -> None:
        super().__init__(self._handle)
        self.token = token
        self.scale = scale
        self.latency = latency
        """Seconds each call takes: half on the way in, half on the way back."""
        self.long_poll_s = long_poll_s
        """The longest a `getUpdates` waits for an update (less than the `timeout` asked, so
        that a test's bot stops promptly; the bench's stage holds them as Telegram does)."""
        self.polls = 0
        self.lock = threading.Condition()
        self.calls: list[Call] = []
        self.messages: dict[tuple[int, int], Message] = {}
        self.chats: dict[int, dict[str, Any]] = {}
        self.users: dict[int, dict[str, Any]] = {}
        self.commands: list[dict[str, Any]] = []
        self.admins: set[tuple[int, int]] = set()
        self.errors: dict[str, deque[dict[str, Any]]] = defaultdict(deque)
        self.too_many = 0
        self.frames: list[Frame] = []
        """Every state any message showed, in order: sends, edits, the users' messages."""
        self._updates: list[dict[str, Any]] = []
        self.file_paths: dict[str, bytes] = {}
        """Files getFile has given a path to, by that path (downloaded from /file/bot…)."""
        self.webhook: dict[str, str] = {}
        """setWebhook's url and secret_token: updates are then POSTed there, as Telegram does."""
        self.pushed: list[dict[str, Any]] = []
        """Every update POSTed to the webhook, in order (`push` delivers one again)."""
        self.push_statuses: list[int] = []
        """The webhook's HTTP status for each of those deliveries (0: no answer)."""
        self.handed: Counter[int] = Counter()
        """How many times getUpdates handed out each update, by update_id."""
        self._next_update = 1
        self._next_id: dict[int, int] = defaultdict(lambda: 100)
        self._sent: dict[int, deque[float]] = defaultdict(deque)
        self._chat_tat: dict[int, float] = {}
        """Each chat's token bucket as GCRA: when it is full again less one token."""
        self._all_sent: deque[float] = deque()

    @property
    def base_url(self) -> str:
        """What TELEGRAM_API_BASE_URL is set to; the token is appended."""
        return self.url + "/bot"

    # -- the test's side ------------------------------------------------------------

    def user(self, user_id: int, first_name: str = "Alice", language_code: str = "en") -> int:
        self.users[user_id] = {"id": user_id, "is_bot": False, "first_name": first_name,
                               "language_code": language_code}
        self.chats.setdefault(user_id, {"id": user_id, "first_name": first_name,
                                        "type": "private"})
        return user_id

    def group(self, chat_id: int, title: str = "Class") -> int:
        self.chats[chat_id] = {"id": chat_id, "title": title, "type": "supergroup"}
        return chat_id

    def admin(self, chat_id: int, user_id: int) -> None:
        """Make a user an administrator of a group (getChatMember says so)."""
        self.admins.add((chat_id, user_id))

    def send(self, chat_id: int, user_id: int, text: str, reply_to: int | None = None) -> int:
        """A user writes in a chat; returns the new message's id."""
        with self.lock:
            msg = self._store(chat_id, self.users[user_id], text, text, reply_to)
            self._frame(msg)
            data = self._message_json(msg)
            if entities := command_entities(text):
                data["entities"] = entities
            self._queue({"message": data})
        return msg.message_id

    def send_document(self, chat_id: int, user_id: int, name: str, content: bytes, *,
                      caption: str = "", size: int | None = None,
                      mime_type: str = "application/octet-stream") -> int:
        """A user sends a file (with a caption); `size`: the size Telegram reports, if it is
        to differ from the content's (a file too big to download)."""
        with self.lock:
            msg = self._store(chat_id, self.users[user_id], caption, caption, None)
            msg.document = Document(name, mime_type, content, size)
            data = self._message_json(msg)
            if entities := command_entities(caption):
                data["caption_entities"] = entities
            self._queue({"message": data})
        return msg.message_id

    def send_sound(self, chat_id: int, user_id: int, sound: Sound, *, caption: str = "",
                   reply_to: int | None = None) -> int:
        """A user sends a voice message or an audio file (with a caption); returns its id."""
        with self.lock:
            msg = self._store(chat_id, self.users[user_id], caption, caption, reply_to)
            msg.sound = sound
            self._frame(msg)
            self._queue({"message": self._message_json(msg)})
        return msg.message_id

    def send_photo(self, chat_id: int, user_id: int, picture: bytes, *, caption: str = "",
                   reply_to: int | None = None, media_group_id: str = "") -> int:
        """A user sends a photo (with a caption; in an album when `media_group_id`): the bot
        gets its PhotoSize copies (tests/wire/telegram/getUpdates_photo_album.json), each
        downloadable through getFile."""
        with Image.open(io.BytesIO(picture)) as image:
            width, height = image.size
        with self.lock:
            msg = self._store(chat_id, self.users[user_id], caption, caption, reply_to)
            msg.photo = Photo(picture, width, height)
            msg.media_group_id = media_group_id
            self._frame(msg)
            data = self._message_json(msg)
            if entities := command_entities(caption):
                data["caption_entities"] = entities
            self._queue({"message": data})
        return msg.message_id

    def tap(self, chat_id: int, user_id: int, message_id: int, data: str) -> str:
        """A user taps an inline button; returns the callback query id."""
        with self.lock:
            query_id = str(5300686241531967 + self._next_update)
            self._queue({"callback_query": {
                "id": query_id, "from": self.users[user_id],
                "message": self._message_json(self.messages[chat_id, message_id]),
                "chat_instance": str(-3621411919573543680 - chat_id), "data": data}})
        return query_id

    def vote(self, chat_id: int, user_id: int, message_id: int, options: list[int]) -> bool:
        """A user taps options of the bot's poll; the bot gets a `poll_answer` update if the poll
        is not anonymous. False when Telegram would not take the vote: the poll is closed, or
        the user voted already (our polls do not allow revoting)."""
        with self.lock:
            poll = self.messages[chat_id, message_id].poll
            if poll is None or poll.closed or user_id in poll.votes:
                return False
            answer = poll.answer(self.users[user_id], options)
            if not poll.anonymous:
                self._queue({"poll_answer": answer})
        return True

    def poll(self, chat_id: int, message_id: int) -> Poll | None:
        with self.lock:
            return self.messages[chat_id, message_id].poll

    def fail(self, method: str, reply: str | dict[str, Any], times: int = 1) -> None:
        """Answer the next `times` calls of `method` with an error (a wire file name or a body)."""
        body = json.loads(wire(f"telegram/{reply}")) if isinstance(reply, str) else reply
        self.errors[method].extend([body] * times)

    def all_taken(self) -> bool:
        """Whether the bot has asked for updates past every one queued so far: a polling
        client asks past an update only once it has it in hand (python-telegram-bot: in its
        application's queue)."""
        with self.lock:
            return not self._updates

    def bot_messages(self, chat_id: int) -> list[Message]:
        with self.lock:
            return [m for (c, _), m in sorted(self.messages.items())
                    if c == chat_id and m.sender is BOT and not m.deleted]

    def methods(self, chat_id: int | None = None) -> list[str]:
        """The names of the calls so far (for one chat), in order."""
        with self.lock:
            return [c.method for c in self.calls
                    if chat_id is None or str(c.params.get("chat_id")) == str(chat_id)]

    async def wait(self, predicate: Callable[[], bool], timeout: float = 10.0) -> None:
        """Wait until `predicate()` holds (checked every few ms), or fail the test."""
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError("the fake Telegram never saw the expected state")
            await asyncio.sleep(0.005)

    # -- the bot's side ---------------------------------------------------------------

    def _handle(self, request: Request) -> Reply:
        if self.latency:
            self.stopping.wait(self.latency / 2)
        reply = self._answer(request)
        if self.latency:
            self.stopping.wait(self.latency / 2)
        return reply

    def _answer(self, request: Request) -> Reply:
        prefix = f"/bot{self.token}/"
        path = urllib.parse.unquote(request.path)  # python-telegram-bot quotes a file URL
        if path.startswith(f"/file/bot{self.token}/"):
            return self._download(path[len(f"/file/bot{self.token}/"):])
        if not request.path.startswith(prefix):
            return Reply.json(json.loads(wire("telegram/error_401_unauthorized.json")), 401)
        method = request.path[len(prefix):]
        params = request.form()
        files = request.files()
        if method == "getUpdates":
            return self._ok(self._get_updates(params))
        with self.lock:
            call = Call(method, params, time.monotonic())
            self.calls.append(call)
            try:
                if self.errors[method]:
                    body = self.errors[method].popleft()
                    raise ApiError(body["error_code"], body["description"],
                                   body.get("parameters", {}).get("retry_after"))
                result = self._dispatch(method, params, call.at, files)
            except ApiError as err:
                call.ok, call.error = False, str(err)
                self.too_many += err.reply["error_code"] == 429
                return Reply.json(err.reply, err.reply["error_code"])
        return self._ok(result)

    def _ok(self, result: Any) -> Reply:
        return Reply.json({"ok": True, "result": result})

    def _dispatch(self, method: str, p: dict[str, Any], now: float,
                  files: dict[str, tuple[str, bytes]]) -> Any:
        if method in LIMITED:
            self._flood_check(int(p["chat_id"]), now)
            result = self._message_call(method, p, files)
            chat_id = int(p["chat_id"])  # only what got through counts:
            self._sent[chat_id].append(now)
            self._chat_tat[chat_id] = max(self._chat_tat.get(chat_id, now), now) \
                + PER_CHAT_S * self.scale
            self._all_sent.append(now)
            return result
        if method == "stopPoll":
            return self._stop_poll(int(p["chat_id"]), int(p["message_id"]))
        if method == "deleteMessage":
            return self._delete(int(p["chat_id"]), int(p["message_id"]))
        if method == "getMe":
            return {**BOT, "can_join_groups": True, "can_read_all_group_messages": False,
                    "supports_inline_queries": False}
        if method == "setMyCommands":
            self.commands.append({"commands": json.loads(p["commands"]),
                                  "scope": json.loads(p.get("scope", "null")),
                                  "language_code": p.get("language_code", "")})
            return True
        if method == "getFile":
            return self._get_file(p["file_id"])
        if method == "getChatMember":
            return self._chat_member(int(p["chat_id"]), int(p["user_id"]))
        if method == "getChatAdministrators":
            return self._chat_admins(int(p["chat_id"]))
        if method == "setWebhook":
            self.webhook = {"url": p["url"], "secret_token": p.get("secret_token", "")}
            return True
        if method in {"deleteWebhook", "sendChatAction", "answerCallbackQuery",
                      "sendMessageDraft", "deleteMyCommands"}:
            return True
        raise ApiError(404, "Not Found")

    def _message_call(self, method: str, p: dict[str, Any],
                      files: dict[str, tuple[str, bytes]]) -> dict[str, Any]:
        if method == "sendMessage":
            return self._send_message(p)
        if method == "sendDocument":
            return self._send_document(p, files)
        if method == "sendPhoto":
            return self._send_photo(p, files)
        if method == "sendPoll":
            return self._send_poll(p)
        if method == "editMessageText":
            return self._edit(p, p["text"])
        msg = self.messages[int(p["chat_id"]), int(p["message_id"])]
        return self._edit(p, msg.raw, msg.parse_mode)

    def _flood_check(self, chat_id: int, now: float) -> None:
        sent = self._sent[chat_id]
        waits = []
        allowed_from = self._chat_tat.get(chat_id, now) \
            - (PER_CHAT_BURST - 1) * PER_CHAT_S * self.scale
        if now < allowed_from:
            waits.append(allowed_from - now)
        window = [t for t in sent if now - t < GROUP_WINDOW_S * self.scale]
        if chat_id < 0 and len(window) >= GROUP_MAX:
            waits.append(window[0] + GROUP_WINDOW_S * self.scale - now)
        while self._all_sent and now - self._all_sent[0] >= GLOBAL_WINDOW_S * self.scale:
            self._all_sent.popleft()
        if len(self._all_sent) >= GLOBAL_MAX:
            waits.append(self._all_sent[0] + GLOBAL_WINDOW_S * self.scale - now)
        if waits:
            after = max(1, math.ceil(max(waits)))
            raise ApiError(429, f"Too Many Requests: retry after {after}", after)

    def _text(self, p: dict[str, Any], text: str) -> tuple[str, str]:
        mode = p.get("parse_mode", "")
        try:
            shown = (parse_html(text).text if mode.upper() == "HTML" else text).strip()
        except CantParseEntities as err:
            if "too long" in str(err):
                raise ApiError(400, "Bad Request: message is too long") from None
            raise ApiError(400, f"Bad Request: can't parse entities: {err}") from None
        if shows_nothing(shown):
            raise ApiError(400, json.loads(wire(
                "telegram/error_400_message_text_is_empty.json"))["description"])
        if utf16_units(shown) > 4096:
            raise ApiError(400, "Bad Request: message is too long")
        return shown, mode

    def _send_message(self, p: dict[str, Any]) -> dict[str, Any]:
        chat_id = int(p["chat_id"])
        shown, mode = self._text(p, p["text"])
        reply = json.loads(p["reply_parameters"])["message_id"] if "reply_parameters" in p \
            else p.get("reply_to_message_id")
        msg = self._store(chat_id, BOT, shown, p["text"], int(reply) if reply else None)
        msg.parse_mode = mode
        msg.reply_markup = json.loads(p["reply_markup"]) if "reply_markup" in p else None
        self._frame(msg)
        return self._message_json(msg)

    def _send_document(self, p: dict[str, Any],
                       files: dict[str, tuple[str, bytes]]) -> dict[str, Any]:
        """A new upload (multipart), shown with its caption (HTML parsed if asked)."""
        if "document" not in files:
            raise ApiError(400, "Bad Request: there is no document in the request")
        name, content = files["document"]
        caption, mode = self._text(p, p["caption"]) if p.get("caption") else ("", "")
        reply = json.loads(p["reply_parameters"])["message_id"] if "reply_parameters" in p \
            else None
        msg = self._store(int(p["chat_id"]), BOT, caption, p.get("caption", ""), reply)
        msg.parse_mode = mode
        msg.document = Document(name, "text/html" if name.endswith(".html") else
                                "application/octet-stream", content)
        self._frame(msg)
        return self._message_json(msg)

    def _send_photo(self, p: dict[str, Any],
                    files: dict[str, tuple[str, bytes]]) -> dict[str, Any]:
        """A picture uploaded (multipart, as a bot sends a new one), shown with its caption.
        What the Bot API documents and answers: a caption of at most 1,024 characters after
        entities are parsed, at most 10 MB, width and height together at most 10,000 and a
        ratio of at most 20; a file that is no picture cannot be processed."""
        if "photo" not in files:
            raise ApiError(400, "Bad Request: there is no photo in the request")
        content = files["photo"][1]
        if len(content) > MAX_PHOTO_BYTES:
            raise ApiError(400, "Bad Request: PHOTO_SAVE_FILE_INVALID")
        try:
            with Image.open(io.BytesIO(content)) as image:
                image.verify()
                width, height = image.size
        except (OSError, SyntaxError, ValueError):
            raise ApiError(400, "Bad Request: IMAGE_PROCESS_FAILED") from None
        if width + height > 10_000 or max(width, height) > 20 * min(width, height):
            raise ApiError(400, "Bad Request: PHOTO_INVALID_DIMENSIONS")
        caption, mode = "", ""
        if p.get("caption"):
            mode = p.get("parse_mode", "")
            try:
                caption = (parse_html(p["caption"]).text if mode.upper() == "HTML"
                           else p["caption"]).strip()
            except CantParseEntities as err:
                raise ApiError(400, f"Bad Request: can't parse entities: {err}") from None
            if utf16_units(caption) > MAX_CAPTION:
                raise ApiError(400, "Bad Request: message caption is too long")
        reply = json.loads(p["reply_parameters"])["message_id"] if "reply_parameters" in p \
            else None
        msg = self._store(int(p["chat_id"]), BOT, caption, p.get("caption", ""), reply)
        msg.parse_mode = mode
        msg.photo = Photo(content, width, height)
        self._frame(msg)
        return self._message_json(msg)

    def _send_poll(self, p: dict[str, Any]) -> dict[str, Any]:
        """A native poll (tests/wire/telegram/sendPoll_quiz_ok.json): the Message with it."""
        chat_id = int(p["chat_id"])
        poll = new_poll(str(5208567329817837613 + len(self.calls)), p)
        reply = json.loads(p["reply_parameters"])["message_id"] if "reply_parameters" in p \
            else None
        msg = self._store(chat_id, BOT, poll.question, poll.question, reply)
        msg.poll = poll
        self._frame(msg)
        return self._message_json(msg)

    def _stop_poll(self, chat_id: int, message_id: int) -> dict[str, Any]:
        """Close a poll the bot sent; the stopped Poll with its final counts (stopPoll_ok.json)."""
        msg = self.messages.get((chat_id, message_id))
        if msg is None or msg.deleted:
            raise ApiError(400, "Bad Request: message with poll to stop not found")
        if msg.poll is None:
            raise ApiError(400, "Bad Request: message is not a poll")
        if msg.poll.closed:
            raise ApiError(400, json.loads(wire(
                "telegram/error_400_poll_already_closed.json"))["description"])
        msg.poll.closed = True
        msg.changed_at = time.monotonic()
        self._frame(msg)
        return msg.poll.json()

    def _delete(self, chat_id: int, message_id: int) -> bool:
        """Delete a message (deleteMessage_ok.json); it stays in `messages`, marked, so a test
        still reads what it was."""
        msg = self.messages.get((chat_id, message_id))
        if msg is None or msg.deleted:
            raise ApiError(400, json.loads(wire(
                "telegram/error_400_message_to_delete_not_found.json"))["description"])
        msg.deleted = True
        msg.changed_at = time.monotonic()
        self._frame(msg)
        return True

    def _get_file(self, wanted: str) -> dict[str, Any]:
        """A File with its `file_path`, as getFile answers (getFile_photo_ok.json); Telegram
        lets bots download at most 20 MB ("file is too big" beyond)."""
        for (chat_id, message_id), msg in self.messages.items():
            sound = msg.sound
            if sound is not None and sound_id(chat_id, message_id, sound.kind) == wanted:
                size = sound.size or len(sound.content)
                if size > MAX_DOWNLOAD_BYTES:
                    raise ApiError(400, "Bad Request: file is too big")
                ext = sound.file_name.rsplit(".", 1)[-1] if "." in sound.file_name else "mp3"
                path = SOUND_PATHS[sound.kind].format(n=len(self.file_paths), ext=ext)
                self.file_paths[path] = sound.content
                return {"file_id": wanted, "file_unique_id": f"AgAD{abs(chat_id)}{message_id:05d}",
                        "file_size": size, "file_path": path}
            if msg.photo is not None and wanted.startswith(photo_file_id(chat_id, message_id, 0)
                                                           [:-1]):
                for side, _, _, jpeg in renditions(msg.photo):
                    if photo_file_id(chat_id, message_id, side) == wanted:
                        path = f"photos/file_{message_id}_{side}.jpg"
                        self.file_paths[path] = jpeg
                        return {"file_id": wanted, "file_unique_id":
                                f"AQAD{abs(chat_id)}{message_id:05d}{side}",
                                "file_size": len(jpeg), "file_path": path}
            if msg.document is not None and file_id(chat_id, message_id) == wanted:
                size = msg.document.size or len(msg.document.content)
                if size > MAX_DOWNLOAD_BYTES:
                    raise ApiError(400, "Bad Request: file is too big")
                suffix = msg.document.file_name.rsplit(".", 1)[-1]
                path = f"documents/file_{message_id}_{abs(chat_id)}.{suffix}"
                self.file_paths[path] = msg.document.content
                return {"file_id": wanted, "file_unique_id": f"AgAD{abs(chat_id)}{message_id:05d}",
                        "file_size": size, "file_path": path}
        raise ApiError(400, "Bad Request: invalid file_id")

    def _download(self, path: str) -> Reply:
        """A file's bytes at `/file/bot<token>/<file_path>`, as Telegram serves them."""
        with self.lock:
            self.calls.append(Call("download", {"file_path": path}, time.monotonic()))
            content = self.file_paths.get(path)
        if content is None:
            return Reply.json({"ok": False, "error_code": 404, "description": "Not Found"}, 404)
        return Reply(200, content, {"Content-Type": "application/octet-stream"})

    def _chat_admins(self, chat_id: int) -> list[dict[str, Any]]:
        """The group's administrators as ChatMember objects (no bots, as the Bot API's
        getChatAdministrators)."""
        if chat_id not in self.chats:
            raise ApiError(400, "Bad Request: chat not found")
        return [chat_member(self.users[user_id], admin=True)
                for chat, user_id in sorted(self.admins) if chat == chat_id]

    def _chat_member(self, chat_id: int, user_id: int) -> dict[str, Any]:
        """A ChatMember in the Bot API's shapes: administrator (with its rights) or member."""
        if user_id not in self.users or chat_id not in self.chats:
            raise ApiError(400, "Bad Request: user not found")
        return chat_member(self.users[user_id], admin=(chat_id, user_id) in self.admins)

    def _edit(self, p: dict[str, Any], text: str, mode: str | None = None) -> dict[str, Any]:
        key = int(p["chat_id"]), int(p["message_id"])
        if key not in self.messages or self.messages[key].deleted:
            raise ApiError(400, "Bad Request: message to edit not found")
        msg = self.messages[key]
        shown, mode = self._text(p, text) if mode is None else (msg.text, mode)
        markup = json.loads(p["reply_markup"]) if "reply_markup" in p else None
        if (shown, markup) == (msg.text, msg.reply_markup):
            raise ApiError(400, json.loads(wire(
                "telegram/error_400_message_not_modified.json"))["description"])
        msg.text, msg.raw, msg.parse_mode, msg.reply_markup = shown, text, mode, markup
        msg.versions.append(shown)
        msg.changed_at = time.monotonic()
        self._frame(msg)
        return {**self._message_json(msg), "edit_date": int(time.time())}

    def _frame(self, msg: Message) -> None:
        rows = [[b["text"] for b in row] for row in (msg.reply_markup or {}).get(
            "inline_keyboard", [])]
        self.frames.append(Frame(msg.chat_id, msg.message_id, msg.sender.get("is_bot", False),
                                 msg.sender.get("first_name", ""), msg.raw, msg.parse_mode,
                                 msg.reply_to, rows, msg.document, msg.changed_at,
                                 None if msg.poll is None else msg.poll.json(), msg.deleted,
                                 msg.photo, msg.sound))

    def _store(self, chat_id: int, sender: dict[str, Any], shown: str, raw: str,
               reply_to: int | None) -> Message:
        self._next_id[chat_id] += 1
        msg = Message(chat_id, self._next_id[chat_id], sender, shown, raw, reply_to=reply_to,
                      versions=[shown], changed_at=time.monotonic())
        self.messages[chat_id, msg.message_id] = msg
        return msg

    def _message_json(self, msg: Message, nested: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {"message_id": msg.message_id, "from": msg.sender,
                                "chat": self.chats[msg.chat_id], "date": int(time.time())}
        if msg.poll is not None:
            data["poll"] = msg.poll.json()
        elif msg.sound is not None:
            data[msg.sound.kind.value] = sound_json(msg.chat_id, msg.message_id, msg.sound)
            if msg.text:
                data["caption"] = msg.text
        elif msg.photo is not None:
            data["photo"] = photo_json(msg.chat_id, msg.message_id, msg.photo)
            if msg.text:
                data["caption"] = msg.text
            if msg.media_group_id:
                data["media_group_id"] = msg.media_group_id
        elif msg.document is None:
            data["text"] = msg.text
        else:
            data["document"] = document_json(msg.chat_id, msg.message_id, msg.document)
            if msg.text:
                data["caption"] = msg.text
        if msg.reply_markup:
            data["reply_markup"] = msg.reply_markup
        if msg.reply_to is not None and not nested and (msg.chat_id, msg.reply_to) in self.messages:
            data["reply_to_message"] = self._message_json(
                self.messages[msg.chat_id, msg.reply_to], nested=True)
        return data

    def _queue(self, update: dict[str, Any]) -> None:
        update = {"update_id": self._next_update, **update}
        self._next_update += 1
        if self.webhook:
            threading.Thread(target=self.push, args=(update,), daemon=True).start()
            return
        self._updates.append(update)
        self.lock.notify_all()

    def push(self, update: dict[str, Any]) -> int:
        """Deliver an update to the bot's webhook, as Telegram does once one is set (and
        again when it thinks a delivery failed); the webhook's HTTP status (0: none)."""
        with self.lock:
            self.pushed.append(update)
        request = urllib.request.Request(
            self.webhook["url"], data=json.dumps(update).encode(), method="POST",
            headers={"Content-Type": "application/json",
                     "X-Telegram-Bot-Api-Secret-Token": self.webhook["secret_token"]})
        status = 0
        try:
            with urllib.request.urlopen(request, timeout=10) as reply:
                status = reply.status
        except urllib.error.HTTPError as err:
            status = err.code
        except OSError:
            pass
        with self.lock:
            self.push_statuses.append(status)
        return status

    def _get_updates(self, p: dict[str, Any]) -> list[dict[str, Any]]:
        offset = int(p.get("offset") or 0)
        deadline = time.monotonic() + min(float(p.get("timeout") or 0), self.long_poll_s)
        with self.lock:
            self.polls += 1
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
            while not self._updates and not self.stopping.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.lock.wait(min(left, 0.05))
            self.handed.update(u["update_id"] for u in self._updates)
            return list(self._updates)
