"""A real small model's streams, replayed (issue 18): what Qwen2.5-Coder-1.5B-Instruct behind
llama-cpp-python's server sent for the class questions (tests/wire/local/, recorded by
`scripts/bench --local-model URL --record`), byte for byte from the fake model server,
through the real loop, tools on the fakes, and drawn as the chat draws it.

Each run must ask the model exactly as often as when it was recorded (so the replies fit
the requests), show an answer with no tool-call JSON, and come to what
the live run came to (question.json's `problems`: empty when it was right, else why not),
so a change that reads the same streams worse, or better, shows here.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import ExitStack
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from agent import ModelClient, run_react
from agent.events import Answer, Note
from agent.tool import Tool
from agent.tools import Toolbox
from agent.tools.clock import GetTime
from bench.local_model import CALL_JSON, Question, outcome_of, settings_for
from bot.view.grounding import MARK, marked
from bot.view.render import render_run
from bot.view.transcript import Transcript
from tests.fakes.model import SSE_HEADERS, FakeModel
from tests.fakes.server import Reply
from tests.fakes.upstreams import FakeFrankfurter, FakeOpenMeteo, FakeWikipedia

RECORDED = Path(__file__).parent / "wire" / "local"
RUNS = sorted(p for p in RECORDED.iterdir() if (p / "question.json").exists())


def meta(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "question.json").read_text("utf-8"))


def tools_at(box: Toolbox, settings: Any, clock: str | None) -> list[Tool]:
    """The toolbox's tools, get_time reading the time the run was recorded at (if given)."""
    if clock is None:
        return list(box.tools)
    now = datetime.fromisoformat(clock)
    return [GetTime(settings.default_timezone, clock=lambda: now) if t.name == GetTime.name
            else t for t in box.tools]


@pytest.fixture
async def stage(fake_model: FakeModel) -> AsyncIterator[tuple[ModelClient, Any, Toolbox]]:
    with ExitStack() as stack:
        meteo = stack.enter_context(FakeOpenMeteo())
        rates = stack.enter_context(FakeFrankfurter())
        wiki = stack.enter_context(FakeWikipedia())
        settings = settings_for(fake_model.base_url, meteo, rates, wiki).model_copy(
            update={"llm_timeout_s": 10})
        client = ModelClient(settings)
        box = await Toolbox.open(settings)
        try:
            yield client, settings, box
        finally:
            await box.aclose()
            await client.close()


@pytest.mark.parametrize("folder", RUNS, ids=[p.name for p in RUNS])
async def test_a_recorded_run_replays_to_a_right_answer(
    folder: Path, fake_model: FakeModel, stage: tuple[ModelClient, Any, Toolbox]
) -> None:
    client, settings, box = stage
    info = meta(folder)
    streams = sorted(folder.glob("*.sse"))
    fake_model.push(*(Reply(200, [(0.0, s.read_bytes())], dict(SSE_HEADERS)) for s in streams))
    client.calls_as_text = info["starts_in_text"]
    events = [e async for e in run_react(info["question"], client=client, settings=settings,
                                         tools=tools_at(box, settings, info.get("clock")))]
    assert len(fake_model.bodies) == len(streams)
    q = Question(folder.name, info["question"], info["tool"], info["expect"])
    outcome = outcome_of(q, events)
    assert outcome.problems() == info["problems"]

    shown = "\n".join(render_run(Transcript.from_events(events), "en", live=False))
    assert not CALL_JSON.search(outcome.answer) and "```json" not in outcome.answer
    (answer,) = [e for e in events if isinstance(e, Answer)]
    start = marked(" ".join(answer.text.split()[:4]), answer.unfounded)
    assert start in " ".join(shown.split())  # the answer is shown, its guesses marked
    for figure in answer.unfounded:
        assert f"{figure}{MARK}" in shown and "not from any observation" in shown
    if any(isinstance(e, Note) and e.kind == "text_format" for e in events):
        assert "📝" in shown and "Thought/Action/Observation" in shown
