"""The stage of the live benchmarks: fake Telegram, a fake model and a fake Open-Meteo that
behave like the real ones, in this process, and the bot in a child process of its own
(`python -m bot`, so its memory is its own) with its real `get_weather` tool.

Real behaviour: the model's first token comes after 0.5 to 1 s, then 40 tokens a second;
a tool call takes 0.2 s (get_weather asks Open-Meteo twice, 0.1 s each; only for the
forecast, 0.1 s, when it found the place before); every Telegram
call takes 50 ms and Telegram's flood limits answer 429. `scale` < 1 runs all of it on a
faster clock (`--quick`), with the bot's pacing scaled alike by `python -m bench.bot`."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from testkit.agentkit import TEST_KEY
from testkit.fakes.model import DashScope, FakeModel, Pace, Served, sse
from testkit.fakes.server import Reply
from testkit.fakes.telegram import TOKEN, FakeTelegram, Message
from testkit.fakes.upstreams import FakeOpenMeteo

ROOT = Path(__file__).resolve().parent.parent
TELEGRAM_LATENCY_S = 0.05
UPSTREAM_LATENCY_S = 0.1
LONG_POLL_S = 10.0
"""A `getUpdates` with no update waits this long, as Telegram holds it for the bot's `timeout`
(10 s): a fake answering every second charged the bot a poll a second while idle."""
CITIES = ("Berlin", "Osaka")
"""An /ask here takes three rounds: the weather in each city, then the answer."""


def question_of(body: dict[str, Any]) -> str:
    return next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")


def tools_done(body: dict[str, Any]) -> int:
    """How many tool results the model has been sent since the question."""
    done = 0
    for message in reversed(body["messages"]):
        if message["role"] == "user":
            break
        done += message["role"] == "tool"
    return done


_PAGE_MARK = re.compile(r"\((\d+)/(\d+)\)$")
LONG_ASK = "at length"
"""A question with these words gets a long answer (about 6,000 characters, in paragraphs)."""


def answer_for(question: str) -> str:
    if LONG_ASK in question:
        paragraph = ("The lookups gave the background and the details; a model that reasons "
                     "and acts in turns checks each step against what the tools returned, "
                     "which is why its answer can be trusted further than a guess. ")
        return f"Answer to {question}.\n\n" + "\n\n".join(
            f"## Part {n}\n\n{paragraph * 2}" for n in range(1, 17))
    return (f"Answer to {question}. The first lookup gave the background and the second "
            "one the details, so here is the short version: it depends on the season, but "
            "most sources agree on the main points, which are listed in the observations "
            "above for anyone who wants to check them.")


def script(body: dict[str, Any]) -> Reply:
    """A model that asks for the weather twice, thinking aloud, then answers by name;
    one chunk a word."""
    question = question_of(body)
    done = tools_done(body)
    ds = DashScope()
    if done >= len(CITIES):
        answer = answer_for(question)
        return sse(ds.text(answer, pieces=len(answer.split()), usage=(400, 60)))
    city = CITIES[done]
    thought = (f"To answer this I need the weather in {city} now, so I will look it up "
               "rather than guess from memory.")
    words = [word + " " for word in thought.split()]
    chunks = [ds.chunk({"content": None, "reasoning_content": word, "role": "assistant"})
              for word in words]
    calls = [("get_weather", {"city": city, "lang": "en"})]
    return sse([*chunks, *ds.tool_calls(calls, usage=(300, 40))])


@dataclass
class Stage:
    tg: FakeTelegram
    model: FakeModel
    meteo: FakeOpenMeteo
    bot: subprocess.Popen[bytes]
    scale: float
    log: Path

    def answer_served(self, question: str) -> Served:
        """The model's last reply to `question` (its answer)."""
        return next(s for s in reversed(self.model.served) if question_of(s.body) == question)

    def final(self, chat_id: int, asked: int) -> list[Message] | None:
        """The pages of the bot's answer to message `asked` once final (`final_pages`)."""
        return final_pages(bot_replies(self.tg), chat_id, asked)

    def peak_rss_mib(self) -> float | None:
        """The bot process's peak resident memory so far (Linux: VmHWM)."""
        kib = rss_kib(self.bot.pid, "VmHWM")
        return None if kib is None else kib / 1024


Replies = dict[tuple[int, int | None], list[Message]]
"""The bot's messages by (chat, the message each replies to), oldest first."""


def bot_replies(tg: FakeTelegram) -> Replies:
    """Every bot message on screen, by what it replies to: one pass, so asking `final_pages`
    for each of 1,000 chats' answers is not quadratic."""
    with tg.lock:
        mine = sorted((m for m in tg.messages.values() if m.sender["is_bot"]),
                      key=lambda m: m.message_id)
    replies: Replies = {}
    for m in mine:
        replies.setdefault((m.chat_id, m.reply_to), []).append(m)
    return replies


def final_pages(replies: Replies, chat_id: int, asked: int) -> list[Message] | None:
    """The pages of the bot's answer to message `asked` once final: no ⏹ button left, not a
    page just sent (its ⏹ comes with the next edit) that still says ⏳ Working… (or shows no
    text yet), and no page mark saying more pages are to come."""
    first = next(iter(replies.get((chat_id, asked), [])), None)
    if first is None:
        return None
    pages = [first, *replies.get((chat_id, first.message_id), [])]
    last = pages[-1].text
    working = not last or last.splitlines()[-1].startswith("⏳")
    mark = _PAGE_MARK.search(last)
    more = mark is not None and int(mark[1]) < int(mark[2])  # (1/3): pages still to come
    return None if working or more or any(page.buttons for page in pages) else pages


def children(pid: int) -> list[int]:
    """`pid`'s child processes, Linux only."""
    return [int(child) for task in Path(f"/proc/{pid}/task").iterdir()
            for child in (task / "children").read_text().split()]


def rss_kib(pid: int, key: str = "VmRSS") -> int | None:
    """A process's resident memory (`key`: VmRSS now, VmHWM at its peak), Linux only; None
    for a process gone, or one that has exited and not been waited for (no memory lines)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    return next((int(line.split()[1]) for line in status.splitlines()
                 if line.startswith(key + ":")), None)


def wait_for(what: str, done: Callable[[], bool], timeout: float,
             progress: Callable[[], str] | None = None) -> bool:
    """Poll `done` until it holds or `timeout` passes; say `progress()` every 15 s."""
    start = last = time.monotonic()
    while not done():
        now = time.monotonic()
        if now - start > timeout:
            print(f"  {what}: gave up after {timeout:.0f} s", file=sys.stderr)
            return False
        if progress and now - last >= 15:
            print(f"  {what}: {progress()}", file=sys.stderr)
            last = now
        time.sleep(0.01)
    return True


def model_pace(scale: float = 1.0) -> Pace:
    """The stage's model: the first token after 0.5 to 1 s, then 40 tokens a second (on a
    clock `scale` times as slow)."""
    return Pace(first_token_s=(0.5 * scale, 1.0 * scale), tokens_per_s=40 / scale, seed=7)


@contextlib.contextmanager
def stage(workdir: Path, scale: float = 1.0, code: Path = ROOT,
          command: list[str] | None = None, env: dict[str, str] | None = None
          ) -> Iterator[Stage]:
    """The fakes and the bot, running; the bot is stopped (SIGTERM, as a host would) after.
    `code`: the checkout whose bot runs (another one measures older code against these
    fakes); `command`: how to start it (default `python -m bot`); `env`: settings of its
    own beside the stage's."""
    pace = model_pace(scale)
    with FakeTelegram(scale=scale, latency=TELEGRAM_LATENCY_S * scale,
                      long_poll_s=LONG_POLL_S) as tg, \
            FakeModel(default=script, pace=pace) as model, \
            FakeOpenMeteo(latency=UPSTREAM_LATENCY_S * scale) as meteo:
        env = {**os.environ, "PYTHONPATH": str(code), "BENCH_SCALE": str(scale),
               "TELEGRAM_BOT_TOKEN": TOKEN, "TELEGRAM_API_BASE_URL": tg.base_url,
               "OPENAI_BASE_URL": model.base_url, "OPENAI_API_KEY": TEST_KEY,
               "LLM_MAX_RETRIES": "0", "DATABASE_PATH": str(workdir / "bot.sqlite3"),
               "AGENT_TOOLS": "get_weather", "OPEN_METEO_GEOCODING_URL": meteo.geocoding_url,
               "OPEN_METEO_FORECAST_URL": meteo.forecast_url, "HTTP_LISTEN": "off",
               **(env or {})}
        command = command or [sys.executable, "-m", "bot" if scale == 1 else "bench.bot"]
        log = workdir / "bot.log"
        with log.open("wb") as out:
            # cwd is the work dir, so a developer's .env does not change the figures
            bot = subprocess.Popen(command, cwd=workdir, env=env, stdout=out,
                                   stderr=subprocess.STDOUT)
        st = Stage(tg, model, meteo, bot, scale, log)
        try:
            if not wait_for("bot start", lambda: tg.polls > 0 or bot.poll() is not None, 60) \
                    or bot.poll() is not None:
                raise RuntimeError(f"the bot did not start; its log:\n{log.read_text()[-3000:]}")
            yield st
        finally:
            bot.send_signal(signal.SIGTERM)
            try:
                bot.wait(timeout=30)
            except subprocess.TimeoutExpired:
                bot.kill()
                bot.wait()
