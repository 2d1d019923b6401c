"""The model client: one streamed chat completion at a time, over any OpenAI-compatible API.

It assembles what the wire sends in pieces (content, `reasoning_content`, tool-call
fragments) and translates every failure into a ModelError whose `reason()` is fit to
show a student: no key, no stack trace, no provider text.
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import openai

from agent.events import Usage
from agent.model.endpoint_memory import EndpointMemory, Lesson, endpoint_key
from agent.model.model_errors import ModelError, ModelErrorKind, classify
from agent.model.photo_calls import (
    IMAGE_TOKENS,
    GivenPhotos,
    images_in,
    photo_stream,
    without_images,
)
from agent.settings import AgentSettings
from wire.model_transport import ModelHttpClient
from wire.sse import SSEReader

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


@dataclass
class _CallSlot:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


@dataclass
class _Reply:
    """A streamed reply as far as it has come."""

    content: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    slots: dict[int, _CallSlot] = field(default_factory=dict)
    usage: Usage | None = None
    finish: str | None = None
    done: bool = False
    """`[DONE]` came: nothing after it is read."""

    def take(self, events: list[bytes], request: httpx.Request) -> list[ContentDelta |
                                                                        ReasoningDelta]:
        """Fold in the data of `events` (one network read's); the text they brought as
        deltas, one for each run of the same kind (reasoning, then text, in their order).
        An error the server sends inside the stream is raised as the SDK raises it."""
        said: list[tuple[type[ContentDelta | ReasoningDelta], list[str]]] = []
        for data in events:
            if self.done or data.startswith(b"[DONE]"):
                self.done = True
                break
            chunk = json.loads(data)
            if not isinstance(chunk, dict):
                continue
            if chunk.get("error"):
                raise _stream_error(chunk["error"], request)
            if chunk.get("usage") is not None:
                self.usage = (self.usage or Usage()) + _usage(chunk["usage"])
            for choice in chunk.get("choices") or ():
                self.finish = choice.get("finish_reason") or self.finish
                delta = choice.get("delta")
                if not delta:
                    continue
                thinking = delta.get("reasoning_content")
                if thinking:
                    self.reasoning.append(thinking)
                    _say(said, ReasoningDelta, thinking)
                text = delta.get("content")
                if text:
                    self.content.append(text)
                    _say(said, ContentDelta, text)
                for frag in delta.get("tool_calls") or ():
                    _merge_fragment(self.slots, frag)
        return [kind("".join(parts)) for kind, parts in said]


def _say(said: list[tuple[type[ContentDelta | ReasoningDelta], list[str]]],
         kind: type[ContentDelta | ReasoningDelta], text: str) -> None:
    if said and said[-1][0] is kind:
        said[-1][1].append(text)
    else:
        said.append((kind, [text]))


def _stream_error(error: Any, request: httpx.Request) -> openai.APIError:
    """An error sent as a stream's event, as the SDK's own stream raises it."""
    message = error.get("message") if isinstance(error, dict) else None
    if not message or not isinstance(message, str):
        message = "An error occurred during streaming"
    return openai.APIError(message=message, request=request, body=error)


class ModelClient:
    """Streams chat completions; one instance (one connection pool) per process."""

    def __init__(self, settings: AgentSettings, *, http_client: httpx.AsyncClient | None = None,
                 name: str = ""):
        self.model = settings.llm_model
        """The name the server knows the model by, sent with every request."""
        self.name = name or self.model
        """What people call it (a name of LLM_MODELS): the chain and /compare's labels."""
        self.temperature = settings.llm_temperature
        self.memory = EndpointMemory(endpoint_key(settings.openai_base_url, self.model))
        """What auto mode learned about this endpoint (agent/model/endpoint_memory.py); the bot
        replaces it with the one its store kept."""
        self.photos: GivenPhotos | None = None
        """The photos of the one run this client is for (`given`)."""
        self._client = openai.AsyncOpenAI(
            api_key=settings.openai_api_key.get_secret_value(),
            base_url=settings.openai_base_url,
            # A connect timeout of its own, shorter than the read timeout: an unreachable
            # endpoint is reported after (1 + retries) x the connect timeout + the SDK's
            # backoff, not after every retry waited out a read timeout meant for slow answers.
            timeout=httpx.Timeout(settings.llm_timeout_s, connect=settings.llm_connect_timeout_s),
            max_retries=settings.llm_max_retries,
            http_client=http_client or ModelHttpClient(),
        )
        # Whole, so the SDK parses one URL per request, not the path and then the path
        # joined to base_url.
        self._url = str(self._client.base_url.join("chat/completions"))

    async def close(self) -> None:
        await self._client.close()

    def given(self, photos: GivenPhotos) -> ModelClient:
        """This client for one run whose question's photos go to the model as images: a
        call carrying them that the endpoint refuses is made again with the text Glassbox
        read (agent/model/photo_calls.py). It shares the connection pool and the memory."""
        run = copy.copy(self)
        run.photos = photos
        return run

    async def stream(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        temperature: float | None = None,
        **extra: Any,
    ) -> AsyncIterator[StreamItem]:
        """Yield deltas as they arrive, then one Completion. Raises ModelError."""
        if self.photos is None:
            call = self._stream(messages, tools=tools, temperature=temperature, **extra)
        else:
            call = photo_stream(
                lambda: self._stream(messages, tools=tools, temperature=temperature, **extra),
                messages, self.photos, self.memory)
        async for item in call:
            yield item

    async def _stream(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        temperature: float | None = None,
        **extra: Any,
    ) -> AsyncIterator[StreamItem]:
        params: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "stream": True,
            "temperature": self.temperature if temperature is None else temperature,
            **extra,
        }
        if self.memory.usage_option:
            params["stream_options"] = {"include_usage": True}
        if tools:
            params["tools"] = tools
        reply = _Reply()
        response: httpx.Response | None = None
        try:
            response = await self._create(params)
            if tools:
                self.memory.contradicted(Lesson.TOOLS_REJECTED)
            reader = SSEReader()
            async for piece in response.aiter_bytes():
                # All that one network read brought, as one delta of each kind in turn: a
                # reply read behind a busy event loop is folded in fewer steps, not later.
                for item in reply.take(reader.feed(piece), response.request):
                    yield item
                if reply.done:
                    break
            else:
                for item in reply.take(reader.close(), response.request):
                    yield item
        except Exception as exc:
            err = classify(exc, answered=response is not None)
            if err is None:
                raise
            log.warning("model call failed: %s", err)
            raise err from None
        finally:
            if response is not None:
                await response.aclose()
        if reply.finish is None:
            # The body ended without a finish_reason: the stream was cut.
            raise ModelError(ModelErrorKind.INCOMPLETE)
        calls = tuple(
            ToolCall(slot.id or f"call_{index}", slot.name, "".join(slot.arguments))
            for index, slot in sorted(reply.slots.items())
        )
        usage = reply.usage
        if usage is None:
            usage = _estimate(params, [*reply.content, *reply.reasoning,
                                       *(c.name + c.arguments for c in calls)])
        yield Completion("".join(reply.content), "".join(reply.reasoning), calls, usage,
                         reply.finish)

    async def _create(self, params: dict[str, Any]) -> Any:
        """Open the stream; an endpoint that refuses `stream_options` is asked again
        without it (and never again with it): its tokens are then estimated.

        The SDK's own request, retries and errors (a 4xx/5xx is raised as its APIStatusError
        before the body is read), through its documented `post` for any endpoint, but the
        body comes back as it is (cast_to=httpx.Response) and `stream` reads its events
        itself (wire/sse.py), each chunk the dict json.loads made: no pydantic model per
        chunk and none of the SDK's SSE layers, whose cost is paid on every chunk of every
        answer under load (docs/scaling.md)."""
        try:
            return await self._post(params)
        except openai.BadRequestError as exc:
            if "stream_options" not in params or "stream_options" not in str(exc):
                raise
            log.info("endpoint refused stream_options: token counts will be estimated")
            self.memory.usage_option = False
            params.pop("stream_options")
            return await self._post(params)

    async def _post(self, params: dict[str, Any]) -> httpx.Response:
        return await self._client.post(self._url, body=params, cast_to=httpx.Response,
                                       stream=True)


async def complete(client: ModelClient, messages: list[dict[str, Any]],
                   **extra: Any) -> Completion | None:
    """A call nobody watches stream (a plan, a judgement, a summary): its final Completion."""
    done: Completion | None = None
    async for item in client.stream(messages, **extra):
        if isinstance(item, Completion):
            done = item
    return done


def _merge_fragment(slots: dict[int, _CallSlot], frag: dict[str, Any]) -> None:
    """Fold one tool-call fragment (as on the wire) into its slot, keeping the first
    non-empty id and name.

    DashScope repeats `"id":""` on continuation chunks and ends with `"arguments": null`;
    some servers repeat the name on every chunk.
    """
    index = frag.get("index")
    slot = slots.setdefault(index if index is not None else max(slots, default=-1) + 1,
                            _CallSlot())
    if frag.get("id") and not slot.id:
        slot.id = frag["id"]
    fn = frag.get("function")
    if not fn:
        return
    if fn.get("name") and not slot.name:
        slot.name = fn["name"]
    if fn.get("arguments"):
        slot.arguments.append(fn["arguments"])


def _usage(raw: dict[str, Any]) -> Usage:
    return Usage(
        prompt_tokens=raw.get("prompt_tokens") or 0,
        completion_tokens=raw.get("completion_tokens") or 0,
        total_tokens=raw.get("total_tokens") or 0,
    )


def _estimate(params: dict[str, Any], output: list[str]) -> Usage:
    """Tokens from text length, for a server that sent no `usage`: each non-ASCII
    character (CJK mostly) as one token, four ASCII characters as one, an image as
    IMAGE_TOKENS (not its base64's length). Rough, but a daily budget counting zero for such
    a server would be no budget at all."""
    messages = params["messages"]
    prompt = _tokens(json.dumps([without_images(messages), params.get("tools")],
                                ensure_ascii=False)) + IMAGE_TOKENS * images_in(messages)
    completion = _tokens("".join(output))
    return Usage(prompt, completion, prompt + completion, estimated=True)


def _tokens(text: str) -> int:
    ascii_chars = len(text.encode("ascii", "ignore"))
    return len(text) - ascii_chars + -(-ascii_chars // 4)
