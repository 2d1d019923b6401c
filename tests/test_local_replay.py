"""A real small model's streams, replayed (issue 18): what Qwen2.5-Coder-1.5B-Instruct behind
llama-cpp-python's server sent for the class questions (tests/wire/local/, recorded by
`scripts/bench --local-model URL --record`), byte for byte from the fake model server,
through the real loop, tools on the fakes, and drawn as the chat draws it.

Each run must ask the model exactly as often as when it was recorded (so the replies fit
the requests), finish, and show an answer with no tool-call JSON; and it must come to what
the live run came to (question.json's `problems`: empty when it was right, else why not),
so a change that reads the same streams worse, or better, shows here.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from agent import ModelClient, run_react
from agent.events import Note
from agent.tools import Toolbox
from bench.local_model import CALL_JSON, Question, outcome_of, settings_for
from bot.view.render import render_run
from bot.view.transcript import Transcript
from tests.fakes.model import SSE_HEADERS, FakeModel
from tests.fakes.server import Reply
from tests.fakes.upstreams import FakeFrankfurter, FakeOpenMeteo, FakeWikipedia

RECORDED = Path(__file__).parent / "wire" / "local"
RUNS = sorted(p for p in RECORDED.iterdir() if (p / "question.json").exists())


def meta(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "question.json").read_text("utf-8"))


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
                                         tools=box.tools)]
    assert len(fake_model.bodies) == len(streams)
    q = Question(folder.name, info["question"], info["tool"], info["expect"])
    outcome = outcome_of(q, events)
    assert outcome.status == "done"
    assert outcome.problems() == info["problems"]

    shown = "\n".join(render_run(Transcript.from_events(events), "en", live=False))
    assert not CALL_JSON.search(outcome.answer) and "```json" not in outcome.answer
    assert " ".join(outcome.answer.split()[:4]) in " ".join(shown.split())
    if any(isinstance(e, Note) and e.kind == "text_format" for e in events):
        assert "📝" in shown and "Thought/Action/Observation" in shown
