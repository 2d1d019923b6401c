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

from bench.local_model import CALL_JSON, answer_lang
from bot.examples import load_examples
from tests.fakes.upstreams import FakeFrankfurter, FakeOpenMeteo, FakeWikipedia

URL = os.environ.get("GLASSBOX_LOCAL_MODEL_URL", "")
ROOT = Path(__file__).resolve().parent.parent
TOOL_OF = {"weather": "get_weather", "currency": "convert_currency", "time": "get_time",
           "arithmetic": "calculate", "notes": "search_notes", "unknowable": ""}

pytestmark = pytest.mark.skipif(not URL, reason="set GLASSBOX_LOCAL_MODEL_URL to run")

CASES = [(example.id, lang, example.question[lang])
         for example in load_examples() for lang in ("en", "zh")]


@pytest.fixture(scope="module")
def env() -> Iterator[dict[str, str]]:
    with ExitStack() as stack:
        meteo = stack.enter_context(FakeOpenMeteo())
        rates = stack.enter_context(FakeFrankfurter())
        wiki = stack.enter_context(FakeWikipedia())
        yield {**os.environ, "OPENAI_BASE_URL": URL, "OPENAI_API_KEY": "sk-local",
               "LLM_MODEL": os.environ.get("GLASSBOX_LOCAL_MODEL_NAME", "local"),
               "LLM_TIMEOUT_S": "600", "LLM_MAX_RETRIES": "0",
               "OPEN_METEO_GEOCODING_URL": meteo.geocoding_url,
               "OPEN_METEO_FORECAST_URL": meteo.forecast_url,
               "FRANKFURTER_URL": rates.base_url, "WIKIPEDIA_API_URL": wiki.api_url,
               "WIKIPEDIA_REST_URL": wiki.rest_url, "NOTES_DIR": str(ROOT / "data" / "notes")}


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
