"""Reading the photos a question came with, for the run service: one photo at a time per
conversation (a class sending ten photos at once waits in turn, other chats do not wait
behind it beyond `PHOTO_OCR_AT_ONCE` readings machine-wide), each reading an InputRead step
of the run."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from weakref import WeakValueDictionary

from agent.events import InputKind, InputRead
from agent.inputs.images import Picture
from agent.inputs.ocr import OcrLimits, read_picture
from bot.store.records import Conversation

ENGINE = "OCR"


class PhotoReader:
    def __init__(self, limits: OcrLimits, at_once: int) -> None:
        self.limits = limits
        self._machine = asyncio.Semaphore(at_once)
        self._chats: WeakValueDictionary[Conversation, asyncio.Lock] = WeakValueDictionary()

    async def read(self, conversation: Conversation,
                   pictures: Sequence[Picture]) -> AsyncIterator[InputRead]:
        """Each picture's reading, in order, as it is done."""
        lock = self._chats.setdefault(conversation, asyncio.Lock())
        for number, picture in enumerate(pictures, 1):
            async with lock, self._machine:
                reading = await read_picture(picture.data, self.limits)
            yield InputRead(round=0, kind=InputKind.PHOTO, engine=ENGINE,
                            segments=reading.segments, number=number, of=len(pictures),
                            failure=reading.failure, seconds=round(reading.seconds, 2))
