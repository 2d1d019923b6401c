"""What the fake Bot API keeps and answers with: messages, calls, errors, and the JSON shapes
of the Bot API docs for a document and a chat member."""

from __future__ import annotations

import functools
import io
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from PIL import Image


class ApiError(Exception):
    def __init__(self, code: int, description: str, retry_after: int | None = None) -> None:
        super().__init__(description)
        self.reply = {"ok": False, "error_code": code, "description": description}
        if retry_after is not None:
            self.reply["parameters"] = {"retry_after": retry_after}


@dataclass(frozen=True)
class Document:
    """A file the bot sent, as received: its name, type and bytes."""

    file_name: str
    mime_type: str
    content: bytes
    size: int | None = None
    """The size the Bot API reports, when a test makes it other than the content's."""


@dataclass(frozen=True)
class Photo:
    """A picture the bot sent, as uploaded: its bytes and size in pixels."""

    content: bytes
    width: int
    height: int


PHOTO_SIDES = (90, 320, 800, 1280, 2560)
"""The longest sides of the copies Telegram keeps of a photo ('s', 'm', 'x', 'y', 'w'); none
larger than the upload."""


@functools.lru_cache(maxsize=32)
def renditions(photo: Photo) -> tuple[tuple[int, int, int, bytes], ...]:
    """The copies Telegram keeps of a photo, smallest first: (longest side, width, height,
    JPEG bytes), re-encoded at each of PHOTO_SIDES below its own longest side and at that
    side (at most the largest)."""
    longest = max(photo.width, photo.height)
    sides = [side for side in PHOTO_SIDES if side < longest] + [min(longest, PHOTO_SIDES[-1])]
    with Image.open(io.BytesIO(photo.content)) as image:
        picture = image.convert("RGB")
    copies = []
    for side in sides:
        width = max(1, round(photo.width * side / longest))
        height = max(1, round(photo.height * side / longest))
        out = io.BytesIO()
        picture.resize((width, height), Image.Resampling.LANCZOS).save(out, "JPEG", quality=87)
        copies.append((side, width, height, out.getvalue()))
    return tuple(copies)


def photo_file_id(chat_id: int, message_id: int, side: int) -> str:
    return f"AgACAgIAAxkDAAI{abs(chat_id)}x{message_id:05d}x{side}"


def photo_json(chat_id: int, message_id: int, photo: Photo) -> list[dict[str, Any]]:
    """A Message's `photo` field: the Bot API's PhotoSize array, smallest first."""
    return [{"file_id": photo_file_id(chat_id, message_id, side),
             "file_unique_id": f"AQAD{abs(chat_id)}{message_id:05d}{side}",
             "width": width, "height": height, "file_size": len(jpeg)}
            for side, width, height, jpeg in renditions(photo)]


class SoundKind(StrEnum):
    VOICE = "voice"
    """A voice note (OGG/Opus, recorded in Telegram): a Message's `voice`."""
    AUDIO = "audio"
    """An audio file sent as music (MP3, M4A, ...): a Message's `audio`."""


@dataclass(frozen=True)
class Sound:
    """A voice message or audio file a user sent: its bytes and what Telegram says of it
    (`duration`: the sender's app's word, whole seconds)."""

    kind: SoundKind
    content: bytes
    duration: int
    mime_type: str = "audio/ogg"
    file_name: str = ""
    """An audio file's name (voice notes have none)."""
    size: int | None = None
    """The size the Bot API reports, when a test makes it other than the content's."""


SOUND_FILE_IDS = {SoundKind.VOICE: "AwACAgIAAxkBAAI", SoundKind.AUDIO: "CQACAgIAAxkBAAI"}
"""How Telegram's file_ids of each kind begin (their first bytes encode the file's type)."""
SOUND_PATHS = {SoundKind.VOICE: "voice/file_{n}.oga", SoundKind.AUDIO: "music/file_{n}.{ext}"}
"""Where getFile puts each kind (`file_path`)."""


def sound_id(chat_id: int, message_id: int, kind: SoundKind) -> str:
    return f"{SOUND_FILE_IDS[kind]}{abs(chat_id)}x{message_id:05d}"


def sound_json(chat_id: int, message_id: int, sound: Sound) -> dict[str, Any]:
    """A Message's `voice` (Voice) or `audio` (Audio) field, in the Bot API's key order
    (tests/wire/telegram/getUpdates_voice_audio.json)."""
    data: dict[str, Any] = {"duration": sound.duration}
    if sound.kind is SoundKind.AUDIO and sound.file_name:
        data["file_name"] = sound.file_name
    data["mime_type"] = sound.mime_type
    return {**data, "file_id": sound_id(chat_id, message_id, sound.kind),
            "file_unique_id": f"AgAD{abs(chat_id)}{message_id:05d}",
            "file_size": sound.size or len(sound.content)}


@dataclass
class Message:
    chat_id: int
    message_id: int
    sender: dict[str, Any]
    text: str
    """As the chat shows it: entities parsed, or the raw text without parse_mode."""
    raw: str = ""
    parse_mode: str = ""
    reply_to: int | None = None
    reply_markup: dict[str, Any] | None = None
    versions: list[str] = field(default_factory=list)
    """Every text it showed, first to last."""
    changed_at: float = 0.0
    """When it began to show what it shows now (time.monotonic)."""
    document: Document | None = None
    """A document message's file (`text` is then its caption)."""
    poll: Any = None
    """A poll message's testkit.fakes.telegram_polls.Poll (`text` is then its question)."""
    photo: Photo | None = None
    """A photo message's picture (`text` is then its caption)."""
    sound: Sound | None = None
    """A voice message's or audio file's sound (`text` is then its caption)."""
    media_group_id: str = ""
    """The album a user's photo was sent in, if any."""
    deleted: bool = False
    """Deleted (deleteMessage): no longer in the chat."""

    @property
    def buttons(self) -> list[str]:
        rows = (self.reply_markup or {}).get("inline_keyboard", [])
        return [button["text"] for row in rows for button in row]

    def button_data(self, text: str) -> str:
        rows = (self.reply_markup or {}).get("inline_keyboard", [])
        return next(b["callback_data"] for row in rows for b in row if b["text"] == text)


@dataclass(frozen=True)
class Frame:
    """One state a message showed, as sent: its raw text (HTML when `parse_mode` says so),
    its buttons and document (or poll), when it began to show."""

    chat_id: int
    message_id: int
    from_bot: bool
    sender_name: str
    raw: str
    parse_mode: str
    reply_to: int | None
    buttons: list[list[str]]
    """The inline keyboard's button texts, row by row."""
    document: Document | None
    at: float
    poll: dict[str, Any] | None = None
    """A poll message's Poll object as it stood (open when sent, with its counts once
    stopped)."""
    deleted: bool = False
    """The message was deleted: from here on it is not in the chat."""
    photo: Photo | None = None
    """A photo message's picture (`raw` is then its caption)."""
    sound: Sound | None = None
    """A voice message's or audio file's sound (`raw` is then its caption)."""


@dataclass
class Call:
    method: str
    params: dict[str, Any]
    at: float
    ok: bool = True
    error: str = ""


def document_json(chat_id: int, message_id: int, document: Document) -> dict[str, Any]:
    """A Message's `document` field, as the Bot API describes a Document."""
    return {"file_name": document.file_name, "mime_type": document.mime_type,
            "file_id": file_id(chat_id, message_id),
            "file_unique_id": f"AgAD{abs(chat_id)}{message_id:05d}",
            "file_size": document.size or len(document.content)}


def file_id(chat_id: int, message_id: int) -> str:
    return f"BQACAgIAAxkDAAI{abs(chat_id)}x{message_id:05d}"


def chat_member(user: dict[str, Any], *, admin: bool) -> dict[str, Any]:
    """A ChatMember: `administrator` with its rights (all but promoting), or `member`."""
    if not admin:
        return {"user": user, "status": "member"}
    rights = ("can_manage_chat", "can_delete_messages", "can_manage_video_chats",
              "can_restrict_members", "can_promote_members", "can_change_info",
              "can_invite_users", "can_post_stories", "can_edit_stories", "can_delete_stories",
              "can_pin_messages")
    return {"user": user, "status": "administrator", "can_be_edited": False,
            "is_anonymous": False, **{right: right != "can_promote_members" for right in rights}}
