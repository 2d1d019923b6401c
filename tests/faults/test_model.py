"""The model provider's bad minutes: a rejected key, 429 then success, 500s, a stream cut
in the middle, a stall past the timeout, an empty reply, DashScope's moderation 400 with an
SSE body, malformed tool-call JSON, a model that never stops calling tools. Each run ends
with a visible final state and a stored status; the next question is answered."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from testkit.botkit import ALICE, Glassbox
from testkit.fakes.model import SSE_HEADERS, DashScope, error, sse, text_reply, tool_reply
from testkit.fakes.server import Reply, wire
from tests.faults.kit import glassbox, runs_of, still_answers

QUICK_RETRY = {"retry-after-ms": "10"}
"""What a provider sends with a 429 or 5xx; the openai SDK waits that long before retrying."""


async def ask_and_end(gb: Glassbox, question: str = "What is 2+2?") -> tuple[str, str]:
    """Ask in a private chat and wait for the final state: (its text, the stored status)."""
    asked = gb.tg.send(ALICE, ALICE, question)
    final = await gb.answer_to(ALICE, asked)
    assert final.buttons == []
    run = (await runs_of(gb, ALICE))[-1]
    return final.text, run.status


FAULTS: dict[str, tuple[Reply, str]] = {
    "401": (error("dashscope/error_401_invalid_api_key.json", 401),
            "The model service rejected the API key."),
    "500": (error("openai/error_500_server_error.json", 500),
            "The model service had an error."),
    "cut": (sse(DashScope().text("The answer is forty-two")[:3], done=False, cut=True),
            "The model's reply was cut off."),
    "empty": (text_reply(""), "The model returned an empty reply."),
    "moderation": (Reply(400, wire("dashscope/error_400_data_inspection_failed_stream_request"
                                   ".sse"), dict(SSE_HEADERS)),
                   "content filter blocked this question"),
    "html 502": (Reply(502, b"<html><body>502 Bad Gateway</body></html>",
                       {"Content-Type": "text/html"}), "The model service had an error."),
}


@pytest.mark.parametrize("fault", list(FAULTS))
async def test_a_failed_model_call_ends_with_its_reason(gb: Glassbox, fault: str) -> None:
    reply, reason = FAULTS[fault]
    gb.model.push(reply)
    shown, status = await ask_and_end(gb)
    assert reason in shown
    assert status == "error"
    await still_answers(gb)


async def test_a_stall_past_the_timeout_ends_with_a_timeout(tmp_path: Path) -> None:
    async with glassbox(tmp_path, llm_timeout_s=0.3) as gb:
        gb.model.push(sse(DashScope().text("too late"), first_delay=3.0))
        shown, status = await ask_and_end(gb)
        assert "took too long to answer" in shown and "too late" not in shown
        assert status == "error"
        await still_answers(gb)


async def test_429_then_success_is_retried(tmp_path: Path) -> None:
    async with glassbox(tmp_path, llm_max_retries=2) as gb:
        gb.model.push(error("dashscope/error_429_limit_requests.json", 429, **QUICK_RETRY),
                      error("dashscope/error_429_limit_requests.json", 429, **QUICK_RETRY),
                      text_reply("Four."))
        shown, status = await ask_and_end(gb)
        assert "Four." in shown and status == "done"
        assert len(gb.model.bodies) == 3
        await still_answers(gb)


async def test_500s_past_the_retries_end_with_an_error(tmp_path: Path) -> None:
    async with glassbox(tmp_path, llm_max_retries=2) as gb:
        gb.model.push(*[error("openai/error_500_server_error.json", 500, **QUICK_RETRY)] * 3)
        shown, status = await ask_and_end(gb)
        assert "The model service had an error." in shown and status == "error"
        assert len(gb.model.bodies) == 3
        await still_answers(gb)


async def test_malformed_tool_call_json_goes_back_as_an_observation(gb: Glassbox) -> None:
    gb.model.push(tool_reply(("add", '{"a": 2, "b": ')), text_reply("I could not add them."))
    shown, status = await ask_and_end(gb)
    assert "not valid JSON" in shown and "I could not add them." in shown
    assert status == "done"
    replayed = gb.model.bodies[1]["messages"][-2]["tool_calls"][0]["function"]["arguments"]
    assert replayed == "{}"  # a malformed string replayed makes some servers answer 400
    await still_answers(gb)


def adds_forever(body: dict[str, Any]) -> Reply:
    """A model that calls `add` again and again, each time with new numbers; asked to
    answer without tools, it answers."""
    if body.get("tool_choice") == "none":
        return text_reply("I kept adding; the best I have is 12.")
    return tool_reply(("add", {"a": len(body["messages"]), "b": 1}))


def ignores_tool_choice(body: dict[str, Any]) -> Reply:
    """Worse: it calls a tool even when asked to answer without one."""
    return tool_reply(("add", {"a": len(body["messages"]), "b": 1}))


async def test_a_model_that_never_stops_calling_tools_is_stopped(tmp_path: Path) -> None:
    async with glassbox(tmp_path, agent_max_rounds=3) as gb:
        gb.model.default = adds_forever
        shown, status = await ask_and_end(gb)
        assert "Round 3" in shown and "the best I have is 12" in shown
        assert status == "max_rounds"
        assert len(gb.model.bodies) == 4  # three rounds and the last answer
        gb.model.default = None
        await still_answers(gb)


async def test_the_same_call_again_and_again_is_a_loop_and_stopped(tmp_path: Path) -> None:
    def same_call(body: dict[str, Any]) -> Reply:
        if body.get("tool_choice") == "none":
            return text_reply("2 + 2 = 4.")
        return tool_reply(("add", {"a": 2, "b": 2}))

    # native: in auto mode a call sent again moves the run to the text format (issue 18)
    async with glassbox(tmp_path, agent_mode="native") as gb:
        gb.model.default = same_call
        shown, status = await ask_and_end(gb)
        assert "2 + 2 = 4." in shown and status == "max_rounds"
        assert len(gb.model.bodies) == 4  # the third identical call ends the rounds
        gb.model.default = None
        await still_answers(gb)


async def test_a_model_that_ignores_tool_choice_none_still_ends(tmp_path: Path) -> None:
    async with glassbox(tmp_path, agent_max_rounds=2) as gb:
        gb.model.default = ignores_tool_choice
        shown, status = await ask_and_end(gb)
        assert "Round 2" in shown and "The model returned an empty reply." in shown
        assert status == "error"
        gb.model.default = None
        await still_answers(gb)
