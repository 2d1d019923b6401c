"""AGENT_MODE=auto learns about the model endpoint only from evidence that means it, and
only from several runs in several chats: one student's question, or one 400 that merely
mentions a tool, must not switch every chat to the text format for good. A learned lesson
is checked again from time to time and forgotten when it no longer holds, and a bot admin
sees and resets it in /settings. The real bot against the fake Bot API and the fake model
server; what the model server received over HTTP says whether a run offered `tools`."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agent.model.endpoint_memory import PROBE_EVERY, EndpointMemory, endpoint_key
from testkit.botkit import ADMIN, ALICE, BOB, GROUP, SCALE, Add, Glassbox, people, running
from testkit.fakes.model import FakeModel, error, text_reply, tool_reply
from testkit.fakes.server import Reply
from testkit.fakes.telegram import Message
from testkit.fakes.telegram_faults import FaultyTelegram
from tests.faults.kit import REQUEST_TIMEOUT_S
from tests.test_bot_settings import menu, tap

TOOLS_QUESTION = "Which tools do you have?"
CLOUD_ANSWER = ("I can use the `add` tool to add two numbers for you, exactly. Ask me a sum "
                "and I will call it.")
"""How a cloud model that calls tools natively answers the question about its tools."""
CALL_AS_TEXT = '<tool_call>\n{"name": "add", "arguments": {"a": 2, "b": 3}}\n</tool_call>'
ZH_ADMIN = 998
SWITCHED = "now goes by"
FORGOT = "no longer goes by"


def last_role(body: dict[str, Any]) -> str:
    return str(body["messages"][-1]["role"])


def native_model(body: dict[str, Any]) -> Reply:
    """A model that calls tools natively and well: asked about its tools it says which it
    has; asked a sum it calls `add`, then answers; in the text format it answers."""
    if "tools" not in body:
        said = CLOUD_ANSWER if body["messages"][-1]["content"] == TOOLS_QUESTION else "2 + 3 = 5."
        return text_reply(f"Thought: I know this.\nFinal Answer: {said}")
    if last_role(body) == "tool":
        return text_reply("2 + 3 = 5.")
    if body["messages"][-1]["content"] == TOOLS_QUESTION:
        return text_reply(CLOUD_ANSWER)
    return tool_reply(("add", {"a": 2, "b": 3}))


def refuses_tools(body: dict[str, Any]) -> Reply:
    """Ollama with a model that has no tool support: every request with `tools` is refused
    in Ollama's words; in the text format it calls `add` and answers."""
    if "tools" in body:
        return error("tools_refused/ollama_400.json", 400)
    if last_role(body) == "system" or "Observation" not in body["messages"][-1]["content"]:
        return text_reply('Thought: a sum.\nAction: add[{"a": 2, "b": 3}]')
    return text_reply("Thought: I have it.\nFinal Answer: 2 + 3 = 5.")


def writes_calls_as_text(body: dict[str, Any]) -> Reply:
    """A server without a tool-call parser: the model writes its call as text."""
    if "tools" in body:
        return text_reply(CALL_AS_TEXT)
    return text_reply("Thought: I have it.\nFinal Answer: 2 + 3 = 5.")


MODELS: dict[str, Callable[[dict[str, Any]], Reply]] = {
    "tools_rejected": refuses_tools, "calls_as_text": writes_calls_as_text}


class Class:
    """One model server and one fake Bot API for the whole test, so a bot restarted on the
    same database asks the same endpoint (its key holds the server's port)."""

    def __init__(self, tg: FaultyTelegram, model: FakeModel, db: Path) -> None:
        self.tg, self.model, self.db = tg, model, db

    @contextlib.asynccontextmanager
    async def bot(self, **extra: Any) -> AsyncIterator[Glassbox]:
        async with running(self.tg, self.model, self.db, tools=[Add()],
                           request_timeout_s=REQUEST_TIMEOUT_S,
                           admin_user_ids={ADMIN, ZH_ADMIN}, **extra) as gb:
            yield gb


@pytest.fixture
def cls(tmp_path: Path) -> Iterator[Class]:
    with FaultyTelegram(scale=SCALE) as tg, FakeModel() as model:
        people(tg)
        tg.user(ZH_ADMIN, "老师", "zh-hans")
        yield Class(tg, model, tmp_path / "g.sqlite3")


async def ask(gb: Glassbox, chat: int, user: int, question: str = "What is 2+3?"
              ) -> tuple[Message, list[dict[str, Any]]]:
    """Ask in `chat` and wait for the final answer: it, and the requests its run made."""
    before = len(gb.model.bodies)
    text = question if chat == user else f"/ask {question}"
    final = await gb.answer_to(chat, gb.tg.send(chat, user, text))
    return final, gb.model.bodies[before:]


async def stored(gb: Glassbox) -> EndpointMemory:
    """What the database holds of the endpoint, as a restarted bot would read it."""
    key = endpoint_key(gb.model.base_url, gb.services.runs.client.model)
    return await gb.services.store.endpoints.get(key)


def offered_tools(bodies: list[dict[str, Any]]) -> list[bool]:
    return ["tools" in body for body in bodies]


OTHER_CHATS = ((BOB, BOB), (ADMIN, ADMIN), (GROUP, ALICE))


async def test_one_question_about_tools_does_not_switch_every_chat(cls: Class) -> None:
    cls.model.default = native_model
    async with cls.bot() as gb:
        shown, bodies = await ask(gb, ALICE, ALICE, TOOLS_QUESTION)
        assert "Ask me a sum and I will call it." in shown.text
        assert "described a tool call" not in shown.text  # it answers about the tools
        assert offered_tools(bodies) == [True]
        assert not (await stored(gb)).learned()
        for chat, user in (*OTHER_CHATS, (BOB, BOB), (GROUP, ALICE)):
            answer, bodies = await ask(gb, chat, user)
            assert "2 + 3 = 5." in answer.text
            assert "did not use function calling properly" not in answer.text
            assert all(offered_tools(bodies)) and len(bodies) == 2  # the call, the answer
    async with cls.bot() as gb:  # a restart reads what the store kept
        for chat, user in ((ALICE, ALICE), (BOB, BOB)):
            answer, bodies = await ask(gb, chat, user)
            assert all(offered_tools(bodies)) and len(bodies) == 2
            assert "did not use function calling properly" not in answer.text


BUSY_400 = {"error": {"message": "upstream tool parser busy, please retry",
                      "type": "invalid_request_error", "param": None, "code": None}}
"""A 400 that names a tool but refuses nothing: OpenAI's error envelope."""


async def test_a_400_that_mentions_a_tool_is_no_refusal_of_tools(cls: Class) -> None:
    cls.model.default = native_model
    async with cls.bot() as gb:
        cls.model.push(error(BUSY_400, 400))
        shown, bodies = await ask(gb, ALICE, ALICE)
        assert "The model service rejected the request." in shown.text
        assert offered_tools(bodies) == [True]  # no second try, no text format
        for chat, user in (*OTHER_CHATS, (BOB, BOB)):
            _, bodies = await ask(gb, chat, user)
            assert all(offered_tools(bodies)) and len(bodies) == 2
        assert not (await stored(gb)).learned()
    async with cls.bot() as gb:
        for chat, user in ((ALICE, ALICE), (ADMIN, ADMIN)):
            _, bodies = await ask(gb, chat, user)
            assert all(offered_tools(bodies)) and len(bodies) == 2


async def test_a_refusal_of_tools_that_a_retry_does_not_repeat_changes_nothing(
        cls: Class) -> None:
    cls.model.default = native_model
    async with cls.bot() as gb:
        cls.model.push(error("tools_refused/vllm_400.json", 400))
        shown, bodies = await ask(gb, ALICE, ALICE)
        assert "2 + 3 = 5." in shown.text and "Thought/Action/Observation" not in shown.text
        assert offered_tools(bodies) == [True, True, True]  # refused, asked again: the call
        _, bodies = await ask(gb, BOB, BOB)
        assert all(offered_tools(bodies))
        assert not (await stored(gb)).learned()


@pytest.mark.parametrize("lesson", list(MODELS))
async def test_the_endpoint_switches_after_three_runs_from_two_chats(
        cls: Class, lesson: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    cls.model.default = MODELS[lesson]
    async with cls.bot() as gb:
        for _ in range(3):  # one chat, however many runs, teaches the endpoint nothing
            answer, bodies = await ask(gb, ALICE, ALICE)
            assert "2 + 3 = 5." in answer.text
            assert offered_tools(bodies)[0]  # each run tried native calling first
        assert not getattr(await stored(gb), lesson)
        shown = await menu(gb, ADMIN, ADMIN)
        assert "(questions: 3, chats: 1); not switched yet, it switches at 3 questions from " \
            "2 chats" in shown.text
        _, bodies = await ask(gb, BOB, BOB)  # a second chat: now it is learned
        assert offered_tools(bodies)[0]
        assert getattr(await stored(gb), lesson)
        answer, bodies = await ask(gb, ADMIN, ADMIN)
        assert not any(offered_tools(bodies)) and "2 + 3 = 5." in answer.text
    switches = [r for r in caplog.records if SWITCHED in r.getMessage()]
    assert len(switches) == 1 and lesson in switches[0].getMessage()
    async with cls.bot() as gb:
        _, bodies = await ask(gb, GROUP, ALICE)
        assert not any(offered_tools(bodies))
    assert len([r for r in caplog.records if SWITCHED in r.getMessage()]) == 1


async def learned_before(cls: Class, lesson: str, runs: int) -> None:
    """The store holds `lesson` learned, `runs` runs since native calling was tried."""
    async with cls.bot() as gb:
        key = endpoint_key(gb.model.base_url, gb.services.runs.client.model)
        await gb.services.store.endpoints.put(EndpointMemory(key, **{lesson: True},
                                                          since_probe={lesson: runs}))


@pytest.mark.parametrize("lesson", list(MODELS))
async def test_native_calling_is_tried_again_and_a_lesson_that_no_longer_holds_is_forgotten(
        cls: Class, lesson: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    await learned_before(cls, lesson, PROBE_EVERY - 1)
    cls.model.default = native_model  # the server was mended since
    async with cls.bot() as gb:
        answer, bodies = await ask(gb, ALICE, ALICE)
        assert not any(offered_tools(bodies))  # the tenth run since the last check: text
        assert "the next question tries function calling again" in (
            await menu(gb, ADMIN, ADMIN)).text
        answer, bodies = await ask(gb, BOB, BOB)  # the next one tries native calling
        assert all(offered_tools(bodies)) and "2 + 3 = 5." in answer.text
        assert not (await stored(gb)).learned()
        _, bodies = await ask(gb, GROUP, ALICE)
        assert all(offered_tools(bodies))
    assert len([r for r in caplog.records if FORGOT in r.getMessage()]) == 1


@pytest.mark.parametrize("lesson", list(MODELS))
async def test_a_lesson_that_still_holds_is_kept_for_another_round_of_runs(
        cls: Class, lesson: str) -> None:
    await learned_before(cls, lesson, PROBE_EVERY)
    cls.model.default = MODELS[lesson]  # still the same server
    async with cls.bot() as gb:
        answer, bodies = await ask(gb, ALICE, ALICE)
        assert offered_tools(bodies)[0] and "2 + 3 = 5." in answer.text  # checked
        assert await stored(gb) == EndpointMemory((await stored(gb)).endpoint,
                                                  **{lesson: True}, since_probe={lesson: 0})
        _, bodies = await ask(gb, BOB, BOB)
        assert not any(offered_tools(bodies))


async def test_an_admin_sees_and_resets_what_was_learned_in_settings(cls: Class) -> None:
    await learned_before(cls, "tools_rejected", 3)
    cls.model.default = native_model
    async with cls.bot() as gb:
        student = await menu(gb, ALICE, ALICE)  # a student's own chat: no lessons, no reset
        assert "What auto mode learned" not in student.text
        assert not any(b.startswith("♻️") for b in student.buttons)
        gb.tg.tap(ALICE, ALICE, student.message_id, "cfg:learned:forget")  # forged
        await gb.tg.wait(lambda: "answerCallbackQuery" in gb.tg.methods())
        refusal = next(c for c in gb.tg.calls if c.method == "answerCallbackQuery")
        assert refusal.params["text"] == "Only the admins in ADMIN_USER_IDS can reset this."
        assert (await stored(gb)).tools_rejected

        zh = await menu(gb, ZH_ADMIN, ZH_ADMIN)
        assert "自动模式学到的" in zh.text
        assert "qwen-plus：每个问题都用文本格式，因为服务拒绝了工具；再过 7 个问题" in zh.text
        assert "♻️ 忘掉自动模式学到的" in zh.buttons

        shown = await menu(gb, ADMIN, ADMIN)
        assert ("qwen-plus: every question in the text format, as the endpoint refuses "
                "tools; function calling is tried again in 7 questions") in shown.text
        await tap(gb, ADMIN, ADMIN, shown, "♻️ Forget what auto mode learned")
        assert "qwen-plus: function calling, nothing learned" in shown.text
        assert not any(b.startswith("♻️") for b in shown.buttons)
        assert not (await stored(gb)).learned()
        _, bodies = await ask(gb, BOB, BOB)
        assert all(offered_tools(bodies)) and len(bodies) == 2
    async with cls.bot() as gb:  # forgotten on disk too
        _, bodies = await ask(gb, ALICE, ALICE)
        assert all(offered_tools(bodies))
