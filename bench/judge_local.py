"""`python -m bench --judge-local URL [--record]`: /compare's judgement by a real model at
URL, for the class's compare cases. Each case's model-alone answer is the model's own (the
plain lane, asked at URL); the answer with tools and its tool calls are those the same model
gave when its ReAct runs were recorded (tests/wire/local/<run>/), so the judge sees what a
/compare with that model would show it. Prints per case the judgement, whether it is true
(it names every figure that differs and no other, and says how the tools got theirs only as
they did) and its seconds.

`--record` keeps both streams (01.sse the model alone, 02.sse the judgement) byte for byte
under tests/wire/local/judge/<case>/ for tests/test_local_judge.py to replay.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from agent import ModelClient, run_plain
from agent.classroom.compare_judge import capped, judge
from agent.classroom.judge_check import untrue
from agent.events import Answer, Judgement
from agent.grounding.figure_diff import differing
from agent.lang import detect_lang
from agent.tool import Source
from bench.local_model import Recorder, settings_for
from testkit.fakes.upstreams import FakeFrankfurter, FakeOpenMeteo, FakeWikipedia
from wire.model_transport import ModelHttpClient

RECORDINGS = Path(__file__).resolve().parent.parent / "tests" / "wire" / "local" / "judge"


@dataclass(frozen=True)
class Case:
    id: str
    question: str
    react_answer: str
    """As the model wrote it with tools (its recorded run's Final Answer)."""
    calls: tuple[tuple[str, Source], ...]
    """Its tool calls that worked, as compare_judge.ToolUses lists them."""
    run: str
    """The recorded ReAct run it comes from (tests/wire/local/<run>/)."""


CASES = (
    Case("arithmetic", "What is 123456789 × 987654321 exactly?",
         "123456789 × 987654321 is exactly 121932631112635269.",
         (('calculate(expression="123456789 * 987654321")', Source.CALCULATED),), "arithmetic"),
    Case("currency", "How much is 100 US dollars in Chinese yuan today?",
         "100 US dollars is equivalent to 729.94 Chinese yuan today.",
         (('convert_currency(amount=100, from_currency="USD", to_currency="CNY")',
           Source.LOOKED_UP),), "currency"),
    Case("percent_off", "What is 20% off 150?", "20% off of 150 is 120.",
         (('calculate(expression="150 * (1 - 0.2)")', Source.CALCULATED),), "percent_off"),
    Case("percent_zh", "12.5% 的 3840 是多少？", "12.5% 的 3840 是 480。",
         (('calculate(expression="12.5% * 3840")', Source.CALCULATED),), "percent_zh"),
    Case("weather_zh", "杭州现在天气怎么样？",
         "杭州现在 21.4°C，体感 19.8 °C，小雨，湿度 35%，风速 12.6 km/h。",
         (('get_weather(city="杭州")', Source.LOOKED_UP),), "weather_zh"),
)


@dataclass
class Judged:
    case: Case
    plain_answer: str
    judgement: str
    """What the model wrote (whether or not the guard let it show)."""
    problems: list[str]
    shown: bool
    """The judgement is shown (judge() gave it; the guard drops an untrue one)."""
    seconds_plain: float
    seconds_judge: float


async def judge_cases(url: str, record: bool, only: list[str] | None = None) -> list[Judged]:
    with FakeOpenMeteo() as meteo, FakeFrankfurter() as rates, FakeWikipedia() as wiki:
        settings = settings_for(url, meteo, rates, wiki)
        recorder = Recorder()
        client = ModelClient(settings, http_client=ModelHttpClient(recorder))
        done = []
        try:
            for case in CASES:
                if only and case.id not in only:
                    continue
                first = len(recorder.bodies)
                started = time.monotonic()
                events = [e async for e in run_plain(case.question, client=client,
                                                     settings=settings)]
                plain = next((e.text for e in events if isinstance(e, Answer)), "")
                middle = time.monotonic()
                shown = await judge(case.question, plain, case.react_answer, client=client,
                                    lang=detect_lang(case.question), calls=case.calls)
                ended = time.monotonic()
                text = capped(" ".join(streamed_text(recorder.bodies[-1]).split()),
                              detect_lang(case.question))
                judged = Judged(case, plain, text,
                                untrue(text, plain, case.react_answer, case.calls,
                                       case.question),
                                isinstance(shown, Judgement), middle - started, ended - middle)
                done.append(judged)
                print(f"{case.id}: {judged.seconds_plain:.0f} s + {judged.seconds_judge:.0f} s"
                      f" {judged.problems or 'true'}, shown: {judged.shown}: {text!r}",
                      file=sys.stderr)
                if record:
                    save(judged, recorder.bodies[first:])
        finally:
            await client.close()
    return done


def streamed_text(body: bytes | bytearray) -> str:
    """The text a chat-completion stream's `data:` chunks carry."""
    out = []
    for line in bytes(body).decode("utf-8", "replace").splitlines():
        if line.startswith("data: ") and line != "data: [DONE]":
            for choice in json.loads(line[6:]).get("choices") or ():
                out.append((choice.get("delta") or {}).get("content") or "")
    return "".join(out)


def save(judged: Judged, bodies: list[bytearray]) -> None:
    case = judged.case
    folder = RECORDINGS / case.id
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.sse"):
        old.unlink()
    meta = {"question": case.question, "react_answer": case.react_answer,
            "calls": [[call, str(source)] for call, source in case.calls], "run": case.run,
            "plain_answer": judged.plain_answer, "judgement": judged.judgement,
            "differ": [[p.left.text, p.right.text]
                       for p in differing(judged.plain_answer, case.react_answer)],
            "problems": judged.problems, "shown": judged.shown,
            "seconds_plain": round(judged.seconds_plain),
            "seconds_judge": round(judged.seconds_judge)}
    (folder / "case.json").write_text(json.dumps(meta, ensure_ascii=False, indent=1) + "\n",
                                      "utf-8")
    for n, body in enumerate(bodies, 1):
        (folder / f"{n:02d}.sse").write_bytes(bytes(body))


def report(done: list[Judged]) -> str:
    rows = ["| case | figures that differ | judgement true | shown | plain s | judge s | "
            "judgement |", "|---|---|---|---|---:|---:|---|"]
    for j in done:
        pairs = "; ".join(f"{p.left.text} vs {p.right.text}"
                          for p in differing(j.plain_answer, j.case.react_answer)) or "none"
        verdict = "yes" if not j.problems else "no: " + "; ".join(j.problems)
        rows.append(f"| {j.case.id} | {pairs} | {verdict} | {'yes' if j.shown else 'no'} | "
                    f"{j.seconds_plain:.0f} | "
                    f"{j.seconds_judge:.0f} | {j.judgement.replace('|', '/')} |")
    return "\n".join(rows)
