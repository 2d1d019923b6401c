"""What can go wrong with a model call, as a student may read it: a closed set of kinds
(`ModelErrorKind`), each with a reason in Chinese and English, and `classify`, which turns
what the openai SDK raised, or the wire under it (wire/wire_errors.py), into a `ModelError`."""

from __future__ import annotations

from enum import StrEnum

import openai

from agent.words import say
from wire.wire_errors import GlassboxError, WireFailure, failure_of


class ModelErrorKind(StrEnum):
    """Why a model call failed. The value is what RunFinished.error_kind stores."""

    AUTH = "auth"  # the service rejected the API key (401/403)
    QUOTA = "quota"  # the account's credit or quota is used up
    RATE_LIMIT = "rate_limit"  # too many requests (429), after the SDK's retries
    SERVER = "server"  # a 5xx, or any failure we cannot name
    TIMEOUT = "timeout"  # no answer within LLM_TIMEOUT_S
    CONNECTION = "connection"  # the service could not be reached
    MODERATION = "moderation"  # the provider's content filter blocked question or answer
    CONTEXT_LENGTH = "context_length"  # the conversation is longer than the model's context
    MODEL_NOT_FOUND = "model_not_found"  # LLM_MODEL names no model the endpoint serves (404)
    TOOLS_UNSUPPORTED = "tools_unsupported"  # the endpoint says it takes no `tools`
    IMAGES_REFUSED = "images_refused"  # the endpoint says its model takes no images
    BAD_REQUEST = "bad_request"  # any other 4xx
    INCOMPLETE = "incomplete"  # the stream ended or broke before the model finished
    EMPTY = "empty"  # the model finished with no text where an answer was due


class ModelError(GlassboxError):
    """A failed model call, classified. `str()` is safe to log: it never holds the key."""

    def __init__(self, kind: ModelErrorKind, status: int | None = None,
                 code: str | None = None) -> None:
        self.kind = ModelErrorKind(kind)  # a kind that is not one raises ValueError here
        super().__init__(f"model error {self.kind} (status {status}, code {code})")
        self.status = status
        self.code = code

    def reason(self, lang: str) -> str:
        """Why, as a student may read it (agent/words.py has one for every kind)."""
        return say(lang, f"model_{self.kind.value}")


def _error_code(exc: openai.APIError) -> str:
    """The provider's error code (or type) if the body carries one, else ''."""
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            return str(inner.get("code") or inner.get("type") or "")
    return ""


_TOOLS_REFUSED = (
    "does not support tools",  # Ollama, 400: "registry.ollama.ai/library/gemma3:4b does not..."
    "tool choice requires --enable-auto-tool-choice",  # vLLM without a tool parser, 400
    "tools param requires --jinja flag",  # llama.cpp's server without --jinja, 500 or 400
    "no endpoints found that support tool use",  # OpenRouter, 404
)
"""How servers that take no `tools` say so (tests/wire/tools_refused/ has their bodies).
Only these: a 400 that merely mentions a tool ("upstream tool parser busy, please retry")
is another failure, and taking it for a refusal would switch every chat to text."""

_IMAGES_REFUSED = (
    "image_url is only supported by certain models",  # OpenAI, 400
    "unexpected item type in content",  # DashScope's text-only models, 400
    "image input is not supported",  # llama.cpp's server without a vision projector, 500
)
"""How servers whose model takes no images say so (tests/wire/images_refused/ has their
bodies). DashScope's names neither images nor vision, so a photo's fallback also takes any
other 400 of a request carrying images for a refusal, and remembers it only once the same
question as text is accepted (agent/model/photo_calls.py)."""


def classify(exc: BaseException, *, answered: bool = False) -> ModelError | None:
    """Translate what a model call raised into a ModelError; None if it is no failure of the
    call (a bug, to be raised as it is). `answered`: the stream had begun.

    The SDK wraps what fails before the response starts (connecting, sending, waiting for
    the headers) in APITimeoutError / APIConnectionError, raised from the transport's error;
    what fails while the stream is read arrives as the transport raised it. Either way the
    wire's failure, in Glassbox's words, says what happened."""
    if isinstance(exc, ModelError):
        return exc
    if isinstance(exc, openai.APIError) and not isinstance(exc, openai.APIConnectionError):
        return _answered(exc)
    failure = failure_of(exc)
    if failure is None:
        if isinstance(exc, openai.APITimeoutError):
            failure = WireFailure.TIMED_OUT
        elif isinstance(exc, openai.APIConnectionError):
            failure = WireFailure.MAYBE_SENT
        else:
            return None
    if failure is WireFailure.TIMED_OUT:
        return ModelError(ModelErrorKind.TIMEOUT)
    if answered and failure is not WireFailure.NOT_SENT:
        return ModelError(ModelErrorKind.INCOMPLETE)  # it answered, then the connection broke
    return ModelError(ModelErrorKind.CONNECTION)  # never answered: unreachable, not slow


def _answered(exc: openai.APIError) -> ModelError:
    """The kind of an error the model's server answered with (a status, or an error event)."""
    status = getattr(exc, "status_code", None)
    code = _error_code(exc)
    body = exc.body if isinstance(exc.body, str) else ""  # e.g. DashScope's SSE-framed 400
    text = f"{code} {exc.message} {body}".lower()
    if "data_inspection_failed" in text or "inappropriate content" in text:
        kind = ModelErrorKind.MODERATION
    elif status in (401, 403) or code == "invalid_api_key":
        kind = ModelErrorKind.AUTH
    elif code in ("insufficient_quota", "credit_balance_exhausted", "arrearage") or (
        "arrearage" in text
    ):
        kind = ModelErrorKind.QUOTA
    elif status == 429:
        kind = ModelErrorKind.RATE_LIMIT
    elif code == "context_length_exceeded" or "context length" in text or "input length" in text:
        kind = ModelErrorKind.CONTEXT_LENGTH
    elif any(words in text for words in _IMAGES_REFUSED):
        kind = ModelErrorKind.IMAGES_REFUSED
    elif status is not None and any(words in text for words in _TOOLS_REFUSED):
        kind = ModelErrorKind.TOOLS_UNSUPPORTED
    elif status == 404:
        kind = ModelErrorKind.MODEL_NOT_FOUND
    elif status is not None and 400 <= status < 500:
        kind = ModelErrorKind.BAD_REQUEST
    else:
        kind = ModelErrorKind.SERVER
    return ModelError(kind, status, code or None)
