"""Token counts from a server that sends none (issue 18): Glassbox asks for usage in the
stream, asks again without `stream_options` where that is refused, estimates from the text
otherwise, and shows estimates with "≈" in /show's footer and the export."""

from __future__ import annotations

from typing import Any

from agent import ModelClient, RunFinished
from agent.settings import AgentSettings
from bot.view.render import render_run
from bot.view.transcript import Transcript
from testkit.fakes.model import DashScope, FakeModel, error, sse
from testkit.fakes.server import Reply
from tests.test_loop import events_of, react

REFUSED = {"error": {"message": "Unrecognized request argument supplied: stream_options",
                     "type": "invalid_request_error", "param": None, "code": None}}


def no_usage(text: str) -> Reply:
    """A stream as llama.cpp's servers send it: no usage chunk."""
    return sse(DashScope().text(text)[:-1])


def picky(body: dict[str, Any]) -> Reply:
    """An endpoint that refuses `stream_options`."""
    return error(REFUSED, 400) if "stream_options" in body else no_usage("Hello there!")


async def test_refused_stream_options_are_dropped_and_tokens_estimated(
    fake_model: FakeModel, client: ModelClient, settings: AgentSettings
) -> None:
    fake_model.default = picky
    events = await events_of(react("Hi!", client, settings, []))
    done = events[-1]
    assert isinstance(done, RunFinished) and done.status == "done"
    assert done.usage.estimated and done.usage.completion_tokens == 3  # 12 ASCII chars / 4
    assert done.usage.total_tokens > done.usage.completion_tokens
    asked = [("stream_options" in body) for body in fake_model.bodies]
    assert asked == [True, False]
    footer = render_run(Transcript.from_events(events), "en", live=False)[-1]
    assert f"≈{done.usage.total_tokens:,} tokens" in footer

    await events_of(react("Hi again!", client, settings, []))
    assert "stream_options" not in fake_model.bodies[-1]  # the client remembers


async def test_counted_usage_has_no_mark(fake_model: FakeModel, client: ModelClient,
                                         settings: AgentSettings) -> None:
    fake_model.push(sse(DashScope().text("Hello there!", usage=(50, 20))))
    events = await events_of(react("Hi!", client, settings, []))
    assert "stream_options" in fake_model.bodies[0]
    footer = render_run(Transcript.from_events(events), "en", live=False)[-1]
    assert "70 tokens" in footer and "≈" not in footer
