"""/compare's judgement by a real small model, replayed: what Qwen2.5-Coder-1.5B-Instruct
streamed for the class's compare cases (tests/wire/local/judge/, recorded by
`python -m bench --judge-local URL --record`; see tests/wire/local/README.md), byte for byte
from the fake model server: 01.sse the model alone, 02.sse its judgement of that answer
against the one it gave with tools.

Each case replays to the model-alone answer it had, the check (agent/classroom/judge_check.py) finds
in the judgement what it found live, and the judgement shows only if nothing in it is false.
`first_prompt/` holds the judgements the prompt before its closing "So: …" line got: the
model said "The answers agree." of figures that differ, which the guard does not show.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent import ModelClient, run_plain
from agent.classroom.compare_judge import capped, judge
from agent.classroom.judge_check import untrue
from agent.events import Answer, Judgement
from agent.lang import detect_lang
from agent.settings import AgentSettings
from agent.tool import Source
from bench.judge_local import streamed_text
from testkit.fakes.model import SSE_HEADERS, FakeModel
from testkit.fakes.server import Reply

JUDGED = Path(__file__).parent / "wire" / "local" / "judge"
CASES = sorted(p for p in JUDGED.iterdir() if (p / "case.json").exists())
FIRST = sorted(p for p in (JUDGED / "first_prompt").iterdir() if (p / "case.json").exists())


def meta(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "case.json").read_text("utf-8"))


def stream(path: Path) -> Reply:
    return Reply(200, [(0.0, path.read_bytes())], dict(SSE_HEADERS))


async def replay(folder: Path, fake_model: FakeModel, client: ModelClient,
                 settings: AgentSettings) -> tuple[str, Judgement | None, str]:
    """The model-alone answer, the judgement as judge() gives it (None: not shown), and the
    text the model wrote for it (cut to the line's length, as judge() cuts it)."""
    info = meta(folder)
    alone, judged = sorted(folder.glob("*.sse"))
    fake_model.push(stream(alone))
    events = [e async for e in run_plain(info["question"], client=client, settings=settings)]
    plain = next(e.text for e in events if isinstance(e, Answer))
    fake_model.judge = stream(judged)
    shown = await judge(info["question"], plain, info["react_answer"], client=client,
                        lang=detect_lang(info["question"]),
                        calls=[(call, Source(source)) for call, source in info["calls"]])
    said = capped(" ".join(streamed_text(judged.read_bytes()).split()),
                  detect_lang(info["question"]))
    return plain, shown, said


@pytest.mark.parametrize("folder", CASES, ids=[p.name for p in CASES])
async def test_a_recorded_judgement_shows_only_if_it_is_true(
        folder: Path, fake_model: FakeModel, client: ModelClient,
        settings: AgentSettings) -> None:
    info = meta(folder)
    plain, shown, said = await replay(folder, fake_model, client, settings)
    assert plain == info["plain_answer"]
    calls = [(call, Source(source)) for call, source in info["calls"]]
    assert untrue(said, plain, info["react_answer"], calls, info["question"]) == info["problems"]
    if info["problems"]:
        assert shown is None
    else:
        assert shown is not None and shown.text == said == info["judgement"]


@pytest.mark.parametrize("folder", FIRST, ids=[p.name for p in FIRST])
async def test_the_first_prompt_s_false_agreement_is_not_shown(
        folder: Path, fake_model: FakeModel, client: ModelClient,
        settings: AgentSettings) -> None:
    """Of 1,199,999,999,999,999,999 against 121932631112635269 (and 729.94 yuan looked up
    against a guess), the model wrote "The answers agree.": no line is better than that."""
    info = meta(folder)
    plain, shown, said = await replay(folder, fake_model, client, settings)
    assert said.startswith("The answers agree.") and info["differ"]
    assert "names no figure that differs" in untrue(
        said, plain, info["react_answer"],
        [(call, Source(source)) for call, source in info["calls"]], info["question"])
    assert shown is None
