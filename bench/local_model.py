"""`scripts/bench --local-model URL [--record]`: the class questions through the agent
against a real model at URL (an OpenAI-compatible server, e.g. llama-cpp-python's), with
default settings and the tools on the test fakes (Open-Meteo, Frankfurter, Wikipedia) and
the course notes in data/notes. Prints, per question, whether it finished with the right
tool and a right answer, the tools used, rounds and seconds, then the score.

`--record` keeps what the model streamed, byte for byte, under tests/wire/local/ (one
folder a question: the question, then each response body as NN.sse), for
tests/test_local_replay.py to replay without the model.

One client serves all the questions, as in the bot: once auto mode has seen the model
write its calls as text, the later questions start in the text format.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import AsyncIterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import httpx

from agent import AgentSettings, ModelClient, run_react
from agent.events import Action, Answer, Event, Note, Observation, RunFinished
from agent.grounding import ledger, unfounded
from agent.tools import Toolbox
from tests.fakes.upstreams import FakeFrankfurter, FakeOpenMeteo, FakeWikipedia

ROOT = Path(__file__).resolve().parent.parent
RECORDINGS = ROOT / "tests" / "wire" / "local"


@dataclass(frozen=True)
class Question:
    id: str
    text: str
    tool: str
    """The tool a right run uses ("" for none)."""
    expect: str = ""
    """Text a right answer holds (digits compared without separators), if any."""


QUESTIONS = (
    Question("arithmetic", "What is 123456789 × 987654321 exactly?", "calculate",
             "121932631112635269"),
    Question("weather", "What is the weather in Hangzhou right now?", "get_weather", "21.4"),
    Question("currency", "How much is 100 US dollars in Chinese yuan today?",
             "convert_currency"),
    Question("time", "What time is it in London right now?", "get_time"),
    Question("notes", "What do the course notes say about ReAct?", "search_notes", "Action"),
    # "Action": the notes' ReAct is Thought, Action, Observation; "ReAct" alone let an
    # answer about the React JavaScript library count as right (any case: "actions and
    # observations" is what the notes say too)
    Question("weather_zh", "杭州现在天气怎么样？", "get_weather", "21.4"),
    Question("currency_zh", "100 美元现在能换多少人民币？", "convert_currency"),
    Question("greeting", "Hi! Who are you and what can you do?", ""),
    Question("percent_zh", "12.5% 的 3840 是多少？", "calculate", "480"),
    Question("percent_off", "What is 20% off 150?", "calculate", "120"),
    Question("percent_growth", "3840 * (1 + 5%)?", "calculate", "4032"),
)

CALL_JSON = re.compile(r"\"(?:name|arguments|parameters)\"\s*+:")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]")


def answer_lang(text: str) -> str:
    """zh when the answer is mostly Chinese: a few Chinese names in English are English;
    "" when it has no letters of either (`123 × 456 = 56088` is in no language)."""
    cjk, latin = len(_CJK.findall(text)), len(_LATIN.findall(text))
    if not cjk and not latin:
        return ""
    return "zh" if cjk * 3 >= latin else "en"


@dataclass
class Outcome:
    question: Question
    status: str = ""
    answer: str = ""
    tools: list[str] = field(default_factory=list)
    observations: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    rounds: int = 0
    seconds: float = 0.0

    def problems(self) -> list[str]:
        """Why this run is not right (empty: finished with the right tool and answer)."""
        q, found = self.question, []
        if self.status != "done":
            found.append(f"status {self.status}")
        if q.tool and q.tool not in self.tools:
            found.append(f"no {q.tool}")
        if not q.tool and self.tools:
            found.append("used a tool")
        if CALL_JSON.search(self.answer):
            found.append("tool-call JSON in the answer")
        want = "zh" if _CJK.search(q.text) else "en"
        if answer_lang(self.answer) not in (want, ""):
            found.append(f"answered in {answer_lang(self.answer)}")
        digits = re.sub(r"[,\s]", "", self.answer)
        if q.expect and q.expect.lower() not in self.answer.lower() and q.expect not in digits:
            found.append(f"no {q.expect!r} in the answer")
        if q.tool and not q.expect and self.tools:  # the answer's figures are observed
            invented = unfounded(ledger(self.answer, self.observations, q.text))
            if invented or not any(ch.isdigit() for ch in self.answer):
                found.append(f"figures not observed: {', '.join(invented) or 'none given'}")
        return found


class Recorder(httpx.AsyncBaseTransport):
    """A transport that keeps each chat-completion response body as it streams."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.bodies: list[bytearray] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        if not request.url.path.endswith("/chat/completions"):
            return response
        body = bytearray()
        self.bodies.append(body)
        return httpx.Response(response.status_code, headers=response.headers,
                              stream=_Tee(response, body), extensions=response.extensions)

    async def aclose(self) -> None:
        await self.inner.aclose()


class _Tee(httpx.AsyncByteStream):
    def __init__(self, response: httpx.Response, into: bytearray) -> None:
        self.response, self.into = response, into

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.response.aiter_raw():
            self.into.extend(chunk)
            yield chunk

    async def aclose(self) -> None:
        await self.response.aclose()


def settings_for(url: str, meteo: FakeOpenMeteo, rates: FakeFrankfurter,
                 wiki: FakeWikipedia) -> AgentSettings:
    """Default settings, but the model at `url`, the tools' services on the fakes, and
    room for a slow CPU (a long prompt may take minutes before the first token)."""
    return AgentSettings(
        _env_file=None, openai_base_url=url, openai_api_key="local", llm_model="local",
        llm_timeout_s=600, llm_max_retries=0, notes_dir=ROOT / "data" / "notes",
        open_meteo_geocoding_url=meteo.geocoding_url, open_meteo_forecast_url=meteo.forecast_url,
        frankfurter_url=rates.base_url, wikipedia_api_url=wiki.api_url,
        wikipedia_rest_url=wiki.rest_url)


async def run_questions(url: str, record: bool, only: list[str] | None = None
                        ) -> list[Outcome]:
    outcomes = []
    with ExitStack() as stack:
        meteo = stack.enter_context(FakeOpenMeteo())
        rates = stack.enter_context(FakeFrankfurter())
        wiki = stack.enter_context(FakeWikipedia())
        settings = settings_for(url, meteo, rates, wiki)
        recorder = Recorder()
        client = ModelClient(settings, http_client=httpx.AsyncClient(transport=recorder))
        box = await Toolbox.open(settings)
        try:
            for q in QUESTIONS:
                if only and q.id not in only:
                    continue
                print(f"{q.id}: {q.text}", file=sys.stderr)
                first, in_text = len(recorder.bodies), client.calls_as_text
                clock = datetime.now(UTC).replace(second=0, microsecond=0)
                outcome = await _one(q, client, settings, box)
                outcomes.append(outcome)
                print(f"  {outcome.status} {outcome.tools} {outcome.seconds:.0f} s: "
                      f"{outcome.answer[:160]!r}", file=sys.stderr)
                if record:
                    save(outcome, in_text, clock, recorder.bodies[first:])
        finally:
            await box.aclose()
            await client.close()
    return outcomes


async def _one(q: Question, client: ModelClient, settings: AgentSettings,
               box: Toolbox) -> Outcome:
    started = time.monotonic()
    events = [event async for event in run_react(q.text, client=client, settings=settings,
                                                 tools=box.tools)]
    return outcome_of(q, events, time.monotonic() - started)


def outcome_of(q: Question, events: list[Event], seconds: float = 0.0) -> Outcome:
    """What a run of `q` came to, from its events."""
    outcome = Outcome(q, seconds=seconds)
    for event in events:
        if isinstance(event, Action):
            outcome.tools.append(event.tool)
        elif isinstance(event, Observation) and event.ok:
            outcome.observations.append(event.text)
        elif isinstance(event, Note):
            outcome.notes.append(event.kind)
        elif isinstance(event, Answer):
            outcome.answer = event.text
        elif isinstance(event, RunFinished):
            outcome.status, outcome.rounds = event.status, event.rounds
    return outcome


def save(outcome: Outcome, in_text: bool, clock: datetime, bodies: list[bytearray]) -> None:
    """One run's streams, and what it came to; `in_text`: the client already knew the
    model writes its calls as text, so the run started in the text format; `clock`: the
    minute it started, for a replay's get_time to say what it said."""
    q = outcome.question
    folder = RECORDINGS / q.id
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.sse"):
        old.unlink()
    meta = {"question": q.text, "tool": q.tool, "expect": q.expect, "starts_in_text": in_text,
            "problems": outcome.problems(), "seconds": round(outcome.seconds),
            "clock": clock.isoformat()}
    (folder / "question.json").write_text(json.dumps(meta, ensure_ascii=False) + "\n", "utf-8")
    for n, body in enumerate(bodies, 1):
        (folder / f"{n:02d}.sse").write_bytes(bytes(body))


def report(outcomes: list[Outcome], url: str) -> str:
    rows = ["| question | right | tools | rounds | seconds | notes | answer (start) |",
            "|---|---|---|---:|---:|---|---|"]
    for o in outcomes:
        problems = o.problems()
        verdict = "yes" if not problems else "no: " + "; ".join(problems)
        answer = " ".join(o.answer.split())[:70].replace("|", "\\|")
        rows.append(f"| {o.question.id} | {verdict} | {', '.join(o.tools) or '-'} | "
                    f"{o.rounds} | {o.seconds:.0f} | {', '.join(o.notes) or '-'} | {answer} |")
    right = sum(not o.problems() for o in outcomes)
    rows.append(f"\n{right} of {len(outcomes)} right, against {url}.")
    return "\n".join(rows)
