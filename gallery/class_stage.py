"""The bot as a class meets it, for the gallery: the real Application and its HTTP server (the
class board) as `python -m bot` runs them, against the fake Bot API, the fake model (replies
streamed at a visible pace) and the fake weather service."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.lang import Lang, pick
from testkit.botkit import Glassbox
from testkit.fakes.model import DashScope, FakeModel, sse
from testkit.fakes.server import Reply
from testkit.fakes.telegram import FakeTelegram, Message
from testkit.fakes.telegram_objects import Frame
from testkit.fakes.upstreams import FakeOpenMeteo
from testkit.serving import serving
from testkit.voicekit import whisper_base

SCALE = 0.02
"""Telegram's time limits as the bot tests run them (botkit.SCALE), 50 times faster."""
GROUP = -1001234567890
TEACHER = 900
"""The class group's administrator, who asks for the board and runs the lecture's examples."""
READ_S = 300.0
"""Time enough to read a photo or hear a voice message on a machine shared with others
(the first message also waits for Whisper's model to load)."""
LINK = re.compile(r"https?://\S+/board/\S+")


@dataclass
class Stage:
    """One language's class: a private chat per scenario, and the class group."""

    tg: FakeTelegram
    model: FakeModel
    gb: Glassbox
    lang: Lang
    delay: float
    """Seconds between streamed chunks (0: as fast as the fakes go)."""
    local: FakeModel | None = None
    """A second model endpoint, named `local` (LLM_MODELS), for /compare local qwen-plus."""
    board_url: str = ""
    """The class group's board, as the teacher's /board link opens it."""
    users: dict[str, int] = field(default_factory=dict)

    def t(self, zh: str, en: str) -> str:
        """The scenario's words in this stage's language."""
        return pick(self.lang, zh, en)

    def user(self, key: str, ui: Lang | None = None, name: str = "") -> int:
        """A student of their own (their own private chat), speaking `ui` (this stage's
        language unless said)."""
        if key not in self.users:
            user_id = 1000 + len(self.users)
            self.tg.user(user_id, name or self.t("小林", "Alex"), ui or self.lang)
            self.users[key] = user_id
        return self.users[key]

    def said(self, text: str, reasoning: str = "", usage: tuple[int, int] = (60, 40)) -> Reply:
        """A streamed answer, in chunks of a few words."""
        pieces = max(4, (len(text) + len(reasoning)) // 24)
        return self._paced(DashScope().text(text, reasoning=reasoning, pieces=pieces,
                                            usage=usage))

    def called(self, *calls: tuple[str, dict[str, Any]], content: str = "",
               reasoning: str = "") -> Reply:
        """A streamed round of tool calls, with the model's words before them (if any)."""
        return self._paced(DashScope().tool_calls(calls, content=content, reasoning=reasoning))

    def _paced(self, chunks: list[dict[str, Any]]) -> Reply:
        return sse(chunks, delay=self.delay, first_delay=self.delay * 6)

    async def ask(self, chat: int, user: int, text: str, *, timeout: float = 60) -> Message:
        """`user` writes `text` in `chat`; the bot's answer once it is final."""
        asked = self.tg.send(chat, user, text)
        return await self.gb.answer_to(chat, asked, timeout)

    async def command(self, chat: int, user: int, text: str, replies: int = 1) -> list[Message]:
        """`user` sends a command; the bot's first `replies` replies to it."""
        asked = self.tg.send(chat, user, text)
        await self.tg.wait(lambda: len(self.gb.replies_to(chat, asked)) >= replies, 30)
        return self.gb.replies_to(chat, asked)

    def frames(self, chat: int, since: int = 0) -> list[Frame]:
        """The states messages in `chat` showed, from frame number `since` on."""
        return [f for f in self.tg.frames[since:] if f.chat_id == chat]


@contextlib.asynccontextmanager
async def stage(lang: Lang, workdir: Path, delay: float) -> AsyncIterator[Stage]:
    """A running bot for one language's scenarios; its database under `workdir`."""
    with (FakeTelegram(scale=SCALE) as tg, FakeModel() as model, FakeModel() as local,
          FakeOpenMeteo() as meteo):
        tg.group(GROUP, pick(lang, "三年级一班", "Class 3A"))
        tg.user(TEACHER, pick(lang, "陈老师", "Ms Chen"), lang)
        tg.admin(GROUP, TEACHER)
        async with serving(tg, model, workdir / f"gallery-{lang}.sqlite3", tools=None,
                           agent_tools=("get_weather", "calculate"),
                           open_meteo_geocoding_url=meteo.geocoding_url,
                           open_meteo_forecast_url=meteo.forecast_url,
                           user_rate_limit="off", history_rate_limit="off",
                           llm_models={"local": {"base_url": local.base_url,
                                                 "model": "qwen2.5-1.5b"}},
                           request_timeout_s=30, whisper_model=str(whisper_base()),
                           ocr_timeout_s=READ_S) as web:
            s = Stage(tg, model, web.gb, lang, delay, local)
            s.board_url = await board_link(s)
            yield s


async def board_link(s: Stage) -> str:
    """The teacher's /board in the group: the link the bot sends them privately."""
    before = len(s.tg.bot_messages(TEACHER))
    s.tg.send(GROUP, TEACHER, "/board")
    await s.tg.wait(lambda: len(s.tg.bot_messages(TEACHER)) > before, 30)
    found = LINK.search(s.tg.bot_messages(TEACHER)[-1].text)
    if found is None:
        raise RuntimeError("the bot sent no board link")
    return found[0]


def routed(plain: Reply, tool_round: Reply,
           answer: Reply) -> Callable[[dict[str, Any]], Reply]:
    """A model for /compare, whose two lanes ask at once: no tools offered → `plain`; a tool
    result just in → `answer`; otherwise → `tool_round`."""

    def reply(body: dict[str, Any]) -> Reply:
        if "tools" not in body:
            return plain
        if body["messages"][-1]["role"] == "tool":
            return answer
        return tool_round

    return reply
