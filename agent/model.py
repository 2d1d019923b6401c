"""The model client: one streamed chat completion at a time, over any OpenAI-compatible API.

It assembles what the wire sends in pieces (content, `reasoning_content`, tool-call
fragments) and translates every failure into a ModelError whose `reason()` is fit to
show a student: no key, no stack trace, no provider text.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import httpx
import openai

from agent.events import Usage
from agent.lang import pick
from agent.settings import AgentSettings

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ToolCall:
    id: str
    name: str
    arguments: str
    """The raw argument text as the model wrote it (JSON, if the model behaved)."""


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ContentDelta:
    text: str


@dataclass(frozen=True, slots=True)
class Completion:
    """Everything one call produced, once the stream has ended."""

    content: str
    reasoning: str
    tool_calls: tuple[ToolCall, ...]
    usage: Usage
    finish_reason: str | None


StreamItem = ReasoningDelta | ContentDelta | Completion


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
    TOOLS_UNSUPPORTED = "tools_unsupported"  # a 400 saying the endpoint takes no `tools`
    BAD_REQUEST = "bad_request"  # any other 4xx
    INCOMPLETE = "incomplete"  # the stream ended or broke before the model finished
    EMPTY = "empty"  # the model finished with no text where an answer was due


_REASONS: dict[ModelErrorKind, tuple[str, str]] = {
    ModelErrorKind.AUTH: (
        "模型服务拒绝了 API 密钥，请联系机器人管理员检查配置。",
        "The model service rejected the API key. Please ask the bot's operator to check it."),
    ModelErrorKind.QUOTA: (
        "模型服务的额度已用完，请联系机器人管理员。",
        "The model service's quota is used up. Please tell the bot's operator."),
    ModelErrorKind.RATE_LIMIT: (
        "模型服务现在太忙（请求过多），请稍后再试。",
        "The model service is busy right now (too many requests). Please try again soon."),
    ModelErrorKind.SERVER: (
        "模型服务出错了，请稍后再试。",
        "The model service had an error. Please try again in a moment."),
    ModelErrorKind.TIMEOUT: (
        "模型服务响应超时，请稍后再试。",
        "The model service took too long to answer. Please try again."),
    ModelErrorKind.CONNECTION: (
        "无法连接到模型服务，请稍后再试。",
        "Could not reach the model service. Please try again in a moment."),
    ModelErrorKind.MODERATION: (
        "模型服务的内容审核拦截了这个问题或回答，请换个说法。",
        "The model service's content filter blocked this question or its answer. "
        "Please rephrase it."),
    ModelErrorKind.CONTEXT_LENGTH: (
        "对话太长，超出了模型的上下文长度，请开始一个新问题。",
        "The conversation is too long for the model. Please start a new question."),
    ModelErrorKind.MODEL_NOT_FOUND: (
        "找不到配置的模型，请联系机器人管理员检查 LLM_MODEL。",
        "The configured model was not found. Please ask the operator to check LLM_MODEL."),
    ModelErrorKind.TOOLS_UNSUPPORTED: (
        "这个模型服务不支持工具调用。",
        "This model endpoint does not support tool calling."),
    ModelErrorKind.BAD_REQUEST: (
        "模型服务拒绝了这个请求，请换个问法再试。",
        "The model service rejected the request. Please try rephrasing."),
    ModelErrorKind.INCOMPLETE: (
        "模型的回答中途断开了，请再试一次。",
        "The model's reply was cut off. Please try again."),
    ModelErrorKind.EMPTY: (
        "模型返回了空回答，请再试一次。",
        "The model returned an empty reply. Please try again."),
}
"""The student-facing reason for each kind, (zh, en); a test checks every kind has one."""


class ModelError(Exception):
    """A failed model call, classified. `str()` is safe to log: it never holds the key."""

    def __init__(self, kind: ModelErrorKind, status: int | None = None,
                 code: str | None = None) -> None:
        self.kind = ModelErrorKind(kind)  # a kind that is not one raises ValueError here
        super().__init__(f"model error {self.kind} (status {status}, code {code})")
        self.status = status
        self.code = code

    def reason(self, lang: str) -> str:
        zh, en = _REASONS[self.kind]
        return pick(lang, zh, en)


def _error_code(exc: openai.APIError) -> str:
    """The provider's error code (or type) if the body carries one, else ''."""
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            return str(inner.get("code") or inner.get("type") or "")
    return ""


_TOOLS_REJECTED = ("tool", "function call", "function_call", "functions")


def classify(exc: BaseException) -> ModelError:
    """Translate an SDK or transport exception into a ModelError.

    The SDK wraps what fails before the response starts (connecting, sending, waiting for
    the headers) in APITimeoutError / APIConnectionError; httpx's own errors arrive here only
    from reading the stream (a stall past the read timeout, a cut connection)."""
    if isinstance(exc, ModelError):
        return exc
    if isinstance(exc, openai.APITimeoutError) and isinstance(exc.__cause__, httpx.ConnectTimeout):
        return ModelError("connection")  # it never answered: unreachable, not slow
    if isinstance(exc, openai.APITimeoutError | httpx.TimeoutException):
        return ModelError("timeout")
    if isinstance(exc, openai.APIConnectionError | httpx.TransportError):
        return ModelError(ModelErrorKind.CONNECTION)
    if not isinstance(exc, openai.APIError):
        return ModelError(ModelErrorKind.SERVER)
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
    elif status == 404:
        kind = ModelErrorKind.MODEL_NOT_FOUND
    elif status == 400 and any(word in text for word in _TOOLS_REJECTED):
        kind = ModelErrorKind.TOOLS_UNSUPPORTED
    elif status is not None and 400 <= status < 500:
        kind = ModelErrorKind.BAD_REQUEST
    else:
        kind = ModelErrorKind.SERVER
    return ModelError(kind, status, code or None)


@dataclass
class _CallSlot:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class ModelClient:
    """Streams chat completions; one instance (one connection pool) per process."""

    tools_rejected: bool = False
    """Set on an instance when its endpoint rejected `tools` (AGENT_MODE=auto): later runs
    with this client speak the text protocol. Learned per client, not per process."""

    def __init__(self, settings: AgentSettings, *, http_client: httpx.AsyncClient | None = None):
        self.model = settings.llm_model
        self.temperature = settings.llm_temperature
        self._client = openai.AsyncOpenAI(
            api_key=settings.openai_api_key.get_secret_value(),
            base_url=settings.openai_base_url,
            # A short connect timeout: an unreachable endpoint is reported after
            # (1 + retries) x connect timeout + the SDK's backoff (0.5 s, 1 s, ...), about
            # 17 s with the defaults, where one flat 60 s made it over three minutes.
            timeout=httpx.Timeout(settings.llm_timeout_s, connect=settings.llm_connect_timeout_s),
            max_retries=settings.llm_max_retries,
            http_client=http_client,
        )

    async def close(self) -> None:
        await self._client.close()

    async def stream(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        temperature: float | None = None,
        **extra: Any,
    ) -> AsyncIterator[StreamItem]:
        """Yield deltas as they arrive, then one Completion. Raises ModelError."""
        params: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
            "temperature": self.temperature if temperature is None else temperature,
            **extra,
        }
        if tools:
            params["tools"] = tools
        content: list[str] = []
        reasoning: list[str] = []
        slots: dict[int, _CallSlot] = {}
        usage = Usage()
        finish: str | None = None
        stream = None
        try:
            stream = await self._client.chat.completions.create(**params)
            async with stream:
                async for chunk in stream:
                    if chunk.usage is not None:
                        usage = usage + _usage(chunk.usage)
                    for choice in chunk.choices:
                        finish = choice.finish_reason or finish
                        delta = choice.delta
                        if delta is None:
                            continue
                        thinking = getattr(delta, "reasoning_content", None)
                        if thinking:
                            reasoning.append(thinking)
                            yield ReasoningDelta(thinking)
                        if delta.content:
                            content.append(delta.content)
                            yield ContentDelta(delta.content)
                        for frag in delta.tool_calls or ():
                            _merge_fragment(slots, frag)
        except (openai.APIError, httpx.HTTPError) as exc:
            err = classify(exc)
            if stream is not None and err.kind is ModelErrorKind.CONNECTION:
                # It answered, then the connection broke.
                err = ModelError(ModelErrorKind.INCOMPLETE)
            log.warning("model call failed: %s", err)
            raise err from None
        if finish is None:
            # The body ended without a finish_reason: the stream was cut.
            raise ModelError(ModelErrorKind.INCOMPLETE)
        calls = tuple(
            ToolCall(slot.id or f"call_{index}", slot.name, "".join(slot.arguments))
            for index, slot in sorted(slots.items())
        )
        yield Completion("".join(content), "".join(reasoning), calls, usage, finish)


def _merge_fragment(slots: dict[int, _CallSlot], frag: Any) -> None:
    """Fold one tool-call fragment into its slot, keeping the first non-empty id and name.

    DashScope repeats `"id":""` on continuation chunks and ends with `"arguments": null`;
    some servers repeat the name on every chunk.
    """
    index = frag.index if frag.index is not None else max(slots, default=-1) + 1
    slot = slots.setdefault(index, _CallSlot())
    if frag.id and not slot.id:
        slot.id = frag.id
    fn = frag.function
    if fn is None:
        return
    if fn.name and not slot.name:
        slot.name = fn.name
    if fn.arguments:
        slot.arguments.append(fn.arguments)


def _usage(raw: Any) -> Usage:
    return Usage(
        prompt_tokens=raw.prompt_tokens or 0,
        completion_tokens=raw.completion_tokens or 0,
        total_tokens=raw.total_tokens or 0,
    )
