"""Two real local models side by side: `/compare local-1.5b local-0.5b question` through the
real bot against the fake Bot API, a percentage and a weather question, the tools on the
fakes.

Opt-in, like tests/test_local_model_e2e.py: it runs only when GLASSBOX_LOCAL_MODEL_URL and
GLASSBOX_SECOND_MODEL_URL name two OpenAI-compatible servers (`../shared/tools/local-model
start 1.5b 8081` and `start 0.5b 8082`); on 2 CPU cores a question takes minutes. It checks
what a class would: both sides answered, no tool-call JSON shown as an answer, a figure
that is right not marked as unbacked, and a judgement, when one is shown, that says nothing
untrue. With GLASSBOX_RECORD=1 it keeps what each model streamed under
tests/wire/local/two_models/, which the replay test below serves from the fake model server
(no model needed): the same compare must come out as it did live, each side's ending (an
answer, or the round cap) and the judgement (or none) as recorded.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import AsyncIterator
from contextlib import ExitStack, asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from agent.classroom.compare_judge import ToolUses
from agent.classroom.judge_check import untrue
from agent.events import Answer, Judgement, RunFinished
from agent.tool import Source
from bench.local_model import CALL_JSON
from bot.store.records import Scope
from bot.view.grounding_marks import MARK
from testkit.botkit import ALICE, GROUP, Glassbox, people, running
from testkit.fakes.model import SSE_HEADERS, FakeModel
from testkit.fakes.recording_proxy import RecordingProxy
from testkit.fakes.server import FakeServer, Reply
from testkit.fakes.telegram import FakeTelegram
from testkit.fakes.upstreams import FakeOpenMeteo

FIRST = os.environ.get("GLASSBOX_LOCAL_MODEL_URL", "")
SECOND = os.environ.get("GLASSBOX_SECOND_MODEL_URL", "")
RECORDED = Path(__file__).parent / "wire" / "local" / "two_models"
NAMES = ("local-1.5b", "local-0.5b")


@dataclass(frozen=True)
class Case:
    key: str
    question: str
    right: str
    """The figure a right answer gives (FakeOpenMeteo's Hangzhou; the calculator's)."""


CASES = (Case("percent", "What is 17% of 2,480?", "421.6"),
         Case("weather", "What is the weather in Hangzhou right now?", "21.4"))


@asynccontextmanager
async def class_with(tmp_path: Path, first: FakeServer, second: FakeServer
                     ) -> AsyncIterator[Glassbox]:
    """The bot with the two endpoints named NAMES (the first the default, which judges),
    the weather and the calculator on offer, the weather on the fake Open-Meteo."""
    with FakeTelegram(scale=0.02) as tg, FakeOpenMeteo() as meteo:
        people(tg)
        models = {NAMES[0]: {"base_url": first.url + "/v1", "model": "local"},
                  NAMES[1]: {"base_url": second.url + "/v1", "model": "local"}}
        async with running(tg, first, tmp_path / "g.sqlite3", tools=None,  # type: ignore[arg-type]
                           agent_tools=("get_weather", "calculate"),
                           open_meteo_geocoding_url=meteo.geocoding_url,
                           open_meteo_forecast_url=meteo.forecast_url,
                           llm_model=NAMES[0], llm_models=models, llm_temperature=0,
                           llm_timeout_s=1200, user_rate_limit="off") as gb:
            yield gb


@dataclass
class Compared:
    shown: str
    answers: dict[str, str]
    unfounded: dict[str, list[str]]
    statuses: dict[str, str]
    judgement: str | None
    calls: list[tuple[str, Source]]
    """Both sides' tool calls that worked, as the judge was told them."""


async def compare(gb: Glassbox, case: Case, timeout: float) -> Compared:
    """Alice's `/compare` of the two models on `case`, once it ended: what the chat shows
    and what the store kept."""
    sent = gb.tg.send(GROUP, ALICE, f"/compare {NAMES[0]} {NAMES[1]} {case.question}")
    shown = await gb.answer_to(GROUP, sent, timeout)
    record = await gb.services.store.get(Scope(GROUP), 1)
    assert record is not None
    lanes = await gb.services.store.events(record.id)
    answers, unfounded, statuses, judgement = {}, {}, {}, None
    uses = ToolUses(gb.services.runs.tools)
    for lane, name in zip(("left", "right"), NAMES, strict=True):
        for event in lanes.get(lane, []):
            uses.add(event)
        said = [e for e in lanes.get(lane, []) if isinstance(e, Answer)]
        answers[name] = said[-1].text if said else ""
        unfounded[name] = list(said[-1].unfounded) if said else []
        ends = [e for e in lanes.get(lane, []) if isinstance(e, RunFinished)]
        statuses[name] = ends[-1].status if ends else "none"
        judged = [e for e in lanes.get(lane, []) if isinstance(e, Judgement)]
        judgement = judged[-1].text if judged else judgement
    return Compared(shown.text, answers, unfounded, statuses, judgement, uses.calls)


def check(case: Case, seen: Compared) -> None:
    """What must hold of any two-model compare that ended, whatever the models did."""
    for name in NAMES:
        assert not CALL_JSON.search(seen.answers[name]), seen.answers[name]
        if case.right in seen.answers[name]:  # a right figure is not marked a guess
            assert case.right not in seen.unfounded[name], (name, seen.unfounded)
    if seen.judgement is not None:  # shown only when true
        assert seen.judgement in seen.shown
        assert untrue(seen.judgement, *seen.answers.values(), seen.calls, case.question) == []
    else:
        assert "⚖️" not in seen.shown


@pytest.mark.skipif(not (FIRST and SECOND),
                    reason="set GLASSBOX_LOCAL_MODEL_URL and GLASSBOX_SECOND_MODEL_URL to run")
@pytest.mark.parametrize("case", CASES, ids=[c.key for c in CASES])
async def test_two_local_models_compared(tmp_path: Path, case: Case) -> None:
    with RecordingProxy(FIRST) as first, RecordingProxy(SECOND) as second:
        began = time.monotonic()
        async with class_with(tmp_path, first, second) as gb:
            seen = await compare(gb, case, timeout=3600)
        seconds = round(time.monotonic() - began)
    if os.environ.get("GLASSBOX_RECORD"):
        keep(case, seen, (first.bodies, second.bodies), seconds)
    check(case, seen)
    for name in NAMES:  # what the class hoped for: each model answered
        assert seen.statuses[name] == "done" and seen.answers[name], (name, seen.statuses)


def keep(case: Case, seen: Compared, bodies: tuple[list[bytearray], list[bytearray]],
         seconds: int) -> None:
    """The recording: each model's response bodies in order, and what the compare came to."""
    folder = RECORDED / case.key
    for name, streams in zip(NAMES, bodies, strict=True):
        (folder / name).mkdir(parents=True, exist_ok=True)
        for old in (folder / name).glob("*.sse"):
            old.unlink()
        for n, body in enumerate(streams, 1):
            (folder / name / f"{n:02}.sse").write_bytes(body)
    meta = {"question": case.question, "right": case.right, "answers": seen.answers,
            "unfounded": seen.unfounded, "statuses": seen.statuses,
            "judgement": seen.judgement, "seconds": seconds,
            "recorded": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}
    (folder / "compare.json").write_text(json.dumps(meta, ensure_ascii=False, indent=1) + "\n",
                                         "utf-8")


RECORDINGS = sorted(p for p in RECORDED.glob("*/compare.json")) if RECORDED.exists() else []


def served(folder: Path, name: str) -> FakeModel:
    """A fake endpoint that serves what `name` streamed, in order; the judge's call too
    (it is one of the default model's, the last)."""
    model = FakeModel()
    model.judge = None
    model.push(*(Reply(200, [(0.0, s.read_bytes())], dict(SSE_HEADERS))
                 for s in sorted((folder / name).glob("*.sse"))))
    return model


@pytest.mark.parametrize("meta", RECORDINGS, ids=[p.parent.name for p in RECORDINGS])
async def test_a_recorded_two_model_compare_replays_as_it_ran(tmp_path: Path,
                                                              meta: Path) -> None:
    folder = meta.parent
    was: dict[str, Any] = json.loads(meta.read_text("utf-8"))
    case = next(c for c in CASES if c.question == was["question"])
    with ExitStack() as stack:
        first, second = (stack.enter_context(served(folder, name)) for name in NAMES)
        async with class_with(tmp_path, first, second) as gb:
            seen = await compare(gb, case, timeout=60)
    for model, name in ((first, NAMES[0]), (second, NAMES[1])):
        assert len(model.bodies) == len(list((folder / name).glob("*.sse"))), name
    assert seen.answers == was["answers"] and seen.statuses == was["statuses"]
    assert seen.unfounded == was["unfounded"] and seen.judgement == was["judgement"]
    for name, answer in seen.answers.items():
        first_words = " ".join(answer.split()[:3])
        assert first_words.replace("**", "") in seen.shown.replace(MARK, ""), name
    check(case, seen)


async def test_a_forced_last_thought_shows_as_raw_text_with_its_figure_marked(
        tmp_path: Path) -> None:
    """The 0.5B, at the round cap, answered "Thought: I need to calculate 4,368." after
    three refused calls of `calculate` on 4368, each refusal quoting its input back. The
    chat showed 4,368 unmarked: a refusal backed it. Now 4,368 carries the mark, as nothing
    backs it; the reply, which did not follow the format, stays as written (the chain says
    it is the model's raw text) under the round limit's warning."""
    folder = RECORDED / "percent_capped"
    with ExitStack() as stack:
        first, second = (stack.enter_context(served(folder, name)) for name in NAMES)
        async with class_with(tmp_path, first, second) as gb:
            seen = await compare(gb, CASES[0], timeout=60)
    small = seen.shown.split(f"🤖 {NAMES[1]}", 1)[1].split("\n\n", 1)[0]
    assert f"Thought: I need to calculate 4,368{MARK}." in small, small
    assert "⚠️ Round limit reached" in small, small
    assert seen.unfounded[NAMES[1]] == ["4,368"]
