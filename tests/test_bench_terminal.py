"""`scripts/bench --local-model URL`'s terminal path: each question a `python -m agent`
process of its own, against the fake model server, with a cache of the run's own."""

from __future__ import annotations

from bench.local_model import QUESTIONS, run_terminal, terminal_report
from testkit.fakes.model import FakeModel, text_reply


async def test_each_question_is_a_terminal_process_and_the_median_starts_at_the_second(
        fake_model: FakeModel) -> None:
    fake_model.push(
        text_reply('<tool_call>\n{"name": "get_time", "arguments": {"timezone": '
                   '"Europe/London"}}\n</tool_call>'),
        text_reply("Thought: I have it.\nFinal Answer: It is the time the clock said."),
        text_reply("Thought: A greeting needs no tool.\nFinal Answer: Hello! I am Glassbox."))
    outcomes = await run_terminal(fake_model.base_url, ["time", "greeting"])
    assert [o.question.id for o in outcomes] == ["time", "greeting"]
    assert [o.status for o in outcomes] == ["done", "done"]
    assert outcomes[0].tools == ["get_time"] and outcomes[1].answer == "Hello! I am Glassbox."
    # the first process learned the calls are text: the second asked in text from the start
    assert "tools" in fake_model.bodies[0] and "tools" not in fake_model.bodies[2]
    table = terminal_report(outcomes, ("0.1", "0.2"))
    assert "| greeting | yes | done | - |" in table
    assert "Median seconds from the second question on: " in table
    assert len(QUESTIONS) == 20


async def test_remembered_the_terminal_starts_in_text_from_its_first_question(
        fake_model: FakeModel) -> None:
    fake_model.push(
        text_reply("Thought: A greeting needs no tool.\nFinal Answer: Hello! I am Glassbox."))
    (outcome,) = await run_terminal(fake_model.base_url, ["greeting"], remembered=True)
    assert outcome.status == "done" and "tools" not in fake_model.bodies[0]
