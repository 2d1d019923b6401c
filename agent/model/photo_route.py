"""Who reads a question's photos: the model itself, given them as images, or Glassbox's
embedded OCR, whose text the model is given instead. PHOTO_READING chooses; `auto` goes by
what the endpoint can do, as AGENT_MODE=auto does for tools: a model known to take text only
is never sent an image, and an endpoint that refused one is remembered
(`EndpointMemory.takes_images`)."""

from __future__ import annotations

from enum import StrEnum

from agent.model.endpoint_memory import EndpointMemory


class PhotoReading(StrEnum):
    """PHOTO_READING's values."""

    AUTO = "auto"
    """The model, when its endpoint takes images; else Glassbox's OCR."""
    MODEL = "model"
    """The model, always: an endpoint that refuses the photo ends the run, saying so."""
    OCR = "ocr"
    """Glassbox's OCR, always."""


_TEXT_ONLY = ("qwen-plus", "qwen-max", "qwen-turbo", "qwen-flash", "qwen-long", "qwen3-",
              "qwen2.5-", "qwq-", "qwen-coder", "deepseek-", "gpt-3.5-", "o1-mini", "o3-mini")
"""Names of model families that take text only (DashScope's, DeepSeek's, OpenAI's older
ones), for `auto` to read their photos without a request that is bound to be refused..."""
_SEES = ("-vl", "vl-", "vision", "omni", "qvq")
"""...unless the name says it is the family's model that sees (qwen2.5-vl-7b-instruct,
qwen3-omni-flash)."""


def known_text_only(model: str) -> bool:
    """Whether `model` (as LLM_MODEL names it, a provider's prefix allowed) is known to
    take no images."""
    name = model.lower().rsplit("/", 1)[-1]
    return name.startswith(_TEXT_ONLY) and not any(mark in name for mark in _SEES)


def with_ocr(reader: PhotoReading, ocr: bool) -> PhotoReading | None:
    """Who reads photos when Glassbox's OCR is on or off (PHOTO_OCR): without it the model
    alone, given the photo whatever its endpoint is known for (a refusal ends the run,
    saying so); None: nobody (PHOTO_READING=ocr with the OCR off)."""
    if ocr:
        return reader
    return None if reader is PhotoReading.OCR else PhotoReading.MODEL


def model_reads(reader: PhotoReading, memory: EndpointMemory, model: str) -> bool:
    """Whether a question's photos go to `model` as images (else Glassbox reads them)."""
    if reader is PhotoReading.AUTO:
        return memory.takes_images and not known_text_only(model)
    return reader is PhotoReading.MODEL
