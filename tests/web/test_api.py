"""The HTTP API over real HTTP against the running bot (the fake model behind it): answers
and steps, sessions, streams, scopes, and every refusal as JSON with the right status."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent.events import Action, Observation, Thought
from bot.store.chat_settings_values import ChatSettings
from bot.store.kinds import ConversationKind
from bot.store.records import Conversation
from bot.view.render import render_view
from testkit.botkit import Add
from testkit.fakes.model import FakeModel, error, text_reply, tool_reply
from testkit.fakes.telegram import FakeTelegram
from testkit.serving import serving
from tests.historykit import seed
from tests.web.test_board import compare_model

TOKENS = "teacher-token-1, other-token-2"
TEACHER = {"Authorization": "Bearer teacher-token-1"}
OTHER = {"Authorization": "Bearer other-token-2"}


def adding() -> tuple[Any, ...]:
    return (tool_reply(("add", {"a": 2, "b": 2}), content="I should add them."),
            text_reply("2 + 2 = **4**"))


async def test_no_tokens_no_api(tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        async with serving(tg, model, tmp_path / "g.sqlite3") as web:
            answer = await web.http.post("/api/v1/chat", json={"message": "hi"},
                                         headers=TEACHER)
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "not_found"


async def test_chat_answers_with_steps_and_a_session_continues(tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        model.push(*adding(), text_reply("Still 4."))
        async with serving(tg, model, tmp_path / "g.sqlite3", tools=[Add()],
                           api_tokens=TOKENS) as web:
            first = await web.http.post("/api/v1/chat", headers=TEACHER, json={
                "message": "What is 2+2?", "mode": "react", "showSteps": True})
            assert first.status_code == 200, first.text
            run = first.json()
            assert run["answer"] == "2 + 2 = **4**" and run["status"] == "done"
            assert run["model"] and run["durationMs"] >= 0 and run["plan"] is None
            assert run["usage"]["totalTokens"] == 165
            assert run["steps"][0] == {"round": 1, "thought": "I should add them.",
                                       "tool": "add", "input": {"a": 2, "b": 2}, "output": "4",
                                       "ok": True, "durationMs": run["steps"][0]["durationMs"]}
            assert run["steps"][-1]["tool"] is None  # the answering round

            again = await web.http.post("/api/v1/chat", headers=TEACHER, json={
                "message": "And doubled?", "sessionId": run["sessionId"]})
            assert again.status_code == 200 and again.json()["steps"] is None
            assert again.json()["sessionId"] == run["sessionId"]
            sent = model.bodies[-1]["messages"]
            assert any(m["role"] == "assistant" and m["content"] == "2 + 2 = **4**"
                       for m in sent)  # the session's history, as a reply thread's

            listed = (await web.http.get("/api/v1/runs", headers=TEACHER,
                                         params={"sessionId": run["sessionId"]})).json()
            assert [r["runId"] for r in listed["runs"]] == [again.json()["runId"],
                                                            run["runId"]]
            stored = await web.http.get(f"/api/v1/runs/{run['runId']}", headers=TEACHER)
            assert stored.status_code == 200
            assert stored.json()["steps"] == run["steps"]
            # One name for a mode, the documented one, in every answer that shows it.
            assert run["mode"] == stored.json()["mode"] == "react"
            assert [r["mode"] for r in listed["runs"]] == ["react", "react"]
            paged = (await web.http.get("/api/v1/runs", headers=TEACHER)).json()
            assert {r["mode"] for r in paged["runs"]} == {"react"}
            # Another token's scope: nothing of the teacher's.
            hidden = await web.http.get(f"/api/v1/runs/{run['runId']}", headers=OTHER)
            assert hidden.status_code == 404
            assert (await web.http.get("/api/v1/runs", headers=OTHER)).json()["runs"] == []
            # Stored in a conversation of the token's own, which no Telegram chat is.
            scope = Conversation(ConversationKind.API, 1)
            record = await web.gb.services.store.api.run_by_id(scope, run["runId"])
            assert record is not None and record.question == "What is 2+2?"
            assert (record.conversation, record.user_id, record.user_name) == (
                scope, None, "API 1")


async def test_auth_and_bad_bodies_are_refused_as_json(tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        async with serving(tg, model, tmp_path / "g.sqlite3", api_tokens=TOKENS) as web:
            post = web.http.post
            cases = [
                (await post("/api/v1/chat", json={"message": "hi"}), 401, "unauthorized"),
                (await post("/api/v1/chat", json={"message": "hi"},
                            headers={"Authorization": "Bearer nope"}), 401, "unauthorized"),
                (await post("/api/v1/chat", content=b"{not json", headers=TEACHER), 400,
                 "invalid_json"),
                (await post("/api/v1/chat", json={"mode": "react"}, headers=TEACHER), 400,
                 "invalid_body"),
                (await post("/api/v1/chat", json={"message": "hi", "showSteps": "yes"},
                            headers=TEACHER), 400, "invalid_body"),
                (await post("/api/v1/chat", json={"message": "hi", "mode": "fast"},
                            headers=TEACHER), 400, "invalid_body"),
                (await post("/api/v1/chat", json=["hi"], headers=TEACHER), 400,
                 "invalid_body"),
                (await post("/api/v1/chat", json={"message": "x" * 1_000_000},
                            headers=TEACHER), 413, "body_too_long"),
                (await post("/api/v1/chat", json={"message": "x" * 5000}, headers=TEACHER),
                 413, "message_too_long"),
                (await web.http.get("/api/v1/runs/99", headers=TEACHER), 404, "no_such_run"),
                (await web.http.get("/api/v2/nothing", headers=TEACHER), 404, "not_found"),
            ]
            for answer, status, code in cases:
                assert answer.status_code == status, (answer.status_code, answer.text)
                assert answer.json()["error"]["code"] == code, answer.text
                assert "Traceback" not in answer.text
            missing = (await post("/api/v1/chat", json={}, headers=TEACHER)).json()
            assert "message: required" in missing["error"]["message"]
            assert cases[0][0].headers["WWW-Authenticate"].startswith("Bearer")
            schema = (await web.http.get("/openapi.json")).json()
            assert "/api/v1/chat" in schema["paths"]
            assert "message" in schema["components"]["schemas"]["ChatBody"]["properties"]


async def test_rate_limit_is_429_and_a_dead_model_503(tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        model.push(error("openai/error_401_invalid_api_key.json", 401))
        async with serving(tg, model, tmp_path / "g.sqlite3", api_tokens=TOKENS,
                           user_rate_limit="1/10m") as web:
            down = await web.http.post("/api/v1/chat", headers=TEACHER,
                                       json={"message": "hi"})
            assert down.status_code == 503, down.text
            assert down.json()["error"]["code"] == "model_unavailable"
            assert "API key" in down.json()["error"]["message"]
            limited = await web.http.post("/api/v1/chat", headers=TEACHER,
                                          json={"message": "hi again"})
            assert limited.status_code == 429
            assert int(limited.headers["Retry-After"]) > 500
            assert "1 questions" in limited.json()["error"]["message"] or \
                "questions" in limited.json()["error"]["message"]
            # The other token has its own limit.
            model.push(text_reply("Hello."))
            fine = await web.http.post("/api/v1/chat", headers=OTHER, json={"message": "hi"})
            assert fine.status_code == 200 and fine.json()["answer"] == "Hello."


async def test_the_stream_is_one_event_per_step_ending_with_run_finished(
        tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        model.push(*adding())
        async with serving(tg, model, tmp_path / "g.sqlite3", tools=[Add()],
                           api_tokens=TOKENS) as web:
            stream = web.http.stream("POST", "/api/v1/chat/stream", headers=TEACHER,
                                     json={"message": "What is 2+2?"})
            async with stream as answer:
                assert answer.status_code == 200
                lines = [line async for line in answer.aiter_lines()]
    events = [json.loads(line[6:]) for line in lines if line.startswith("data: ")]
    kinds = [e["type"] for e in events]
    assert kinds[0] == "run_started" and kinds[-1] == "run_finished"
    assert kinds.count("run_finished") == 1
    assert "thought" in kinds and "action" in kinds and "observation" in kinds
    assert "text_delta" in kinds and "answer" in kinds  # its role is known at the answer
    assert events[kinds.index("action")]["arguments"] == {"a": 2, "b": 2}
    assert events[-1]["status"] == "done" and events[-1]["answer"] == "2 + 2 = **4**"
    assert events[-1]["runId"] and events[-1]["sessionId"]


async def test_compare_gives_both_answers_and_the_difference(tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel(default=compare_model) as model:
        async with serving(tg, model, tmp_path / "g.sqlite3", tools=[Add()],
                           api_tokens=TOKENS) as web:
            answer = await web.http.post("/api/v1/chat", headers=TEACHER, json={
                "message": "what is 100+23?", "mode": "compare", "showSteps": True})
            assert answer.status_code == 200, answer.text
            run = answer.json()
    assert run["mode"] == "compare"
    assert run["answers"] == {"plain": "Roughly 100.", "react": "Exactly 123."}
    assert run["difference"]["figures"].startswith("No tools → ReAct")
    assert run["steps"][0]["tool"] == "add"
    assert all(step["tool"] is None for step in run["plainSteps"])  # no tools there


async def test_a_scope_that_hides_glassbox_notes_gets_none_as_a_chat_would(
        tmp_path: Path) -> None:
    """A scope's settings apply to its runs as a chat's do: with Glassbox's notes off, its
    stream and the board's live chain have none; another scope's have them."""
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        async with serving(tg, model, tmp_path / "g.sqlite3", tools=[Add()],
                           api_tokens=TOKENS) as web:
            services = web.gb.services
            scopes = [await services.store.api.scope(token)
                      for token in ("teacher-token-1", "other-token-2")]
            defaults = ChatSettings.defaults(services.settings)
            await services.store.chats.put(scopes[0], defaults.changed(remarks=False), defaults, 0)
            streamed, boards = [], []
            for scope in scopes:  # as a board opened: the hub keeps their finished runs
                web.gb.app.bot_data.services.hub.opened(scope)
            for who, scope in zip((TEACHER, OTHER), scopes, strict=True):
                model.push(tool_reply(("add", {"a": 2, "b": 2})), text_reply("4."))  # no why
                stream = web.http.stream("POST", "/api/v1/chat/stream", headers=who,
                                         json={"message": "What is 2+2?"})
                async with stream as answer:
                    lines = [line async for line in answer.aiter_lines()]
                events = [json.loads(line[6:]) for line in lines if line.startswith("data: ")]
                streamed.append([e["type"] for e in events])
                [live] = web.gb.app.bot_data.services.hub.live(scope)
                boards.append(render_view(live.view, live=False))
    assert "action" in streamed[0] and "answer" in streamed[0] and "note" not in streamed[0]
    assert "note" in streamed[1]
    assert "add(a=2, b=2)" in boards[0][0] and "Glassbox" not in "".join(boards[0])
    assert "Glassbox" in "".join(boards[1])


async def test_a_thought_glassbox_wrote_is_no_steps_thought(tmp_path: Path) -> None:
    """A run stored before Notes kept Glassbox's words as a synthesised Thought: the API
    gives it as no model's reasoning (the chat shows it as Glassbox's note)."""
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        async with serving(tg, model, tmp_path / "g.sqlite3", api_tokens=TOKENS) as web:
            scope = await web.gb.services.store.api.scope("teacher-token-1")
            run = await seed(web.gb.services.store, scope, None, "API 1", "What is 2+2?", "4.",
                             steps=[Thought(round=1, text="Glassbox: I add them.",
                                            synthesized=True),
                                    Action(round=1, call_id="c1", tool="add",
                                           arguments={"a": 2, "b": 2}),
                                    Observation(round=1, call_id="c1", tool="add", text="4",
                                                ok=True, duration_ms=3)])
            stored = (await web.http.get(f"/api/v1/runs/{run.id}", headers=TEACHER)).json()
    assert stored["steps"][0]["tool"] == "add" and stored["steps"][0]["output"] == "4"
    assert [step["thought"] for step in stored["steps"]] == [None]


async def test_two_stored_runs_of_the_token_compared_and_judged(
        tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        model.push(*adding(), text_reply("About 5."))
        async with serving(tg, model, tmp_path / "g.sqlite3", tools=[Add()],
                           api_tokens=TOKENS) as web:
            post = web.http.post
            ids = [(await post("/api/v1/chat", headers=TEACHER, json={
                "message": "What is 2+2?"})).json()["runId"] for _ in range(2)]
            calls = len(model.bodies)
            answer = await post("/api/v1/chat", headers=TEACHER,
                                json={"mode": "compare", "runs": ids})
            assert answer.status_code == 200, answer.text
            run = answer.json()
            assert len(model.bodies) == calls + 1  # asked nothing again; one judgement
            assert run["difference"]["judgement"]  # the fake judge's line, checked true
            assert run["mode"] == "runs" and run["status"] == "done"
            assert run["answers"] == {"left": "2 + 2 = **4**", "right": "About 5."}
            assert [side["n"] for side in run["sides"]] == [1, 2]
            assert run["difference"]["figures"].startswith("#1 → #2: rounds 2 → 1")
            assert run["firstDifference"] == {"round": 1, "left": "add(a=2, b=2)",
                                              "right": "answer"}
            again = (await web.http.get(f"/api/v1/runs/{run['runId']}", headers=TEACHER))
            assert again.json()["firstDifference"] == run["firstDifference"]
            refusals = [
                (await post("/api/v1/chat", headers=OTHER,  # another token's runs
                            json={"mode": "compare", "runs": ids}), 404, "no_such_run"),
                (await post("/api/v1/chat", headers=TEACHER,
                            json={"mode": "compare", "runs": [ids[0], ids[0]]}),
                 400, "cannot_compare"),
                (await post("/api/v1/chat", headers=TEACHER,
                            json={"mode": "compare", "runs": [ids[0], run["runId"]]}),
                 400, "cannot_compare"),
                (await post("/api/v1/chat", headers=TEACHER,
                            json={"mode": "react", "runs": ids}), 400, "invalid_body"),
                (await post("/api/v1/chat", headers=TEACHER,
                            json={"mode": "compare", "runs": ids[:1]}), 400, "invalid_body"),
            ]
            for reply, status, code in refusals:
                assert reply.status_code == status, reply.text
                assert reply.json()["error"]["code"] == code, reply.text


async def test_two_named_models_on_one_question_over_http(tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel() as local, FakeModel() as cloud:
        models = {"local": {"base_url": local.base_url, "model": "qwen2.5-1.5b"},
                  "cloud": {"base_url": cloud.base_url, "model": "qwen-plus",
                            "api_key": "sk-cloud-api-77"}}
        async with serving(tg, local, tmp_path / "g.sqlite3", tools=[Add()],
                           api_tokens=TOKENS, llm_model="local", llm_models=models) as web:
            local.push(text_reply("Roughly 100."))
            cloud.push(tool_reply(("add", {"a": 100, "b": 23})), text_reply("Exactly 123."))
            answer = await web.http.post("/api/v1/chat", headers=TEACHER, json={
                "message": "What is 100+23?", "mode": "compare",
                "models": ["local", "Cloud"], "showSteps": True})
            assert answer.status_code == 200, answer.text
            run = answer.json()
            assert run["mode"] == "models" and run["status"] == "done"
            assert run["answers"] == {"local": "Roughly 100.", "cloud": "Exactly 123."}
            assert run["difference"]["judgement"] == (
                "They differ: local gave 100 without a tool; cloud calculated 123.")
            assert run["difference"]["figures"].startswith("local → cloud: rounds 1 → 2")
            assert [s["model"] for s in run["sides"]] == ["local", "cloud"]
            assert run["sides"][1]["steps"][0]["tool"] == "add"
            stored = (await web.http.get(f"/api/v1/runs/{run['runId']}",
                                         headers=TEACHER)).json()
            assert stored["answers"] == run["answers"] and stored["mode"] == "models"

            cloud.refuse_connections()  # the cloud is down: its side says so
            local.push(text_reply("About 4."))
            half = (await web.http.post("/api/v1/chat", headers=TEACHER, json={
                "message": "What is 2+2?", "mode": "compare",
                "models": ["cloud", "local"]})).json()
            assert half["answers"] == {"cloud": "", "local": "About 4."}
            assert half["sides"][0]["status"] == "error"
            assert half["sides"][0]["error"].startswith("Could not reach the model service")
            assert half["difference"]["judgement"] is None

            refused = [(await web.http.post("/api/v1/chat", headers=TEACHER, json=body))
                       for body in ({"message": "hi", "mode": "compare",
                                     "models": ["local", "gpt9"]},
                                    {"message": "hi", "mode": "compare",
                                     "models": ["local", "LOCAL"]},
                                    {"message": "hi", "mode": "react",
                                     "models": ["local", "cloud"]})]
            assert [r.status_code for r in refused] == [400, 400, 400]
            assert refused[0].json()["error"] == {
                "status": 400, "code": "unknown_model",
                "message": "models: there is no model called 'gpt9'; the models: local, "
                           "cloud."}
            assert "two different models" in refused[1].json()["error"]["message"]
            assert refused[2].json()["error"]["code"] == "invalid_body"
            assert "sk-cloud-api-77" not in answer.text + half.__repr__()


async def test_comparing_stored_runs_counts_against_the_rate_limit(tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        model.push(text_reply("Four."), text_reply("About 5."))
        async with serving(tg, model, tmp_path / "g.sqlite3", api_tokens=TOKENS,
                           user_rate_limit="3/10m") as web:
            post = web.http.post
            ids = [(await post("/api/v1/chat", headers=TEACHER, json={
                "message": "What is 2+2?"})).json()["runId"] for _ in range(2)]
            first = await post("/api/v1/chat", headers=TEACHER,
                               json={"mode": "compare", "runs": ids})
            assert first.status_code == 200, first.text  # the third run of the window
            again = await post("/api/v1/chat", headers=TEACHER,
                               json={"mode": "compare", "runs": ids})
            assert again.status_code == 429, again.text
            assert again.json()["error"]["code"] == "rate_limited"
            assert int(again.headers["Retry-After"]) > 500
