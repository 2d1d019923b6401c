"""The model client against a real local server replaying the wire samples byte for byte."""

from __future__ import annotations

import json
import time

import openai
import pytest

from agent import ModelClient, ModelError
from agent.events import Usage
from agent.lang import detect_lang
from agent.model.model_client import Completion, ContentDelta, ReasoningDelta
from agent.model.model_errors import ModelErrorKind
from testkit.agentkit import agent_settings
from testkit.fakes.model import FakeModel, error, sse, sse_file
from testkit.fakes.server import Reply, wire
from wire.model_transport import STREAM_GATHER_S, AiohttpTransport


async def collect(client: ModelClient) -> tuple[list[object], Completion]:
    items = [item async for item in client.stream([{"role": "user", "content": "hi"}])]
    done = items[-1]
    assert isinstance(done, Completion)
    return items[:-1], done


async def test_request_streams_with_usage(fake_model: FakeModel, client: ModelClient) -> None:
    fake_model.push(sse_file("dashscope/stream_text_qwen-plus_docs.sse"))
    await collect(client)
    body = fake_model.bodies[0]
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["model"] == "qwen-plus"
    auth = fake_model.requests[0].headers["authorization"]
    assert auth == "Bearer sk-test-0123456789abcdefghijklmnopqrstuv"


async def test_cookies_the_api_sets_are_not_sent_back(fake_model: FakeModel,
                                                     client: ModelClient) -> None:
    """The model's client keeps no cookies (wire.model_transport.ModelHttpClient), such as
    the ones a gateway in front of an API sets (Cloudflare's `__cf_bm`)."""
    reply = sse_file("dashscope/stream_text_qwen-plus_docs.sse")
    reply.headers["Set-Cookie"] = "__cf_bm=abc; path=/; HttpOnly"
    fake_model.push(reply, sse_file("dashscope/stream_text_qwen-plus_docs.sse"))
    await collect(client)
    await collect(client)
    assert [r.headers.get("cookie") for r in fake_model.requests] == [None, None]


async def test_openai_text(fake_model: FakeModel, client: ModelClient) -> None:
    fake_model.push(sse_file("openai/chat_stream_text.sse"))
    deltas, done = await collect(client)
    assert done.content.startswith("I'm unable to provide real-time weather updates.")
    assert len(done.content) == 159
    assert "".join(d.text for d in deltas if isinstance(d, ContentDelta)) == done.content
    assert done.tool_calls == ()
    assert done.finish_reason == "stop"
    assert done.usage == Usage(14, 30, 44)


async def test_openai_single_tool_call(fake_model: FakeModel, client: ModelClient) -> None:
    fake_model.push(sse_file("openai/chat_stream_single_tool_call.sse"))
    _, done = await collect(client)
    (call,) = done.tool_calls
    assert call.id == "call_4XzlGBLtUe9dy3GVNV4jhq7h"
    assert call.name == "get_weather"
    assert json.loads(call.arguments) == {"city": "New York City"}
    assert done.usage == Usage(44, 16, 60)


async def test_openai_parallel_tool_calls(fake_model: FakeModel, client: ModelClient) -> None:
    fake_model.push(sse_file("openai/chat_stream_parallel_tool_calls.sse"))
    _, done = await collect(client)
    assert [(c.id, c.name, json.loads(c.arguments)) for c in done.tool_calls] == [
        ("call_JMW1whyEaYG438VE1OIflxA2", "GetWeatherArgs",
         {"city": "Edinburgh", "country": "GB", "units": "c"}),
        ("call_DNYTawLBoN8fj3KN6qU9N1Ou", "get_stock_price",
         {"ticker": "AAPL", "exchange": "NASDAQ"}),
    ]
    assert done.usage == Usage(149, 60, 209)


async def test_openai_2025_usage_chunk(fake_model: FakeModel, client: ModelClient) -> None:
    fake_model.push(sse_file("openai/chat_stream_include_usage_2025.sse"))
    _, done = await collect(client)
    assert done.finish_reason == "length"
    assert done.usage == Usage(12, 100, 112)


async def test_dashscope_text(fake_model: FakeModel, client: ModelClient) -> None:
    fake_model.push(sse_file("dashscope/stream_text_qwen-plus_docs.sse"))
    _, done = await collect(client)
    assert done.content == ("I am a large-scale language model from Alibaba Cloud, "
                            "and my name is Qwen.")
    assert done.usage == Usage(22, 17, 39)


@pytest.mark.parametrize(
    ("sample", "call_id", "name", "arguments"),
    [
        ("dashscope/stream_tool_call_qwen-plus_docs.sse", "call_0bdcc155f2534f65a05cb1",
         "get_current_weather", {"location": "杭州市"}),
        ("dashscope/stream_tool_call_qwen-plus_capture.sse", "call_30fb8bdcce274fbfbb8bd4",
         "execute_redis_command", {"command": "KEYS *"}),
        ("dashscope/stream_thinking_tool_call_qwen3.5-flash_capture.sse",
         "call_b24c21aa4905423d813479e4", "get_current_weather", {"location": "杭州市"}),
    ],
)
async def test_dashscope_tool_calls_keep_first_id(
    fake_model: FakeModel, client: ModelClient, sample: str, call_id: str, name: str,
    arguments: dict[str, str],
) -> None:
    fake_model.push(sse_file(sample))
    _, done = await collect(client)
    (call,) = done.tool_calls
    assert (call.id, call.name, json.loads(call.arguments)) == (call_id, name, arguments)
    assert done.finish_reason == "tool_calls"


async def test_dashscope_thinking_tool_call_reasoning(
    fake_model: FakeModel, client: ModelClient
) -> None:
    fake_model.push(sse_file("dashscope/stream_thinking_tool_call_qwen3.5-flash_capture.sse"))
    deltas, done = await collect(client)
    assert done.reasoning.startswith("用户想查询杭州2026年4月16日的天气")
    assert "".join(d.text for d in deltas if isinstance(d, ReasoningDelta)) == done.reasoning
    assert done.content == ""


async def test_dashscope_thinking_text(fake_model: FakeModel, client: ModelClient) -> None:
    fake_model.push(sse_file("dashscope/stream_thinking_text_qwen-plus_capture.sse"))
    deltas, done = await collect(client)
    assert done.reasoning.startswith("好的，用户问“你是谁？”")
    assert done.content.startswith("你好！我是通义千问")
    assert done.content.endswith("😊")
    assert done.usage == Usage(22, 382, 404)
    kinds = [type(d) for d in deltas]
    assert kinds.index(ContentDelta) > kinds.index(ReasoningDelta)


async def test_dashscope_thinking_endpoints(fake_model: FakeModel, client: ModelClient) -> None:
    fake_model.push(sse_file("dashscope/stream_thinking_qwen-plus_docs_endpoints.sse"))
    _, done = await collect(client)
    assert (done.content, done.reasoning, done.finish_reason) == ("", "", "stop")
    assert done.usage == Usage(10, 360, 370)


def test_every_error_kind_has_a_reason_in_both_languages() -> None:
    for kind in ModelErrorKind:
        zh, en = ModelError(kind).reason("zh"), ModelError(kind).reason("en")
        assert (detect_lang(zh), detect_lang(en)) == ("zh", "en"), kind


def test_error_kinds_keep_their_stored_values() -> None:
    """RunFinished.error_kind stores these strings: renaming one breaks stored runs."""
    assert [str(kind) for kind in ModelErrorKind] == [
        "auth", "quota", "rate_limit", "server", "timeout", "connection", "moderation",
        "context_length", "model_not_found", "tools_unsupported", "images_refused", "bad_request",
        "incomplete", "empty"]
    assert ModelError(ModelErrorKind("rate_limit")).kind is ModelErrorKind.RATE_LIMIT


def test_an_unknown_error_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="sever"):
        ModelError("sever")  # type: ignore[arg-type]


HTML_502 = b"<html><head><title>502 Bad Gateway</title></head><body>cloudflare</body></html>"


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        (error("openai/error_401_invalid_api_key.json", 401), "auth"),
        (error("dashscope/error_401_invalid_api_key.json", 401), "auth"),
        (error("openai/error_429_rate_limit_exceeded.json", 429), "rate_limit"),
        (error("dashscope/error_429_limit_requests.json", 429), "rate_limit"),
        (error("openai/error_429_insufficient_quota.json", 429), "quota"),
        (error("dashscope/error_400_arrearage.json", 400), "quota"),
        (error("openai/error_400_context_length_exceeded.json", 400), "context_length"),
        (error("openai/error_500_server_error.json", 500), "server"),
        (error("openai/error_404_model_not_found.json", 404), "model_not_found"),
        (error("dashscope/error_400_data_inspection_failed.json", 400), "moderation"),
        (Reply(400, wire("dashscope/error_400_data_inspection_failed_stream_request.sse"),
               {"Content-Type": "text/event-stream"}), "moderation"),
        (Reply(502, HTML_502, {"Content-Type": "text/html"}), "server"),
    ],
)
async def test_errors_are_classified(fake_model: FakeModel, client: ModelClient, reply: Reply,
                                     kind: str) -> None:
    fake_model.push(reply)
    with pytest.raises(ModelError) as caught:
        await collect(client)
    assert caught.value.kind == kind
    reason = caught.value.reason("en")
    assert "sk-" not in reason and "Traceback" not in reason


async def test_moderation_error_mid_stream(fake_model: FakeModel, client: ModelClient) -> None:
    from testkit.fakes.model import DashScope

    ds = DashScope()
    chunks = ds.text("Partial answer that", pieces=2)[:2]
    moderation = json.loads(wire("dashscope/error_400_data_inspection_failed_stream_request.sse")
                            .decode()[len("data: "):])
    moderation["error"]["message"] = "Output data may contain inappropriate content."
    fake_model.push(sse([*chunks, moderation], done=False))
    with pytest.raises(ModelError) as caught:
        await collect(client)
    assert caught.value.kind is ModelErrorKind.MODERATION


async def test_stream_cut_in_the_middle(fake_model: FakeModel, client: ModelClient) -> None:
    from testkit.fakes.model import DashScope

    fake_model.push(sse(DashScope().text("This answer never ends", pieces=4)[:2],
                        done=False, cut=True))
    with pytest.raises(ModelError) as caught:
        await collect(client)
    assert caught.value.kind in (ModelErrorKind.CONNECTION, ModelErrorKind.INCOMPLETE)


async def test_stall_past_timeout() -> None:
    from testkit.fakes.model import DashScope

    with FakeModel() as fake:
        chunks = DashScope().text("slow", pieces=1)
        fake.push(sse(chunks, delay=3.0))
        client = ModelClient(agent_settings(fake.base_url, llm_timeout_s=0.3))
        try:
            with pytest.raises(ModelError) as caught:
                await collect(client)
        finally:
            await client.close()
    assert caught.value.kind is ModelErrorKind.TIMEOUT


async def test_rate_limit_then_success_with_sdk_retry() -> None:
    with FakeModel() as fake:
        limited = error("openai/error_429_rate_limit_exceeded.json", 429,
                        **{"retry-after-ms": "10"})
        fake.push(limited, sse_file("dashscope/stream_text_qwen-plus_docs.sse"))
        client = ModelClient(agent_settings(fake.base_url, llm_max_retries=2))
        try:
            _, done = await collect(client)
        finally:
            await client.close()
    assert done.content.startswith("I am a large-scale language model")
    assert len(fake.bodies) == 2


def _events(chunks: list[dict[str, object]], end: bytes = b"\n\n") -> bytes:
    return b"".join(b"data: " + json.dumps(c, ensure_ascii=False).encode() + end
                    for c in chunks) + b"data: [DONE]" + end


async def test_what_one_network_read_brings_is_one_delta_of_each_kind(
        fake_model: FakeModel, client: ModelClient) -> None:
    """Chunks that arrive together (a fast server, a bot behind on its reads) are folded in
    one step each for the reasoning and the text, in their order; nothing is lost."""
    from testkit.fakes.model import DashScope

    chunks = DashScope().text("The answer is four.", reasoning="Two and two make four.",
                              pieces=3)
    fake_model.push(Reply(200, [(0.0, _events(chunks))],
                          {"Content-Type": "text/event-stream"}))
    deltas, done = await collect(client)
    assert deltas == [ReasoningDelta("Two and two make four."),
                      ContentDelta("The answer is four.")]
    assert (done.reasoning, done.content) == ("Two and two make four.", "The answer is four.")


async def test_chunks_arriving_apart_stream_apart(fake_model: FakeModel,
                                                  client: ModelClient) -> None:
    from testkit.fakes.model import DashScope

    fake_model.push(sse(DashScope().text("one two three four", pieces=4),
                        delay=STREAM_GATHER_S * 1.5))
    deltas, done = await collect(client)
    assert len(deltas) == 4  # each piece shown as it came, not held back
    assert "".join(d.text for d in deltas) == done.content == "one two three four"


async def test_chunks_arriving_close_together_are_read_together(
        fake_model: FakeModel, client: ModelClient) -> None:
    """A model sending a word a chunk, 50 a second: read a few times a second (issue 16:
    each read is a walk through the whole chain), every word kept, in order."""
    from testkit.fakes.model import DashScope

    words = [f"w{n}" for n in range(25)]
    fake_model.push(sse(DashScope().text(" ".join(words), pieces=len(words)), delay=0.02))
    deltas, done = await collect(client)
    assert done.content == " ".join(words)
    assert "".join(d.text for d in deltas) == done.content
    assert 2 <= len(deltas) <= 0.5 / STREAM_GATHER_S + 2  # not 25


async def test_a_streams_end_is_not_held_back_by_gathering(fake_model: FakeModel) -> None:
    """Gathering waits for more chunks, but never past the body's end: the reply's last
    chunk (here 20 s before the next gathering would end) comes at once."""
    from testkit.fakes.model import DashScope

    transport = AiohttpTransport(gather_s=20.0)
    model = ModelClient(agent_settings(fake_model.base_url),
                        http_client=openai.DefaultAsyncHttpxClient(transport=transport))
    fake_model.push(sse(DashScope().text("one two three", pieces=3), delay=0.05))
    try:
        started = time.monotonic()
        _, done = await collect(model)
        took = time.monotonic() - started
    finally:
        await model.close()
    assert done.content == "one two three"
    assert took < 10


async def test_events_cut_anywhere_between_reads_are_read_whole(
        fake_model: FakeModel, client: ModelClient) -> None:
    """CRLF line ends, a read ending between CR and LF or inside a JSON, a comment line (a
    keep-alive), and a `data:` without its space: as the SSE rules read them."""
    from testkit.fakes.model import DashScope

    chunks = DashScope().text("你好，世界！Hello, world.", pieces=4)
    body = b": keep-alive\r\n\r\n" + _events(chunks, end=b"\r\n\r\n").replace(
        b"data: {", b"data:{", 1)
    cuts = [5, 20, body.index(b"\r\n") + 1, body.index("世".encode()) + 1, len(body) - 3]
    pieces = [body[a:b] for a, b in zip([0, *sorted(cuts)], [*sorted(cuts), len(body)],
                                        strict=True)]
    fake_model.push(Reply(200, [(0.03, piece) for piece in pieces],
                          {"Content-Type": "text/event-stream"}))
    deltas, done = await collect(client)
    assert done.content == "你好，世界！Hello, world."
    assert "".join(d.text for d in deltas) == done.content
    assert done.finish_reason == "stop"
