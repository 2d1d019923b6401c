"""A question's photos given to the model as images (OpenAI content parts: a `text` part,
then one `image_url` part a photo, each a `data:image/jpeg;base64,…` URL), and what happens
when the endpoint refuses them.

A refusal comes as the first answer to a call carrying images: in words servers use for it
(`ModelErrorKind.IMAGES_REFUSED`) or as any other 400, since DashScope's ("Unexpected item
type in content") names no image. The call is then made again with the question as text,
with what Glassbox read from the photos (`GivenPhotos.as_text`, read once for all the
run's calls and lanes), and every later call of the run carries that text. Only when that
call is accepted does the endpoint's memory learn that it takes no images: a 400 the text
gets too was no refusal of the photos, and is raised as it came.
"""

from __future__ import annotations

import asyncio
import base64
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, TypeVar

from agent.events import Remark
from agent.model.endpoint_memory import EndpointMemory
from agent.model.model_errors import ModelError, ModelErrorKind
from agent.words import say

log = logging.getLogger(__name__)

IMAGE_TOKENS = 1_500
"""Prompt tokens one image counts for where a server sends no `usage` (the estimate): a
1280 × 960 photo is 1,568 of Qwen-VL's 28-pixel tokens and 1,445 of OpenAI's tiles."""
REFUSALS = frozenset({ModelErrorKind.IMAGES_REFUSED, ModelErrorKind.BAD_REQUEST})

REMARK_KIND = "photos_refused"

T = TypeVar("T")


def refusal_remark(lang: str, model: str) -> Remark:
    """Glassbox's words in the chain when `model`'s endpoint refused the photos."""
    return Remark(round=1, kind=REMARK_KIND, text=say(lang, "remark_photos_refused",
                                                      model=model))


def image_part(jpeg: bytes) -> dict[str, Any]:
    """One photo as an OpenAI `image_url` content part."""
    url = "data:image/jpeg;base64," + base64.b64encode(jpeg).decode("ascii")
    return {"type": "image_url", "image_url": {"url": url}}


def is_image(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") == "image_url"


def images_in(messages: Sequence[dict[str, Any]]) -> int:
    """How many image parts `messages` carry."""
    return sum(is_image(part) for m in messages if isinstance(m.get("content"), list)
               for part in m["content"])


def without_images(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """`messages` with their image parts left out (for estimating their tokens)."""
    return [{**m, "content": [p for p in m["content"] if not is_image(p)]}
            if isinstance(m.get("content"), list) else m for m in messages]


class GivenPhotos:
    """The photos of one question given to the model, shared by the run's lanes:
    `read_instead` is what the run does when the endpoint refuses them (the bot reads them
    with its OCR and shows that; with PHOTO_READING=model it raises the refusal)."""

    def __init__(self, jpegs: Sequence[bytes],
                 read_instead: Callable[[ModelError], Awaitable[str]]) -> None:
        self.parts = tuple(image_part(jpeg) for jpeg in jpegs)
        self._read_instead = read_instead
        self._lock = asyncio.Lock()
        self.text: str | None = None
        """The question as text with what was read, once a refusal made it so."""

    def content(self, question: str) -> list[dict[str, Any]]:
        """The user message's content: the question, then the photos."""
        n = len(self.parts)
        said = ("[The student sent a photo with the question; it follows]" if n == 1 else
                f"[The student sent {n} photos with the question; they follow in order]")
        return [{"type": "text", "text": f"{question}\n\n{said}"}, *self.parts]

    async def as_text(self, refusal: ModelError) -> str:
        """The question as text with what Glassbox read, read once whoever asks first."""
        async with self._lock:
            if self.text is None:
                self.text = await self._read_instead(refusal)
            return self.text

    def to_text(self, messages: list[dict[str, Any]]) -> None:
        """Every message carrying the photos, carrying the text instead (in place: the
        run's later calls send the same list)."""
        assert self.text is not None
        for message in messages:
            content = message.get("content")
            if isinstance(content, list) and any(is_image(p) for p in content):
                message["content"] = self.text


async def photo_stream(call: Callable[[], AsyncIterator[T]], messages: list[dict[str, Any]],
                       photos: GivenPhotos, memory: EndpointMemory) -> AsyncIterator[T]:
    """`call()`'s stream for `messages`; if they carry the photos and the endpoint refuses
    them before answering, the same call with the question as text."""
    if images_in(messages) and photos.text is not None:
        photos.to_text(messages)  # another lane or call of the run was refused already
    if not images_in(messages):
        async for item in call():
            yield item
        return
    answered = False
    try:
        async for item in call():
            answered = True
            yield item
        return
    except ModelError as err:
        if answered or err.kind not in REFUSALS:
            raise
        refusal = err
    log.info("the model's endpoint refused the photos (%s): asking with the text read",
             refusal)
    await photos.as_text(refusal)
    photos.to_text(messages)
    learned = False
    async for item in call():
        if not learned:
            memory.refused_images()
            learned = True
        yield item
