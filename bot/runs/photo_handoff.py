"""A question's photos given to the model itself, for the run service: the steps that say
so (the model's, never Glassbox's reading), and what the run does when the model's endpoint
refuses them: with PHOTO_READING=auto Glassbox reads them with its OCR after all, and those
readings take the place of the first steps, with a remark saying why; with
PHOTO_READING=model the run ends, saying the model takes no images."""

from __future__ import annotations

from collections.abc import Sequence

from agent.events import Event, InputKind, InputRead, Reader
from agent.inputs.images import Picture
from agent.inputs.question import with_reads
from agent.lang import Lang
from agent.model.model_errors import ModelError
from agent.model.photo_calls import GivenPhotos, refusal_remark
from bot.runs.photo_reading import PhotoReader
from bot.store.records import Conversation


class PhotoHandoff:
    def __init__(self, reader: PhotoReader, conversation: Conversation,
                 pictures: Sequence[Picture], question: str, model: str, lang: Lang, *,
                 fallback: bool) -> None:
        self._reader, self._conversation = reader, conversation
        self._pictures, self._question = tuple(pictures), question
        self._model, self._lang, self._fallback = model, lang, fallback
        self._due: list[Event] = []
        self.photos = GivenPhotos([p.kept for p in pictures], self._read_instead)
        """What the run's lanes are given (their model calls send the kept copies)."""

    def steps(self) -> list[InputRead]:
        """One step a photo: given to the model (named as the chain names it)."""
        return [InputRead(round=0, kind=InputKind.PHOTO, engine=self._model, number=number,
                          of=len(self._pictures), by=Reader.MODEL)
                for number in range(1, len(self._pictures) + 1)]

    def due(self) -> list[Event]:
        """The steps made since last asked (Glassbox's readings after a refusal), once."""
        out, self._due = self._due, []
        return out

    async def _read_instead(self, refusal: ModelError) -> str:
        if not self._fallback:
            raise refusal
        self._due.append(refusal_remark(self._lang, self._model))
        reads = [read async for read in self._reader.read(self._conversation, self._pictures)]
        self._due.extend(reads)
        return with_reads(self._question, reads)
