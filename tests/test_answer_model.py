"""A second model for the answer (LLM_ANSWER_MODEL): the rounds use LLM_MODEL, the answer
model writes the final answer from the question and the whole chain, and the chain names it."""

from __future__ import annotations

from pathlib import Path

from agent import ModelClient, run_react
from agent.events import Answer, Observation, RunFinished, RunStarted, Thought
from agent.model.answer_model import answer_client
from testkit.agentkit import agent_settings
from testkit.botkit import ALICE, Add, running
from testkit.fakes.model import FakeModel, text_reply, tool_reply
from testkit.fakes.telegram import FakeTelegram


async def test_the_answer_model_gets_the_chain_and_writes_the_answer(
        fake_model: FakeModel) -> None:
    settings = agent_settings(fake_model.base_url, llm_answer_model="qwen-max")
    fake_model.push(tool_reply(("add", {"a": 2, "b": 2}), content="Add them."),
                    text_reply("It is 4, I think."), text_reply("2 + 2 = **4**."))
    client, answers = ModelClient(settings), answer_client(settings)
    assert answers is not None
    try:
        events = [e async for e in run_react("What is 2+2?", client=client, settings=settings,
                                             tools=[Add()], answer_client=answers)]
    finally:
        await client.close()
        await answers.close()
    started = events[0]
    assert isinstance(started, RunStarted)
    assert (started.model, started.answer_model) == ("qwen-plus", "qwen-max")
    assert [b["model"] for b in fake_model.bodies] == ["qwen-plus", "qwen-plus", "qwen-max"]
    asked = fake_model.bodies[2]["messages"][-1]["content"]
    assert asked.startswith("Question: What is 2+2?")
    assert "[1] Action: add(a=2, b=2)" in asked and "[1] Observation: 4" in asked
    assert "Draft: It is 4, I think." in asked
    thoughts = [e for e in events if isinstance(e, Thought) and e.round == 2]
    assert thoughts[-1].text == "It is 4, I think."  # the reasoning model's last words
    answer = next(e for e in events if isinstance(e, Answer))
    assert (answer.text, answer.model) == ("2 + 2 = **4**.", "qwen-max")
    assert any(isinstance(e, Observation) for e in events)
    finished = events[-1]
    assert isinstance(finished, RunFinished) and finished.status == "done"
    assert finished.usage.total_tokens > 0


async def test_the_chain_names_the_answer_model_and_the_store_keeps_both(
        fake_telegram: FakeTelegram, fake_model: FakeModel, tmp_path: Path) -> None:
    fake_model.push(tool_reply(("add", {"a": 2, "b": 2})), text_reply("Four."),
                    text_reply("The sum is 4."))
    async with running(fake_telegram, fake_model, tmp_path / "g.sqlite3", tools=[Add()],
                       llm_answer_model="qwen-max") as gb:
        asked = gb.tg.send(ALICE, ALICE, "What is 2+2?")
        final = await gb.answer_to(ALICE, asked)
        assert "💬 Answer (written by qwen-max)\nThe sum is 4." in final.text
        assert "Four." in final.text  # the reasoning model's words, as its last thought
        run = await gb.services.store.by_message(ALICE, final.message_id)
        assert run is not None
        events = (await gb.services.store.events(run.id))["main"]
        started = events[0]
        assert isinstance(started, RunStarted) and started.answer_model == "qwen-max"
        assert any(isinstance(e, Answer) and e.model == "qwen-max" for e in events)
        # The export names it too, as the chat and the board do.
        exported = gb.tg.send(ALICE, ALICE, f"/export {run.n}")
        await gb.tg.wait(lambda: bool(gb.replies_to(ALICE, exported)))
        document = gb.replies_to(ALICE, exported)[0].document
        assert document is not None
        assert "💬 Answer (written by qwen-max)</h3>" in document.content.decode("utf-8")


async def test_compare_uses_the_same_split(
        fake_telegram: FakeTelegram, fake_model: FakeModel, tmp_path: Path) -> None:
    def by_request(body: dict) -> object:  # type: ignore[type-arg]
        if body["model"] == "qwen-max":
            return text_reply("Written by the answer model.")
        if any(m["role"] == "tool" for m in body["messages"]):
            return text_reply("Draft: 123.")
        return tool_reply(("add", {"a": 100, "b": 23}))

    fake_model.default = by_request  # type: ignore[assignment]
    async with running(fake_telegram, fake_model, tmp_path / "g.sqlite3", tools=[Add()],
                       llm_answer_model="qwen-max") as gb:
        asked = gb.tg.send(ALICE, ALICE, "/compare what is 100+23?")
        final = await gb.answer_to(ALICE, asked)
    plain = [b for b in fake_model.bodies if "tools" not in b and b["model"] == "qwen-max"]
    assert len(plain) >= 2  # the model-alone lane and the ReAct lane's answer
    assert final.text.count("Written by the answer model.") == 2
    assert "🧠 Model alone, no tools (written by qwen-max)" in final.text
    assert "🔍 ReAct, with tools (written by qwen-max)" in final.text
