"""Opt-in (issue 18): the `/examples` questions through `python -m agent --json` against a
real local model, with the tools on the fakes. Runs only when GLASSBOX_LOCAL_MODEL_URL
names an OpenAI-compatible server (e.g. `../shared/tools/local-model start`); on 2 CPU
cores each question takes one to three minutes. Asserts what a class would check: the run
finished, with the right tool, no tool-call JSON in the answer, in the question's language.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from bench.local_model import CALL_JSON, answer_lang, terminal_env
from bot.examples import load_examples
from testkit.fakes.upstreams import FakeFrankfurter, FakeOpenMeteo, FakeWikipedia

URL = os.environ.get("GLASSBOX_LOCAL_MODEL_URL", "")
ROOT = Path(__file__).resolve().parent.parent
TOOL_OF = {"weather": "get_weather", "currency": "convert_currency", "time": "get_time",
           "arithmetic": "calculate", "notes": "search_notes", "unknowable": ""}

pytestmark = pytest.mark.skipif(not URL, reason="set GLASSBOX_LOCAL_MODEL_URL to run")

CASES = [(example.id, lang, example.question[lang])
         for example in load_examples() for lang in ("en", "zh")]


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The terminal's environment: the fakes as the tools' services, and a cache directory
    of the module's own, so what auto mode learns never reaches the user's ~/.cache."""
    with ExitStack() as stack:
        meteo = stack.enter_context(FakeOpenMeteo())
        rates = stack.enter_context(FakeFrankfurter())
        wiki = stack.enter_context(FakeWikipedia())
        cache = tmp_path_factory.mktemp("cache")
        yield {**terminal_env(URL, meteo, rates, wiki, str(cache)),
               "LLM_MODEL": os.environ.get("GLASSBOX_LOCAL_MODEL_NAME", "local")}


@pytest.mark.parametrize(("example", "lang", "question"), CASES,
                         ids=[f"{e}-{lang}" for e, lang, _ in CASES])
def test_an_example_against_the_local_model(env: dict[str, str], example: str, lang: str,
                                            question: str) -> None:
    done = subprocess.run([sys.executable, "-m", "agent", "--json", question], env=env,
                          cwd=ROOT, capture_output=True, text=True, timeout=1800)
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    finished = events[-1]
    assert finished["type"] == "run_finished" and finished["status"] == "done", finished
    tools = [e["tool"] for e in events if e["type"] == "action"]
    if TOOL_OF[example]:
        assert TOOL_OF[example] in tools
    (answer,) = [e["text"] for e in events if e["type"] == "answer"]
    assert not CALL_JSON.search(answer), answer
    assert answer_lang(answer) in (lang, ""), answer  # "": figures only
