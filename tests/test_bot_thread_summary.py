"""Long reply threads through the real Application: the whole thread is the history, and
when it outgrows HISTORY_MAX_CHARS its older turns are summarised by one short model call,
kept per thread (not redone every turn), marked as a summary in what the model sees, and
its tokens counted with the run's."""

from __future__ import annotations

from pathlib import Path

from testkit.botkit import ALICE, BOB, GROUP, running
from testkit.fakes.model import FakeModel, error, text_reply
from testkit.fakes.telegram import FakeTelegram

LONG = "x" * 60


async def test_a_long_thread_is_summarised_once_and_marked(
        fake_telegram: FakeTelegram, fake_model: FakeModel, tmp_path: Path) -> None:
    async with running(fake_telegram, fake_model, tmp_path / "g.sqlite3",
                       history_max_chars=160) as gb:
        async def ask(user: int, text: str, reply_to: int | None, *answers: str) -> int:
            fake_model.push(*(text_reply(a) for a in answers))
            asked = gb.tg.send(GROUP, user, text, reply_to=reply_to)
            return (await gb.answer_to(GROUP, asked)).message_id

        first = await ask(ALICE, "/ask What is ReAct? " + LONG, None, "Reason and act. " + LONG)
        second = await ask(BOB, "And CoT?", first, "Chain of thought. " + LONG)
        assert len(fake_model.bodies) == 2  # two turns fit: nothing to summarise yet
        assert [m["content"][:12] for m in fake_model.bodies[1]["messages"][1:]] == [
            "What is ReAc", "Reason and a", "And CoT?"]

        third = await ask(ALICE, "Which is older?", second,
                          "Summary: ReAct is reason+act.", "CoT is older. " + LONG)
        summary_call, run = fake_model.bodies[2], fake_model.bodies[3]
        assert summary_call["messages"][0]["content"].startswith("Summarise this conversation")
        assert "Q: What is ReAct?" in summary_call["messages"][0]["content"]
        assert "tools" not in summary_call
        seen = [m["content"] for m in run["messages"][1:]]
        assert seen[0].startswith("[Summary of the earlier conversation, written by Glassbox")
        assert seen[0].endswith("Summary: ReAct is reason+act.")
        assert seen[1:] == ["And CoT?", "Chain of thought. " + LONG, "Which is older?"]
        stored = await gb.services.store.by_message(GROUP, third)
        assert stored is not None
        finished = (await gb.services.store.events(stored.id))["main"][-1]
        assert stored.usage.total_tokens > finished.usage.total_tokens > 0  # type: ignore[attr-defined]

        await ask(BOB, "Why?", second, "Because.")  # another branch from the same turn
        assert len(fake_model.bodies) == 5  # the kept summary, no second summary call
        assert fake_model.bodies[4]["messages"][1]["content"].endswith("reason+act.")

        await ask(ALICE, "Thanks!", third, "Summary: ReAct; CoT.", "You are welcome.")
        again = fake_model.bodies[5]["messages"][0]["content"]
        assert "Summary so far: Summary: ReAct is reason+act." in again  # goes on from it
        assert "Q: And CoT?" in again and "What is ReAct" not in again
        covered = await gb.services.store.by_message(GROUP, second)
        assert covered is not None  # kept under the newest run it covers
        assert await gb.services.store.threads.summaries([covered.id, stored.id]) == {
            covered.id: "Summary: ReAct; CoT."}


async def test_a_failed_summary_call_cuts_the_history_as_before(
        fake_telegram: FakeTelegram, fake_model: FakeModel, tmp_path: Path) -> None:
    async with running(fake_telegram, fake_model, tmp_path / "g.sqlite3",
                       history_max_chars=100) as gb:
        fake_model.push(text_reply("First answer. " + LONG))
        asked = gb.tg.send(GROUP, ALICE, "/ask First? " + LONG)
        first = (await gb.answer_to(GROUP, asked)).message_id
        fake_model.push(error("openai/error_500_server_error.json", 500), text_reply("Ok."))
        follow = gb.tg.send(GROUP, BOB, "Second?", reply_to=first)
        final = await gb.answer_to(GROUP, follow)
    assert "Ok." in final.text
    seen = [m["content"] for m in fake_model.bodies[-1]["messages"][1:]]
    assert seen == ["Second?"]  # the one older turn did not fit: cut, as without summaries
