"""What the HTTP API accepts, checked before anything runs, and its errors as JSON.

Every refusal is `{"error": {"status", "code", "message"}}` with the right status, never a
stack trace: 400 a body that is not JSON or not the shape below, 401 no or a wrong token,
404 nothing there (or no API at all), 413 too long, 429 too soon (with Retry-After), 503
the model could not be reached.
"""

from __future__ import annotations

import json
import math
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from starlette.requests import Request
from starlette.responses import JSONResponse

from bot.runs.ask import MAX_QUESTION_CHARS
from wire.wire_errors import GlassboxError

MAX_BODY_BYTES = 64 * 1024
"""A request body longer than this, besides its images, is refused unread (413)."""
MAX_IMAGE_BYTES = 4 * 1024 * 1024
"""The most bytes one image of a body may have, decoded (a 12 MP phone photo as a JPEG
fits); its base64 takes a third more (bot/web/api_images.py reads them)."""
MAX_STORED_ID = 2**63 - 1
"""The largest id the store can hold (SQLite's integer); a larger one names nothing."""
PAGE = re.compile(r"[0-9]{1,9}")
"""A page number as a query gives it: ASCII digits only (`?page=²` is no number)."""
SESSION_ID = r"^[A-Za-z0-9_.:-]{1,100}$"
"""A session id the caller may choose (one character class, anchored: linear)."""


class ChatBody(BaseModel):
    """POST /api/v1/chat and /api/v1/chat/stream."""

    model_config = ConfigDict(extra="forbid", strict=True)

    message: str = Field(default="", description="The question (none with `runs`; with "
                         "`images` alone, the question a photo without a caption asks in the "
                         "chat: what does it show, and solve it if it is an exercise).")
    sessionId: str | None = Field(
        default=None, pattern=SESSION_ID,
        description="Continue this conversation; absent: a new one is made.")
    mode: Literal["react", "plain", "compare"] = "react"
    showSteps: bool = Field(default=False,
                            description="Include each step (round, thought, tool, ...).")
    plan: bool = Field(default=False, description="Make a plan first (as /plan).")
    images: list[str] = Field(
        default_factory=list,
        description="Photos the question is about, as the chat's photos are read: each a "
                    "data URL (data:image/jpeg;base64,…) or bare base64 of a JPEG, PNG or "
                    f"WebP of at most {MAX_IMAGE_BYTES // 2**20} MB; at most ALBUM_MAX_PHOTOS "
                    "(4 unless set).")
    runs: list[Annotated[int, Field(ge=1, le=MAX_STORED_ID)]] | None = Field(
        default=None, min_length=2, max_length=2,
        description='mode "compare": two runIds of this token\'s, side by side, no model '
                    "called (instead of a message).")

    models: list[Annotated[str, Field(min_length=1, max_length=64)]] | None = Field(
        default=None, min_length=2, max_length=2,
        description='mode "compare": the names of two models (LLM_MODELS), each answering '
                    "the message with tools, side by side (instead of the model alone beside "
                    "it with tools).")

    @model_validator(mode="after")
    def _asks_one_thing(self) -> ChatBody:
        if self.runs is None and not self.message and not self.images:
            raise ValueError('message: required (or images, or runs, two runIds with mode '
                             '"compare")')
        if self.runs is not None and (self.message or self.mode != "compare"):
            raise ValueError('runs: two runIds with mode "compare" and no message')
        if self.runs is not None and self.images:
            raise ValueError("images: they come with a message, not with runs")
        if self.models is not None and self.mode != "compare":
            raise ValueError('models: two model names with mode "compare"')
        return self


class ApiError(GlassboxError):
    def __init__(self, status: int, code: str, message: str, retry_after_s: float = 0) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.retry_after_s = retry_after_s

    def response(self) -> JSONResponse:
        headers = {}
        if self.status == 429:
            headers["Retry-After"] = str(max(1, math.ceil(self.retry_after_s)))
        if self.status == 401:
            headers["WWW-Authenticate"] = 'Bearer realm="glassbox"'
        return JSONResponse({"error": {"status": self.status, "code": self.code,
                                       "message": self.message}},
                            status_code=self.status, headers=headers)


async def chat_body(request: Request, images: int = 0) -> ChatBody:
    """The request's body as a ChatBody, or an ApiError saying what is wrong with it; it
    may carry `images` images besides the rest."""
    raw = await capped_body(request, MAX_BODY_BYTES + images * _ENCODED_IMAGE)
    if raw is None:
        raise _too_long(images)
    try:
        data: Any = json.loads(raw)
    except (UnicodeDecodeError, ValueError):
        raise ApiError(400, "invalid_json", "The body is not valid JSON.") from None
    except RecursionError:
        raise ApiError(400, "invalid_json", "The body's JSON is nested too deeply.") from None
    if not isinstance(data, dict):
        raise ApiError(400, "invalid_body", "The body must be a JSON object.")
    if len(raw) - _images_length(data.get("images")) > MAX_BODY_BYTES:
        raise _too_long(0)  # all but the images fits in MAX_BODY_BYTES
    try:
        body = ChatBody.model_validate(data)
    except ValidationError as err:
        raise ApiError(400, "invalid_body", "; ".join(_problem(e) for e in err.errors())
                       ) from None
    if len(body.message) > MAX_QUESTION_CHARS:
        raise ApiError(413, "message_too_long", f"message has {len(body.message):,} "
                       f"characters; at most {MAX_QUESTION_CHARS:,} are allowed.")
    if body.runs is None and not body.images and not body.message.strip():
        raise ApiError(400, "invalid_body", "message: it is empty.")
    return body


async def capped_body(request: Request, limit: int) -> bytes | None:
    """The request's body, or None when it is longer than `limit` bytes: said so by its
    Content-Length (nothing is read) or found while it streams (reading stops there)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        return None
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > limit:
            return None
    return bytes(raw)


def _problem(error: Any) -> str:
    where = ".".join(str(part) for part in error["loc"]) or "body"
    if error["type"] == "missing":
        return f"{where}: required"
    if error["type"] == "extra_forbidden":
        return f"{where}: not a field of this request"
    return f"{where}: {error['msg']}"


def _images_length(images: Any) -> int:
    """The characters a body's `images` take (0 when they are not a list of strings)."""
    if not isinstance(images, list):
        return 0
    return sum(len(image) for image in images if isinstance(image, str))


_ENCODED_IMAGE = -(-MAX_IMAGE_BYTES // 3) * 4 + 100
"""The most characters one image takes in a body: its base64, and a data URL's head."""


def _too_long(images: int) -> ApiError:
    most = MAX_BODY_BYTES + images * _ENCODED_IMAGE
    size = f"{most / 2**20:.1f} MB" if images else f"{most // 1024} KB"
    pictures = (f", and at most {images} images of {MAX_IMAGE_BYTES // 2**20} MB each"
                if images else "")
    besides = "" if images else " (besides its images)"
    return ApiError(413, "body_too_long",
                    f"The body{besides} is longer than {size}; a message may have at most "
                    f"{MAX_QUESTION_CHARS:,} characters{pictures}.")
