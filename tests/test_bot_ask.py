"""Asking: the live chain in private chats and groups, follow-ups, /plain and /compare."""

from __future__ import annotations

import json

import pytest

from agent.tool import Tool
from testkit.botkit import ADMIN, ALICE, BOB, GROUP, Add, Glassbox
from testkit.fakes.model import DashScope, sse, text_reply, tool_reply


@pytest.fixture
def gb_tools() -> list[Tool]:
    return [Add()]


async def test_a_private_question_grows_live_into_the_chain_and_answer(gb: Glassbox) -> None:
    gb.model.push(tool_reply(("add", {"a": 2, "b": 2}), content="I should add them."),
                  text_reply("2 + 2 = **4**"))
    asked = gb.tg.send(ALICE, ALICE, "What is 2+2?")
    final = await gb.answer_to(ALICE, asked)

    assert "Round 1" in final.text
    assert "I should add them." in final.text
    assert "🔧 Action add(a=2, b=2)" in final.text
    assert "👀 Observation" in final.text
    assert "💬 Answer\n2 + 2 = 4" in final.text
    assert "<b>4</b>" in final.raw  # the answer's Markdown shows as Telegram formatting
    assert final.text.startswith("❓ What is 2+2?\n\n🔎 2 rounds · add\n— Round 1 —")
    assert "<blockquote expandable><b>— Round 1 —" in final.raw  # the chain, one tap away
    assert final.text.endswith("#1 · /show 1 · /export 1 · ⏱ 4.0 s · 2 rounds · 1 tool call"
                               ) or "· 2 rounds · 1 tool call" in final.text
    assert "tokens" not in final.text  # tokens are for /show and the export
    assert final.buttons == []
    assert final.versions[0] != final.text  # it was edited as the chain grew
    methods = gb.tg.methods(ALICE)
    assert "sendChatAction" not in methods  # the first message went at once: no "typing…"
    assert methods.index("sendMessage") < methods.index("editMessageText")
    run = await gb.services.store.by_message(ALICE, final.message_id)
    assert run is not None and run.status == "done" and "4" in run.answer


async def test_typing_shows_while_a_class_waits_for_its_answers(gb: Glassbox) -> None:
    """Three questions at once in a group are a class asking together: no first message goes
    there for the runs that see the others (each answer is one message), so "typing…" shows
    while they wait, once for the chat."""
    gb.model.push(*(sse(DashScope().text(f"Answer {n}."), first_delay=2.5) for n in range(3)))
    asked = [gb.tg.send(GROUP, who, f"/ask question {n}")
             for n, who in enumerate((ALICE, BOB, ADMIN))]
    finals = [await gb.answer_to(GROUP, message_id) for message_id in asked]
    assert sorted(f.text.split("Answer ")[1][:2] for f in finals) == ["0.", "1.", "2."]
    with gb.tg.lock:
        calls = [c for c in gb.tg.calls if str(c.params.get("chat_id")) == str(GROUP)]
    typing = [c.at for c in calls if c.method == "sendChatAction"]
    answers = [c.at for c in calls if "Answer " in c.params.get("text", "")]
    assert len(typing) == 1 and typing[0] < min(answers)


async def test_in_a_group_only_commands_and_replies_to_the_bot_are_answered(
        gb: Glassbox) -> None:
    gb.model.push(text_reply("Four."))
    gb.tg.send(GROUP, ALICE, "hello everyone")
    gb.tg.send(GROUP, ALICE, "/ask@SomeOtherBot what is 2+2")
    asked = gb.tg.send(GROUP, ALICE, "/ask@GlassboxBot what is 2+2")
    final = await gb.answer_to(GROUP, asked)
    assert "Four." in final.text
    assert len(gb.tg.bot_messages(GROUP)) == 1
    assert gb.model.bodies[0]["messages"][-1]["content"] == "what is 2+2"


async def test_a_reply_to_an_answer_is_a_follow_up_with_that_run_as_history(
        gb: Glassbox) -> None:
    gb.model.push(text_reply("Paris."), text_reply("About 2.1 million."))
    asked = gb.tg.send(GROUP, ALICE, "/ask What is the capital of France?")
    first = await gb.answer_to(GROUP, asked)
    follow = gb.tg.send(GROUP, BOB, "How many people live there?", reply_to=first.message_id)
    second = await gb.answer_to(GROUP, follow)

    assert "2.1 millionⁱ" in second.text  # a figure from no observation
    sent = [(m["role"], m["content"]) for m in gb.model.bodies[1]["messages"][1:]]
    assert sent == [("user", "What is the capital of France?"), ("assistant", "Paris."),
                    ("user", "How many people live there?")]
    parent = await gb.services.store.by_message(GROUP, first.message_id)
    child = await gb.services.store.by_message(GROUP, second.message_id)
    assert parent is not None and child is not None and child.parent_id == parent.id


async def test_ask_as_a_reply_asks_about_that_message(gb: Glassbox) -> None:
    gb.model.push(text_reply("No, it is in Paris."))
    claim = gb.tg.send(GROUP, BOB, "The Eiffel Tower is in Rome.")
    asked = gb.tg.send(GROUP, ALICE, "/ask is this true?", reply_to=claim)
    await gb.answer_to(GROUP, asked)
    question = gb.model.bodies[0]["messages"][-1]["content"]
    assert question == "is this true?\n\n> The Eiffel Tower is in Rome."


async def test_plain_uses_no_tools(gb: Glassbox) -> None:
    gb.model.push(text_reply("Probably sunny."))
    asked = gb.tg.send(ALICE, ALICE, "/plain weather in Hangzhou?")
    final = await gb.answer_to(ALICE, asked)
    assert "Probably sunny." in final.text
    assert "tools" not in gb.model.bodies[0]


async def test_compare_shows_both_answers_in_one_message(gb: Glassbox) -> None:
    def by_request(body: dict) -> object:  # type: ignore[type-arg]
        if "tools" not in body:
            return text_reply("Roughly 100.")
        if body["messages"][-1]["role"] == "tool":
            return text_reply("Exactly 123.")
        return tool_reply(("add", {"a": 100, "b": 23}))

    gb.model.default = by_request  # type: ignore[assignment]
    asked = gb.tg.send(GROUP, ALICE, "/compare what is 100+23?")
    final = await gb.answer_to(GROUP, asked)
    text = final.text
    assert len(gb.tg.bot_messages(GROUP)) == 1
    order = ["🧠 Model alone, no tools\nRoughly 100.", "🔍 ReAct, with tools\nExactly 123.",
             # the judge was told the differing figures and that add calculated its figure
             "⚖️ The model's judgement: They differ: the model alone guessed 100; with tools "
             "it calculated 123.",
             "📊 No tools → ReAct: rounds 1 → 2", "🔗 The ReAct chain", "add(a=100, b=23)"]
    assert [text.index(piece) for piece in order] == sorted(text.index(p) for p in order)
    judge = gb.model.bodies[-1]  # the last call, once both answers were in
    assert judge["temperature"] == 0 and "tools" not in judge
    assert "Roughly 100." in judge["messages"][1]["content"]
    assert "Exactly 123." in judge["messages"][1]["content"]
    run = await gb.services.store.by_message(GROUP, final.message_id)
    assert run is not None and run.mode == "compare"
    assert run.usage.total_tokens >= 150  # the judge's 150 tokens count too
    lanes = await gb.services.store.events(run.id)
    assert set(lanes) == {"plain", "react"}
    assert lanes["react"][-1].type == "judgement"  # /show and /export replay it


async def test_compare_whose_judge_fails_keeps_the_cost_line_alone(gb: Glassbox) -> None:
    from testkit.fakes.model import error
    gb.model.judge = error("openai/error_401_invalid_api_key.json", 401)
    gb.model.default = lambda body: text_reply(  # type: ignore[assignment]
        "Plain." if "tools" not in body else "With tools.")
    asked = gb.tg.send(GROUP, ALICE, "/compare what is 1+1?")
    final = await gb.answer_to(GROUP, asked)
    assert "⚖️" not in final.text and "Something went wrong" not in final.text
    assert "Plain." in final.text and "With tools." in final.text
    assert "📊 No tools → ReAct" in final.text


async def test_a_model_failure_is_explained_without_a_trace(gb: Glassbox,
                                                           caplog: pytest.LogCaptureFixture
                                                           ) -> None:
    from testkit.fakes.model import error
    gb.model.push(error("openai/error_401_invalid_api_key.json", 401))
    asked = gb.tg.send(ALICE, ALICE, "hi")
    final = await gb.answer_to(ALICE, asked)
    assert "rejected the API key" in final.text
    assert "Traceback" not in final.text
    assert gb.tg.token not in caplog.text


async def test_a_chain_longer_than_one_message_continues_in_replies(gb: Glassbox) -> None:
    long_args = {"a": 1, "b": 2}
    gb.model.push(*(tool_reply(("add", {**long_args, "a": n}), content="x" * 1500 + f" step {n}")
                    for n in range(4)),
                  text_reply("The sum is **done**. " + "Really done. " * 50 + "THE END"))
    asked = gb.tg.send(ALICE, ALICE, "Add things for a long time")
    first = await gb.answer_to(ALICE, asked, timeout=20)
    pages = gb.tg.bot_messages(ALICE)
    assert len(pages) >= 2
    assert all(p.reply_to == first.message_id for p in pages[1:])
    assert all(p.buttons == [] for p in pages)
    whole = "\n".join(p.text for p in pages)
    assert "THE END" in pages[-1].text and whole.count("step 3") == 1
    assert gb.tg.too_many == 0


async def test_plan_opens_the_message_as_a_checklist(gb: Glassbox) -> None:
    plan = {"steps": [{"tool": "add", "why": "add the numbers"},
                      {"tool": "finish", "why": "say the sum"}]}
    gb.model.push(text_reply(json.dumps(plan)),
                  tool_reply(("add", {"a": 2, "b": 3})), text_reply("2 + 3 = 5"))
    asked = gb.tg.send(ALICE, ALICE, "/plan What is 2+3?")
    final = await gb.answer_to(ALICE, asked)
    assert "📋 Plan\n☑ add — add the numbers\n☑ answer — say the sum" in final.text
    assert final.text.index("📋 Plan") < final.text.index("Round 1")
    assert gb.model.bodies[0]["response_format"] == {"type": "json_object"}
    run = await gb.services.store.by_message(ALICE, final.message_id)
    assert run is not None and run.mode == "ask"
    stored = (await gb.services.store.events(run.id))["main"]
    assert [e.type for e in stored][:2] == ["run_started", "plan"]


async def test_plan_without_a_question_gets_its_own_usage_hint(gb: Glassbox) -> None:
    asked = gb.tg.send(ALICE, ALICE, "/plan")
    hint = await gb.answer_to(ALICE, asked)
    assert "/plan What is the weather" in hint.text
