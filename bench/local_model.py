"""`scripts/bench --local-model URL [--record]`: the class questions through the agent
against a real model at URL (an OpenAI-compatible server, e.g. llama-cpp-python's), with
default settings and the tools on the test fakes (Open-Meteo, Frankfurter, Wikipedia) and
the course notes in data/notes. Prints, per question, whether it is right (finished with
the right tools and a right answer), how it finished, the tools used, rounds and seconds,
then the score, the median seconds and the machine's load. With `--server-log PATH`
(llama-cpp-python's server log), also how many prompt tokens each question made the server
read anew: what its prompt cache did not hold.

`--record` keeps what the model streamed, byte for byte, under tests/wire/local/ (one
folder a question: the question, then each response body as NN.sse), for
tests/test_local_replay.py to replay without the model.

One client serves all the questions, as in the bot: once auto mode has seen the model
write its calls as text, the later questions start in the text format. Then the terminal's
path: each question as its own `python -m agent --json` process, as a student at a terminal
asks, with a cache directory of the run's own (what auto mode learns in the first question
is what the later ones start with); its median counts from the second question on.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import httpx

from agent import AgentSettings, ModelClient, run_react
from agent.events import (
    Action,
    Answer,
    Event,
    Observation,
    Remark,
    RunFinished,
    event_from_dict,
)
from agent.grounding.backing import ledger, unfounded
from agent.model.endpoint_memory import endpoint_key
from agent.model.own_memory import FileKeeper, OwnMemory
from agent.tools import Toolbox
from agent.tools.clock import GetTime
from testkit.fakes.upstreams import FakeFrankfurter, FakeOpenMeteo, FakeWikipedia
from wire.model_transport import ModelHttpClient, model_transport

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
    also: tuple[str, ...] = ()
    """More text a right answer holds (each side of a comparison)."""
    then: str = ""
    """A second tool a right run uses."""
    wrong: tuple[str, ...] = ()
    """Text a right answer never holds (the wrong conclusion, in the words models use)."""
    held_out: bool = False
    """Never looked at while changing prompts: a change tuned on the others that breaks
    these shows here."""


# Interleaved across languages, as a class asks them: each new question follows one in the
# other language, so a prompt cache that serves only one language shows in the seconds.
QUESTIONS = (
    Question("arithmetic", "What is 123456789 × 987654321 exactly?", "calculate",
             "121932631112635269"),
    Question("weather_zh", "杭州现在天气怎么样？", "get_weather", "21.4"),
    Question("weather", "What is the weather in Hangzhou right now?", "get_weather", "21.4"),
    Question("percent_zh", "12.5% 的 3840 是多少？", "calculate", "480"),
    Question("compare", "Is it colder in Berlin or in Paris right now? Give both temperatures.",
             "get_weather", "2.3", also=("21.4", "Berlin"),
             wrong=("paris is colder", "paris is currently colder", "colder in paris",
                    "paris is the colder", "berlin is warmer", "berlin is currently warmer")),
    Question("currency_zh", "100 美元现在能换多少人民币？", "convert_currency"),
    Question("currency", "How much is 100 US dollars in Chinese yuan today?",
             "convert_currency"),
    Question("time_diff_zh", "北京现在比伦敦早几个小时？", "get_time", "8", held_out=True),
    Question("time", "What time is it in London right now?", "get_time"),
    Question("currency_350_zh", "350 美元等于多少人民币？", "convert_currency", "2554"),
    # 350 × 7.2994 = 2554.79: the amount is not the format's or the tools' 100
    Question("notes", "What do the course notes say about ReAct?", "search_notes", "Action"),
    # "Action": the notes' ReAct is Thought, Action, Observation; "ReAct" alone let an
    # answer about the React JavaScript library count as right (any case: "actions and
    # observations" is what the notes say too)
    Question("wikipedia_zh", "图灵测试是谁提出的？", "search_wikipedia", "图灵", held_out=True),
    Question("greeting", "Hi! Who are you and what can you do?", ""),
    Question("thanks_zh", "谢谢！给我一句复习考试的建议吧。", "", held_out=True),
    Question("percent_off", "What is 20% off 150?", "calculate", "120"),
    Question("notes_deep", "According to the course notes, what must the program do when a "
             "model writes its own Observation line?", "search_notes", "cut"),
    # the notes' third section, "How it goes wrong", not the first passage about ReAct
    Question("wikipedia", "Who was Ayrton Senna?", "search_wikipedia", "Formula One"),
    Question("percent_growth", "3840 * (1 + 5%)?", "calculate", "4032"),
    Question("two_tools", "Convert 100 US dollars to Chinese yuan and share it equally among 4 "
             "students: how much does each get?", "convert_currency", "182.4",
             then="calculate", held_out=True),
    # 729.94 / 4 = 182.485
    Question("euros", "How many US dollars are 250 euros?", "convert_currency", held_out=True),
)

# Written before any run of the code they measure, and never used to change it: what a class
# gets on questions nobody tuned for. Both languages, every tool but the notes and Wikipedia
# (whose fakes know two pages), and a greeting.
UNTUNED = (
    Question("u_time", "What time is it in Sydney right now?", "get_time"),
    Question("u_weather_zh", "北京现在多少度？", "get_weather", "21.4"),
    Question("u_yen", "How many Japanese yen is 50 US dollars?", "convert_currency"),
    Question("u_euro_zh", "200 欧元能换多少人民币？", "convert_currency"),
    Question("u_percent", "What is 15% of 640?", "calculate", "96"),
    Question("u_discount_zh", "一件衣服原价 240 元，打八折后是多少钱？", "calculate", "192"),
    Question("u_compare", "Is it warmer in Osaka or in Paris right now?", "get_weather",
             "27.3", also=("21.4", "Osaka"),
             wrong=("paris is warmer", "warmer in paris", "osaka is colder")),
    Question("u_product", "What is 58 × 67?", "calculate", "3886"),
    Question("u_time_diff_zh", "东京和北京现在差几个小时？", "get_time", "1"),
    Question("u_greeting_zh", "你好！你能帮我做什么？", ""),
)

# A second ten, written after the prompt and observation changes they measure and before any
# run of them: both languages, the weather (one question with a greeting, one comparison),
# currency, time, percentages, the notes, a greeting and a request that needs no tool.
UNTUNED2 = (
    Question("u2_hi_weather", "Hi! How warm is it in Shanghai right now?", "get_weather",
             "21.4"),
    Question("u2_compare", "Which is warmer right now, Berlin or Shanghai?", "get_weather",
             "21.4", also=("2.3", "Shanghai"),
             wrong=("berlin is warmer", "warmer in berlin", "shanghai is colder")),
    Question("u2_yen_zh", "5000 日元是多少人民币？", "convert_currency"),
    Question("u2_weekday", "What day of the week is it in Los Angeles right now?", "get_time"),
    Question("u2_time_zh", "首尔现在几点了？", "get_time"),
    Question("u2_share_zh", "一个班有 40 个学生，其中 35% 是女生，女生有多少人？", "calculate",
             "14"),
    Question("u2_rise", "A price went up from 80 to 92 dollars. By what percent did it rise?",
             "calculate", "15"),
    Question("u2_notes_zh", "课程笔记里说，函数调用的结果要放进什么角色的消息里发回给模型？",
             "search_notes", "tool"),
    Question("u2_greeting", "Good morning! What kinds of questions can I ask you?", ""),
    Question("u2_nervous_zh", "我明天要上台做报告，有点紧张，你有什么建议吗？", ""),
)

# The answers with figures and no lookup, asked again to record what the model does now.
NO_LOOKUP = (
    Question("time_tokyo_zh", "东京现在几点？", "get_time"),
    Question("time_new_york", "What time is it in New York now?", "get_time"),
)

# Requests that need no tool, used while changing what a search that found nothing says back
# (so not untuned): what a run comes to when the model searches anyway.
NO_TOOL = (
    Question("advice", "Thanks a lot! Any tip for staying focused while studying?", ""),
)

SETS = {"class": QUESTIONS, "untuned": UNTUNED, "untuned2": UNTUNED2, "no_lookup": NO_LOOKUP,
        "no_tool": NO_TOOL}


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
    remarks: list[str] = field(default_factory=list)
    rounds: int = 0
    seconds: float = 0.0
    prompts: list[tuple[int, int] | None] = field(default_factory=list)
    """Per model call, the prompt tokens the server took from its cache and read anew."""

    def problems(self) -> list[str]:
        """Why this run is not right (empty: finished with the right tool and answer)."""
        q, found = self.question, []
        if self.status != "done":
            found.append(f"status {self.status}")
        for tool in (q.tool, q.then):
            if tool and tool not in self.tools:
                found.append(f"no {tool}")
        if not q.tool and self.tools:
            found.append("used a tool")
        if CALL_JSON.search(self.answer):
            found.append("tool-call JSON in the answer")
        want = "zh" if _CJK.search(q.text) else "en"
        if answer_lang(self.answer) not in (want, ""):
            found.append(f"answered in {answer_lang(self.answer)}")
        digits = re.sub(r"[,\s]", "", self.answer)
        for text in (q.expect, *q.also):
            if text and not _holds(text, self.answer, digits):
                found.append(f"no {text!r} in the answer")
        for text in q.wrong:
            if text in self.answer.lower():
                found.append(f"{text!r} in the answer")
        if q.tool and not q.expect and self.tools:  # the answer's figures are observed
            invented = unfounded(ledger(self.answer, self.observations, q.text))
            if invented or not any(ch.isdigit() for ch in self.answer):
                found.append(f"figures not observed: {', '.join(invented) or 'none given'}")
        return found


_NUMBER = re.compile(r"[\d.]++")


def _holds(text: str, answer: str, digits: str) -> bool:
    """Whether `answer` holds `text`; a number as a number (96 is not in 960, nor 2.3 in
    12.3), a decimal also as the start of a more exact one (182.4 in 182.48), and with or
    without separators (2554 in 2,554.79)."""
    if not _NUMBER.fullmatch(text):
        return text.lower() in answer.lower()
    tail = "" if "." in text else r"(?!\d)"
    return re.search(rf"(?<![\d.]){re.escape(text)}{tail}", digits) is not None


_PREFIX_LINE = re.compile(rb"Llama\.generate: (\d++) prefix-match hit, remaining (\d++) prompt "
                          rb"tokens to eval")
_LOG_TAIL = 16_384
_EVAL_LINE = re.compile(
    rb"llama_perf_context_print: {8}eval time = +([0-9.]++) ms / +(\d++) runs")
_TOTAL_LINE = re.compile(rb"llama_perf_context_print: +total time = +([0-9.]++) ms")


class ServerLog:
    """llama-cpp-python's server log, which says for each request how much of the prompt
    it found in its cache ("Llama.generate: N prefix-match hit, remaining M prompt tokens to
    eval"). Read when a response's first bytes come: the server then has read that prompt
    and is writing its answer, so the newest such line is that request's, whoever else
    shares the server."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.start = path.stat().st_size
        except OSError:
            self.start = 0

    def requests_since_start(self) -> int:
        """The requests the server read a prompt for since this object was made (anyone's:
        another client between two of ours makes it read our prompt from the start)."""
        return len(self.prompts_since_start())

    def prompts_since_start(self) -> list[tuple[int, int]]:
        """(tokens reused, tokens read anew) of each request since this object was made."""
        try:
            with self.path.open("rb") as log:
                log.seek(self.start)
                return [(int(m[1]), int(m[2])) for m in _PREFIX_LINE.finditer(log.read())]
        except OSError:
            return []

    def last_prompt(self) -> tuple[int, int] | None:
        """(tokens reused from the cache, tokens read anew) of the newest request."""
        try:
            with self.path.open("rb") as log:
                log.seek(max(0, log.seek(0, 2) - _LOG_TAIL))
                tail = log.read()
        except OSError:
            return None
        found = list(_PREFIX_LINE.finditer(tail))
        return (int(found[-1][1]), int(found[-1][2])) if found else None
    # Exact while no other client shares the server; with one, a line may be the other's.

    def speeds(self) -> str:
        """The server's own timings of the requests since this object was made: tokens
        written a second (its eval lines) and prompt tokens read a second (those read anew
        over the time each request spent before writing)."""
        try:
            with self.path.open("rb") as log:
                log.seek(self.start)
                text = log.read()
        except OSError:
            return "no server log"
        read = sum(int(m[2]) for m in _PREFIX_LINE.finditer(text))
        written = [(float(m[1]), int(m[2])) for m in _EVAL_LINE.finditer(text)]
        total = sum(float(m[1]) for m in _TOTAL_LINE.finditer(text))
        eval_ms, tokens = sum(ms for ms, _ in written), sum(n for _, n in written)
        if not written or total <= eval_ms:
            return "no timings in the server log"
        return (f"The server wrote {tokens} tokens at {tokens / eval_ms * 1000:.1f} a second "
                f"and read {read} prompt tokens anew at "
                f"{read / (total - eval_ms) * 1000:.1f} a second")


class Recorder(httpx.AsyncBaseTransport):
    """The model's transport (wire/), keeping each chat-completion response body as it
    streams, and, with the server's log, how many prompt tokens the server read anew for it."""

    def __init__(self, log: ServerLog | None = None) -> None:
        self.inner = model_transport()
        self.bodies: list[bytearray] = []
        self.prompts: list[tuple[int, int] | None] = []
        self.log = log

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        if not request.url.path.endswith("/chat/completions"):
            return response
        body = bytearray()
        self.bodies.append(body)
        self.prompts.append(None)
        at = len(self.prompts) - 1

        def first_bytes() -> None:
            if self.log is not None:
                self.prompts[at] = self.log.last_prompt()

        return httpx.Response(response.status_code, headers=response.headers,
                              stream=_Tee(response, body, first_bytes),
                              extensions=response.extensions)

    async def aclose(self) -> None:
        await self.inner.aclose()


class _Tee(httpx.AsyncByteStream):
    def __init__(self, response: httpx.Response, into: bytearray,
                 first_bytes: Callable[[], None]) -> None:
        self.response, self.into, self.first_bytes = response, into, first_bytes

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.response.aiter_raw():
            if not self.into:
                self.first_bytes()
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


@dataclass
class Run:
    outcomes: list[Outcome]
    ours: int = 0
    """Chat completions this run asked for."""
    served: int | None = None
    """Requests the server read a prompt for meanwhile, ours and anyone else's (None: no
    server log given)."""
    speeds: str = ""
    """The server's own timings meanwhile (`ServerLog.speeds`)."""


async def run_questions(url: str, record: bool, only: list[str] | None = None,
                        server_log: Path | None = None, remembered: bool = False,
                        questions: tuple[Question, ...] = QUESTIONS) -> Run:
    outcomes: list[Outcome] = []
    with ExitStack() as stack:
        meteo = stack.enter_context(FakeOpenMeteo())
        rates = stack.enter_context(FakeFrankfurter())
        wiki = stack.enter_context(FakeWikipedia())
        settings = settings_for(url, meteo, rates, wiki)
        recorder = Recorder(ServerLog(server_log) if server_log else None)
        client = ModelClient(settings, http_client=ModelHttpClient(recorder))
        client.memory.calls_as_text = remembered  # what a restarted bot's store holds
        box = await Toolbox.open(settings)
        try:
            for q in questions:
                if only and q.id not in only:
                    continue
                print(f"{q.id}: {q.text}", file=sys.stderr)
                first, in_text = len(recorder.bodies), client.memory.calls_as_text
                clock = datetime.now(UTC).replace(second=0, microsecond=0)
                outcome = await _one(q, client, settings, box, clock if record else None)
                outcome.prompts = recorder.prompts[first:]
                outcomes.append(outcome)
                print(f"  {outcome.status} {outcome.tools} {outcome.seconds:.0f} s "
                      f"(prompt tokens reused, read: {outcome.prompts}; load {load()}): "
                      f"{outcome.answer[:160]!r}", file=sys.stderr)
                if record:
                    save(outcome, in_text, clock, recorder.bodies[first:])
        finally:
            await box.aclose()
            await client.close()
    log = recorder.log
    return Run(outcomes, len(recorder.bodies), log.requests_since_start() if log else None,
               log.speeds() if log else "")


async def _one(q: Question, client: ModelClient, settings: AgentSettings, box: Toolbox,
               clock: datetime | None = None) -> Outcome:
    """`clock`: the minute get_time reads for the whole run (a recording's replay reads the
    minute question.json keeps, however long the model took between its calls)."""
    started = time.monotonic()
    tools = list(box.tools) if clock is None else [
        GetTime(settings.default_timezone, clock=lambda: clock) if t.name == GetTime.name
        else t for t in box.tools]
    # Each question as one student's chat, as a class asks: the endpoint learns what it
    # would learn there (agent/model/endpoint_memory.py counts chats).
    events = [event async for event in run_react(q.text, client=client, settings=settings,
                                                 tools=tools, source=q.id)]
    return outcome_of(q, events, time.monotonic() - started)


def terminal_env(url: str, meteo: FakeOpenMeteo, rates: FakeFrankfurter, wiki: FakeWikipedia,
                 cache: str) -> dict[str, str]:
    """`settings_for`'s settings as a terminal's environment, with the cache directory
    `cache` (where the terminal keeps what auto mode learned) and no store."""
    kept = {k: v for k, v in os.environ.items()
            if not k.startswith(("OPENAI_", "DASHSCOPE_", "LLM_", "AGENT_", "DATABASE_"))}
    settings = settings_for(url, meteo, rates, wiki)
    return {**kept, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": cache,
            "OPENAI_BASE_URL": url, "OPENAI_API_KEY": "local", "LLM_MODEL": "local",
            "LLM_TIMEOUT_S": str(settings.llm_timeout_s), "LLM_MAX_RETRIES": "0",
            "NOTES_DIR": str(settings.notes_dir),
            "OPEN_METEO_GEOCODING_URL": settings.open_meteo_geocoding_url,
            "OPEN_METEO_FORECAST_URL": settings.open_meteo_forecast_url,
            "FRANKFURTER_URL": settings.frankfurter_url,
            "WIKIPEDIA_API_URL": settings.wikipedia_api_url,
            "WIKIPEDIA_REST_URL": settings.wikipedia_rest_url}


async def run_terminal(url: str, only: list[str] | None = None,
                       questions: tuple[Question, ...] = QUESTIONS,
                       remembered: bool = False, server_log: Path | None = None,
                       ) -> list[Outcome]:
    """Each question as its own `python -m agent --json` process, one after the other, all
    with one fresh cache directory (`remembered`: one whose memory already holds that the
    model writes its calls as text, as an earlier run of the terminal left it)."""
    outcomes: list[Outcome] = []
    with ExitStack() as stack, tempfile.TemporaryDirectory() as home:
        meteo = stack.enter_context(FakeOpenMeteo())
        rates = stack.enter_context(FakeFrankfurter())
        wiki = stack.enter_context(FakeWikipedia())
        env = terminal_env(url, meteo, rates, wiki, str(Path(home) / "cache"))
        if remembered:
            keeper = FileKeeper(Path(env["XDG_CACHE_HOME"]) / "glassbox" / "endpoints.json")
            memory = OwnMemory(endpoint_key(url, "local"), calls_as_text=True)
            await keeper.save(memory)
        for q in questions:
            if only and q.id not in only:
                continue
            print(f"terminal {q.id}: {q.text}", file=sys.stderr)
            log = ServerLog(server_log) if server_log else None
            started = time.monotonic()
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "agent", "--json", q.text, cwd=home, env=env,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            out, err = await process.communicate()
            events = [event_from_dict(json.loads(line)) for line in out.decode().splitlines()
                      if line.strip()]
            outcome = outcome_of(q, events, time.monotonic() - started)
            outcome.prompts = list(log.prompts_since_start()) if log else []
            if not events:
                outcome.status = f"exit {process.returncode}: {err.decode()[-200:]}"
            outcomes.append(outcome)
            print(f"  {outcome.status} {outcome.tools} {outcome.seconds:.0f} s (load "
                  f"{load()}): {outcome.answer[:160]!r}", file=sys.stderr)
    return outcomes


def outcome_of(q: Question, events: list[Event], seconds: float = 0.0) -> Outcome:
    """What a run of `q` came to, from its events."""
    outcome = Outcome(q, seconds=seconds)
    for event in events:
        if isinstance(event, Action):
            outcome.tools.append(event.tool)
        elif isinstance(event, Observation) and event.ok:
            outcome.observations.append(event.text)
        elif isinstance(event, Remark):
            outcome.remarks.append(event.kind)
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
    meta = {"question": q.text, "tool": q.tool, "expect": q.expect, "also": list(q.also),
            "then": q.then, "starts_in_text": in_text,
            "problems": outcome.problems(), "seconds": round(outcome.seconds),
            "clock": clock.isoformat()}
    (folder / "question.json").write_text(json.dumps(meta, ensure_ascii=False) + "\n", "utf-8")
    for n, body in enumerate(bodies, 1):
        (folder / f"{n:02d}.sse").write_bytes(bytes(body))


def load() -> str:
    """The machine's load averages (1, 5, 15 minutes), as `uptime` shows them."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def _median(values: list[float]) -> str:
    return f"{statistics.median(values):.0f}" if values else "-"


def _rows(outcomes: list[Outcome]) -> list[str]:
    rows = ["| question | right | finished | tools | rounds | seconds | prompt tokens read "
            "anew (1st call; all calls) | answer (start) |",
            "|---|---|---|---|---:|---:|---|---|"]
    for o in outcomes:
        problems = o.problems()
        verdict = "yes" if not problems else "no: " + "; ".join(problems)
        answer = " ".join(o.answer.split())[:70].replace("|", "\\|")
        name = o.question.id + (" (held out)" if o.question.held_out else "")
        read = [p[1] for p in o.prompts if p is not None]
        prompt = f"{read[0]}; {sum(read)}" if read else "-"
        rows.append(f"| {name} | {verdict} | {o.status} | {', '.join(o.tools) or '-'} | "
                    f"{o.rounds} | {o.seconds:.0f} | {prompt} | {answer} |")
    return rows


def report(run: Run, url: str, loads: tuple[str, str] = ("?", "?")) -> str:
    outcomes = run.outcomes
    rows = _rows(outcomes)
    right = sum(not o.problems() for o in outcomes)
    one_tool = [o.seconds for o in outcomes if len(o.tools) == 1]
    firsts = [o.prompts[0][1] for o in outcomes[1:] if o.prompts and o.prompts[0] is not None]
    rows.append(f"\n{right} of {len(outcomes)} right, "
                f"{sum(o.status == 'done' for o in outcomes)} finished, against {url}, in one "
                f"process. Median seconds: {_median([o.seconds for o in outcomes])} of all, "
                f"{_median(one_tool)} of the {len(one_tool)} runs with one tool call. Prompt "
                f"tokens read anew by a new question's first call (after the first): median "
                f"{_median([float(n) for n in firsts])}. Load average at the start {loads[0]}, "
                f"at the end {loads[1]}."
                + ("" if run.served is None else
                   f" The server read {run.served} prompts meanwhile, {run.ours} of them "
                   f"this run's: each other client's request between two of ours makes the "
                   f"server read ours from the start.")
                + (f" {run.speeds}." if run.speeds else ""))
    return "\n".join(rows)


def terminal_report(outcomes: list[Outcome], loads: tuple[str, str], speeds: str = "") -> str:
    """The terminal's table: one process a question, the median from the second on."""
    rows = ["\nThe terminal: one `python -m agent --json` process a question.\n",
            *_rows(outcomes)]
    right = sum(not o.problems() for o in outcomes)
    rows.append(f"\n{right} of {len(outcomes)} right, "
                f"{sum(o.status == 'done' for o in outcomes)} finished. Median seconds from "
                f"the second question on: {_median([o.seconds for o in outcomes[1:]])} "
                f"(the first: {outcomes[0].seconds:.0f} s). Load average at the start "
                f"{loads[0]}, at the end {loads[1]}." + (f" {speeds}." if speeds else ""))
    return "\n".join(rows)
