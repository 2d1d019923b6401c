"""An unreachable model endpoint is reported to the student within 20 s, retries included,
with the default retry and timeout settings. Real sockets on 127.0.0.1, nothing mocked: a
port whose connects hang, and a port that refuses them."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import AsyncIterator, Callable, Iterator

import pytest

from agent import AgentSettings, Event, ModelClient, RunFinished, run_plain, run_react
from testkit.agentkit import TEST_KEY

LIMIT_S = 20.0
UNREACHABLE = "Could not reach the model service."
Run = Callable[..., AsyncIterator[Event]]


@pytest.fixture(autouse=True)
def _defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    """The settings under test keep their defaults, whatever this shell has set."""
    for name in ("LLM_MAX_RETRIES", "LLM_CONNECT_TIMEOUT_S", "LLM_TIMEOUT_S"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def hanging_port() -> Iterator[int]:
    """A port whose connects hang: its listener never accepts and its accept queue is full,
    so Linux drops every further SYN and the client keeps resending it."""
    with contextlib.ExitStack() as sockets:
        listener = sockets.enter_context(socket.socket())
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        port = listener.getsockname()[1]
        for _ in range(16):  # listen(0) queues one connection; fill until a connect hangs
            probe = sockets.enter_context(socket.socket())
            probe.settimeout(0.5)
            try:
                probe.connect(("127.0.0.1", port))
            except TimeoutError:
                break
        else:
            pytest.fail("the accept queue never filled: connects to the port do not hang")
        yield port


@pytest.fixture
def refusing_port() -> Iterator[int]:
    """A port that refuses: bound (so no one else takes it) but not listening."""
    with socket.socket() as bound:
        bound.bind(("127.0.0.1", 0))
        yield bound.getsockname()[1]


async def ask(run: Run, port: int) -> tuple[RunFinished, float]:
    """Run one question against the port with default settings; its last event and seconds."""
    settings = AgentSettings(
        _env_file=None, openai_base_url=f"http://127.0.0.1:{port}/v1", openai_api_key=TEST_KEY
    )
    client = ModelClient(settings)
    started = time.monotonic()
    try:
        events = [event async for event in run("What is 2 + 2?", client=client,
                                               settings=settings)]
    finally:
        await client.close()
    done = events[-1]
    assert isinstance(done, RunFinished)
    return done, time.monotonic() - started


async def test_a_connect_that_hangs_is_reported_within_20_s(hanging_port: int) -> None:
    (react, react_s), (plain, plain_s) = await asyncio.gather(
        ask(run_react, hanging_port), ask(run_plain, hanging_port)
    )
    connect_s = AgentSettings.model_fields["llm_connect_timeout_s"].default
    for done, seconds in ((react, react_s), (plain, plain_s)):
        assert done.status == "error"
        assert done.reason.startswith(UNREACHABLE)  # not "took too long to answer"
        assert connect_s <= seconds < LIMIT_S  # it did hang, for one connect timeout or more


async def test_a_refused_connect_is_reported_within_20_s(refusing_port: int) -> None:
    for run in (run_react, run_plain):
        done, seconds = await ask(run, refusing_port)
        assert done.status == "error"
        assert done.reason.startswith(UNREACHABLE)
        assert seconds < LIMIT_S
