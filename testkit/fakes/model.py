"""A fake OpenAI-compatible chat-completions server: replays wire samples byte for byte
and scripts new streams in DashScope's exact chunk format (key order, `"usage":null`,
`"id":""` on continuation fragments, the trailing `"arguments":null` chunk)."""

from __future__ import annotations

import base64
import binascii
import io
import json
import random
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from PIL import Image

from agent.classroom.compare_judge import JUDGE_MARK
from testkit.fakes.server import FakeServer, Reply, Request, wire

Script = Reply | Callable[[dict[str, Any]], Reply]
SSE_HEADERS = {"Content-Type": "text/event-stream; charset=utf-8"}


def sse(chunks: Sequence[dict[str, Any] | bytes], delay: float = 0.0, first_delay: float = 0.0,
        done: bool = True, cut: bool = False) -> Reply:
    """A streamed reply: one `data:` event a chunk, then `data: [DONE]`."""
    pieces: list[tuple[float, bytes]] = []
    for i, chunk in enumerate(chunks):
        data = chunk if isinstance(chunk, bytes) else json.dumps(
            chunk, ensure_ascii=False, separators=(",", ":")).encode()
        pieces.append((first_delay if i == 0 else delay, b"data: " + data + b"\n\n"))
    if done:
        pieces.append((delay, b"data: [DONE]\n\n"))
    return Reply(200, pieces, dict(SSE_HEADERS), cut=cut)


def sse_file(name: str) -> Reply:
    """A wire sample replayed byte for byte."""
    return Reply(200, [(0.0, wire(name))], dict(SSE_HEADERS))


def error(name_or_body: str | dict[str, Any], status: int, **headers: str) -> Reply:
    """An error reply from a wire sample file name, or from a dict."""
    body = wire(name_or_body) if isinstance(name_or_body, str) else json.dumps(
        name_or_body).encode()
    return Reply(status, body, {"Content-Type": "application/json", **headers})


class DashScope:
    """Chunk builders for one completion, in DashScope's compatible-mode format."""

    def __init__(self, model: str = "qwen-plus") -> None:
        self.model = model
        self.id = f"chatcmpl-{uuid.uuid4()}"
        self.created = 1764076775

    def chunk(self, delta: dict[str, Any] | None, finish: str | None = None,
              usage: dict[str, int] | None = None, bare: bool = False) -> dict[str, Any]:
        choices: list[dict[str, Any]] = []
        if delta is not None:
            choice: dict[str, Any] = {"delta": delta, "index": 0} if bare else {
                "delta": delta, "finish_reason": finish, "index": 0, "logprobs": None}
            if finish:
                choice = {"finish_reason": finish, "delta": delta, "index": 0, "logprobs": None}
            choices.append(choice)
        return {"choices": choices, "object": "chat.completion.chunk", "usage": usage,
                "created": self.created, "system_fingerprint": None, "model": self.model,
                "id": self.id}

    def usage(self, prompt: int, completion: int) -> dict[str, Any]:
        return self.chunk(None, usage={"prompt_tokens": prompt, "completion_tokens": completion,
                                       "total_tokens": prompt + completion})

    def text(self, text: str, reasoning: str = "", pieces: int = 4,
             usage: tuple[int, int] = (50, 20)) -> list[dict[str, Any]]:
        out = []
        for i, part in enumerate(_split(reasoning, pieces)):
            delta: dict[str, Any] = {"content": None, "reasoning_content": part}
            if i == 0:
                delta["role"] = "assistant"
            out.append(self.chunk(delta))
        for i, part in enumerate(_split(text, pieces)):
            delta = {"content": part}
            if reasoning:
                delta["reasoning_content"] = None
            if i == 0 and not reasoning:
                delta["role"] = "assistant"
            out.append(self.chunk(delta))
        out.append(self.chunk({"content": "", "reasoning_content": None}, finish="stop"))
        out.append(self.usage(*usage))
        return out

    def tool_calls(self, calls: Sequence[tuple[str, dict[str, Any] | str]], content: str = "",
                   reasoning: str = "", usage: tuple[int, int] = (80, 15)) -> list[dict[str, Any]]:
        out = []
        if reasoning:
            out.append(self.chunk({"content": None, "reasoning_content": reasoning,
                                   "role": "assistant"}))
        if content:
            out.append(self.chunk({"content": content, "role": "assistant"}))
        for index, (name, args) in enumerate(calls):
            raw = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
            first, *rest = _split(raw, 3) or [""]
            out.append(self.chunk({"content": None, "tool_calls": [{
                "index": index, "id": f"call_{uuid.uuid4().hex[:22]}", "type": "function",
                "function": {"name": name, "arguments": first}}], "role": "assistant"}))
            for piece in rest:
                out.append(self.chunk({"content": None, "tool_calls": [{
                    "index": index, "id": "", "type": "function",
                    "function": {"arguments": piece}}]}))
            out.append(self.chunk({"tool_calls": [{"function": {"arguments": None},
                                                   "index": index, "id": "",
                                                   "type": "function"}]}, bare=True))
        out.append(self.chunk({}, finish="tool_calls"))
        out.append(self.usage(*usage))
        return out


def _split(text: str, pieces: int) -> list[str]:
    if not text:
        return []
    size = max(1, -(-len(text) // pieces))
    return [text[i:i + size] for i in range(0, len(text), size)]


def text_reply(text: str, **kw: Any) -> Reply:
    return sse(DashScope().text(text, **kw))


def tool_reply(*calls: tuple[str, dict[str, Any] | str], **kw: Any) -> Reply:
    return sse(DashScope().tool_calls(calls, **kw))


@dataclass(frozen=True)
class Pace:
    """A real model's speed: the first token after a time drawn from `first_token_s`,
    then `tokens_per_s` (one streamed chunk counts as one token)."""

    first_token_s: tuple[float, float] = (0.5, 1.0)
    tokens_per_s: float = 40.0
    seed: int = 0


@dataclass(frozen=True)
class Served:
    """One streamed reply: the request body, when it came, and the seconds its pieces waited."""

    body: dict[str, Any]
    at: float
    seconds: float

    @property
    def ended(self) -> float:
        return self.at + self.seconds


class Sight(StrEnum):
    """What a fake model's server does with a request carrying images (`image_url` parts)."""

    SEES = "sees"
    """A vision model: the images are checked as a real server decodes them, then answered."""
    OPENAI = "openai"
    """A text-only OpenAI model: 400, `image_url is only supported by certain models`."""
    DASHSCOPE = "dashscope"
    """A text-only DashScope model in compatible mode: 400, `Unexpected item type`."""
    LLAMACPP = "llamacpp"
    """llama.cpp's server without a vision projector: 500, `image input is not supported`."""


_REFUSALS = {Sight.OPENAI: ("images_refused/openai_400.json", 400),
             Sight.DASHSCOPE: ("images_refused/dashscope_400.json", 400),
             Sight.LLAMACPP: ("images_refused/llamacpp_500.json", 500)}
_UNSUPPORTED_IMAGE = {"error": {
    "message": "You uploaded an unsupported image. Please make sure your image has of one the "
               "following formats: ['png', 'jpeg', 'gif', 'webp'].",
    "type": "invalid_request_error", "param": None, "code": "invalid_image_format"}}
"""OpenAI's answer to an image part it cannot decode (as public captures quote it)."""


def image_urls(body: dict[str, Any]) -> list[str]:
    """The `image_url` parts' URLs of a chat request, in order."""
    return [part["image_url"]["url"] for m in body.get("messages") or ()
            if isinstance(m.get("content"), list) for part in m["content"]
            if part.get("type") == "image_url"]


def decoded(url: str) -> bytes | None:
    """A `data:image/…;base64,` URL's picture, or None if a server would not take it."""
    head, _, data = url.partition(",")
    if not (head.startswith("data:image/") and head.endswith(";base64")):
        return None
    try:
        raw = base64.b64decode(data, validate=True)
        Image.open(io.BytesIO(raw)).verify()
    except (binascii.Error, ValueError, OSError, SyntaxError):
        return None
    return raw


HOW = {"calculated": "计算", "looked up": "查询", "read in the class notes": "在课堂笔记里查"}


def judgement_reply(body: dict[str, Any]) -> Reply:
    """The judge's line, in the language its system prompt asks for, as a model that follows
    the prompt writes it: the first differing figures it is told, and how the first tool
    call that worked got its figure."""
    zh = "in Chinese" in body["messages"][0]["content"]
    prompt = body["messages"][1]["content"]
    if "Tool calls that worked, " in prompt:
        return _sides_reply(prompt, zh)
    figures = prompt.split("Figures that differ: ", 1)[-1].split("\n", 1)[0]
    calls = prompt.split("Tool calls that worked: ", 1)[-1].split("\n", 1)[0]
    how = calls.split("; ")[0].rsplit(": ", 1)[-1] if calls != "none" else ""
    if figures == "none":  # no figure pairs up: it says what the tools did, if anything
        text = (f"两个回答不同：用了工具后{HOW.get(how, '查询')}得出回答。" if zh else
                f"They differ: with tools it {how} its answer.") if how else (
            "两个回答一致。" if zh else "They agree.")
        return text_reply(text, usage=(120, 30))
    alone, tools = (part.split(" (", 1)[0] for part in figures.split(";")[0].split(" vs "))
    if zh:
        text = (f"两个回答不同：模型单独给出 {alone}，是猜的；用了工具后"
                f"{HOW.get(how, '查询')}得到 {tools}。")
    else:
        text = (f"They differ: the model alone guessed {alone}; with tools it "
                f"{how or 'looked up'} {tools}.")
    return text_reply(text, usage=(120, 30))


def _sides_reply(prompt: str, zh: bool) -> Reply:
    """The judge's line for two sides that could each use tools: each side's first
    differing figure and how that side got it (the first call that worked, or no tool)."""
    figures = prompt.split("Figures that differ: ", 1)[-1].split("\n", 1)[0]
    said = []
    for line in prompt.split("Tool calls that worked, ")[1:]:
        label, calls = line.split("\n", 1)[0].split(": ", 1)
        how = calls.split("; ")[0].rsplit(": ", 1)[-1] if calls != "none" else ""
        figure = next((part.split(" (", 1)[0] for part in figures.split(";")[0].split(" vs ")
                       if part.endswith(f"({label})")), "")
        if zh:
            said.append(f"{label} {HOW.get(how, '查询')}得到 {figure}" if how
                        else f"{label} 没用工具，给出 {figure}")
        else:
            said.append(f"{label} {how} {figure}" if how else f"{label} gave {figure} "
                        "without a tool")
    if figures == "none":
        return text_reply("两个回答一致。" if zh else "They agree.", usage=(120, 30))
    text = ("两个回答不同：" + "；".join(said) + "。") if zh else (
        "They differ: " + "; ".join(said) + ".")
    return text_reply(text, usage=(120, 30))


def is_judge_call(body: dict[str, Any]) -> bool:
    """A /compare difference-line call (agent/classroom/compare_judge.py), told by its system
    prompt."""
    messages = body.get("messages") or [{}]
    return str(messages[0].get("content", "")).startswith(JUDGE_MARK)


class FakeModel(FakeServer):
    """Serves /v1/chat/completions from a script of replies, one a request, in order.

    A script entry may be a function of the request body, for a model that answers
    by what it is asked. When the script runs out, `default` answers (if set).
    A /compare judge call is answered by `judge` (if set), not from the script: the two
    lanes' calls interleave, and the judge comes last. With a `pace`, every streamed reply
    is re-timed to that speed (benchmarks). `sight` says how its server takes images: a
    refusal comes before the script is read, as a real server's does; accepted images are
    kept decoded in `images`."""

    def __init__(self, default: Callable[[dict[str, Any]], Reply] | None = None,
                 pace: Pace | None = None, sight: Sight = Sight.SEES) -> None:
        super().__init__(self._handle)
        self.script: deque[Script] = deque()
        self.default = default
        self.judge: Script | None = judgement_reply
        self.pace = pace
        self.bodies: list[dict[str, Any]] = []
        self.keys: list[str] = []
        """The key each chat request carried (its Authorization: Bearer)."""
        self.sight = sight
        self.images: list[bytes] = []
        self.served: list[Served] = []
        self._random = random.Random(pace.seed if pace else 0)
        self._served_lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    def push(self, *replies: Script) -> FakeModel:
        self.script.extend(replies)
        return self

    def _handle(self, request: Request) -> Reply:
        if not request.path.endswith("/chat/completions"):
            return error({"error": {"message": "not found", "type": "invalid_request_error",
                                    "param": None, "code": None}}, 404)
        body = request.json()
        self.bodies.append(body)
        self.keys.append(request.headers.get("authorization", "").removeprefix("Bearer "))
        urls = image_urls(body)
        if urls and self.sight in _REFUSALS:
            return error(*_REFUSALS[self.sight])
        pictures = [decoded(url) for url in urls]
        if None in pictures:
            return error(_UNSUPPORTED_IMAGE, 400)
        self.images.extend(p for p in pictures if p is not None)
        entry: Script | None
        if self.judge is not None and is_judge_call(body):
            entry = self.judge
        else:
            entry = self.script.popleft() if self.script else self.default
        if entry is None:
            return error({"error": {"message": "fake model: script exhausted",
                                    "type": "server_error", "param": None, "code": None}}, 500)
        reply = entry(body) if callable(entry) else entry
        if isinstance(reply.body, list):
            reply = self._paced(reply, body)
        return reply

    def _paced(self, reply: Reply, body: dict[str, Any]) -> Reply:
        """The reply at `pace` (if any), recorded with the seconds it will take."""
        pieces = reply.body
        assert isinstance(pieces, list)
        with self._served_lock:
            if self.pace is not None:
                first = self._random.uniform(*self.pace.first_token_s)
                step = 1 / self.pace.tokens_per_s
                pieces = [(first if i == 0 else step, piece)
                          for i, (_, piece) in enumerate(pieces)]
            self.served.append(Served(body, time.monotonic(), sum(d for d, _ in pieces)))
        return Reply(reply.status, pieces, reply.headers, reply.cut)
