"""/quiz through the real bot process (its HTTP server too) against the fake Bot API: before
each round a poll in the group, the votes counted as `poll_answer` updates arrive, the poll
stopped at the reveal (by the asker or an admin, or when the time runs out), and only then
the round's action; the votes stored with the run and shown in /show, /export and on the
board. A private chat is told what /quiz is for."""

from __future__ import annotations

import re
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from bot.runs.quiz_votes import OpenVote, OpenVotes
from testkit.botkit import ADMIN, ALICE, BOB, GROUP, Add, Glassbox, people
from testkit.fakes.model import FakeModel, text_reply, tool_reply
from testkit.fakes.server import Reply, Request
from testkit.fakes.telegram import FakeTelegram, Message
from testkit.serving import serving
from tests.web.test_board import board_path, words

CAROL = 333
POLL_OPTIONS = ["add", "answer directly (no tool)"]


def polls(gb: Glassbox) -> list[Message]:
    """The bot's polls in the group, in order, those it took out of the chat too."""
    return [m for (chat, _), m in sorted(gb.tg.messages.items())
            if chat == GROUP and m.poll is not None]


async def voting(gb: Glassbox, asked: int, n: int) -> tuple[Message, Message]:
    """The `n`-th poll of the run, once it is out and the live message shows 👁 Reveal."""
    def out() -> bool:
        live = gb.replies_to(GROUP, asked)
        return len(polls(gb)) >= n and bool(live) and polls(gb)[n - 1].poll is not None and (
            any(d.startswith("quiz:") for d in _data(live[0])))
    await gb.tg.wait(out)
    return polls(gb)[n - 1], gb.replies_to(GROUP, asked)[0]


def counted(gb: Glassbox, poll: Message) -> tuple[int, ...] | None:
    """The votes the bot has counted for `poll` (None until it knows the poll)."""
    vote = gb.services.runs.votes.of_poll(poll.poll.poll_id)
    return None if vote is None else vote.counts()


def _data(msg: Message) -> list[str]:
    rows = (msg.reply_markup or {}).get("inline_keyboard", [])
    return [b["callback_data"] for row in rows for b in row]


def alerts(tg: FakeTelegram) -> list[str]:
    return [c.params.get("text", "") for c in tg.calls if c.method == "answerCallbackQuery"]


async def test_a_quiz_polls_before_each_round_and_keeps_the_votes(tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        people(tg)
        tg.user(CAROL, "Carol", "en")
        model.push(tool_reply(("add", {"a": 2, "b": 2}), content="I will add them."),
                   text_reply("It is 4."))
        async with serving(tg, model, tmp_path / "g.sqlite3", tools=[Add()]) as web:
            gb = web.gb
            asked = tg.send(GROUP, ALICE, "/quiz what is 2+2?")
            poll, live = await voting(gb, asked, 1)
            assert poll.poll.question == "Round 1: which tool will the model call next?\n" \
                                         "❓ what is 2+2?"
            assert poll.poll.options == POLL_OPTIONS and not poll.poll.anonymous
            assert poll.poll.kind == "regular" and poll.reply_to == live.message_id
            assert live.buttons == ["👁 Reveal", "⏹ Stop"]
            assert "The class is voting in the group" in live.text
            assert "Working…" not in live.text  # the model is not asked while the class votes
            assert "🔧" not in live.text and not model.bodies  # the model is not asked yet

            assert tg.vote(GROUP, BOB, poll.message_id, [0])
            assert tg.vote(GROUP, CAROL, poll.message_id, [0])
            assert tg.vote(GROUP, ADMIN, poll.message_id, [1])
            await tg.wait(lambda: counted(gb, poll) == (2, 1))
            await tg.wait(lambda: "(3 voted so far)" in gb.replies_to(GROUP, asked)[0].text)

            tg.tap(GROUP, BOB, live.message_id, next(d for d in _data(live)
                                                      if d.startswith("quiz:")))
            await tg.wait(lambda: bool(alerts(tg)))
            assert alerts(tg)[0] == "只有 Alice 或管理员可以揭晓。"
            assert not poll.poll.closed and not model.bodies

            tg.tap(GROUP, ALICE, live.message_id, next(d for d in _data(live)
                                                        if d.startswith("quiz:")))
            second, live = await voting(gb, asked, 2)
            assert poll.poll.closed and second.poll.question.startswith("Round 2:")
            assert poll.deleted and poll not in gb.tg.bot_messages(GROUP)  # counts kept above
            assert "add(a=2, b=2)" in live.text and "🔧" in live.text
            stopped = [i for i, c in enumerate(tg.calls) if c.method == "stopPoll"]
            assert len(stopped) == 1 and len(model.bodies) == 1
            assert "Class prediction · 3 votes · revealed by Alice" in live.text
            assert "add 2 ✅ · answer directly (no tool) 1" in live.text
            assert not tg.vote(GROUP, BOB, poll.message_id, [1])  # closed

            assert tg.vote(GROUP, BOB, second.message_id, [1])
            await tg.wait(lambda: counted(gb, second) == (0, 1))
            tg.tap(GROUP, ADMIN, live.message_id, next(d for d in _data(live)
                                                        if d.startswith("quiz:")))
            final = await gb.answer_to(GROUP, asked)
            assert second.poll.closed and second.deleted and "It is 4." in final.text
            assert tg.methods(GROUP).count("deleteMessage") == 2
            assert gb.tg.bot_messages(GROUP)[-1].message_id == final.message_id
            assert "1 vote · revealed by Teacher" in final.text
            assert "answer directly (no tool) 1 ✅" in final.text
            assert "🗳 the class's top pick was right in 2 of 2 rounds" in final.text

            run = await gb.services.store.by_message(GROUP, final.message_id)
            assert run is not None and run.mode == "ask" and run.status == "done"
            steps = (await gb.services.store.events(run.id))["main"]
            closed = [e.to_dict() for e in steps if e.type == "vote_closed"]
            assert "vote_count" not in {e.type for e in steps}  # shown live, never stored
            assert [(c["round"], c["choices"], c["counts"], c["by"]) for c in closed] == [
                (1, ("add", ":answer"), (2, 1), "Alice"),
                (2, ("add", ":answer"), (0, 1), "Teacher")]

            show = tg.send(GROUP, ALICE, "/show 1")
            await tg.wait(lambda: bool(gb.replies_to(GROUP, show)))
            shown = "".join(m.text for m in gb.replies_to(GROUP, show))
            assert "Class prediction · 3 votes · revealed by Alice" in shown
            assert "add 2 ✅ · answer directly (no tool) 1" in shown

            export = tg.send(GROUP, ALICE, "/export 1")
            await tg.wait(lambda: any(m.document for m in gb.replies_to(GROUP, export)))
            doc = next(m.document for m in gb.replies_to(GROUP, export) if m.document)
            page = doc.content.decode()
            assert "3 votes · revealed by Alice" in words(page)
            assert '<progress max="3" value="2"></progress>' in page

            path = await board_path(web)
            board = (await web.http.get(f"{path}/runs/1")).json()["html"]
            assert re.search(r'<li><span class="choice">add</span>'
                             r'<progress max="3" value="2"></progress><b class="count">2</b>',
                             board)
            assert "🗳 2 of 3 predicted it" in words(board)
            assert "3 votes · revealed by Alice" in words(board)
            assert board.index('class="step vote"') < board.index('class="step action"')


async def test_a_vote_nobody_reveals_closes_when_the_time_runs_out(tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        people(tg)
        model.push(text_reply("Hello, class."))
        async with serving(tg, model, tmp_path / "g.sqlite3", tools=[Add()],
                           quiz_timeout_s=0.5) as web:
            gb = web.gb
            asked = tg.send(GROUP, BOB, "/quiz say hello")
            poll, _ = await voting(gb, asked, 1)
            assert poll.poll.question.startswith("第 1 轮：模型下一步会调用哪个工具？")
            assert poll.poll.options == ["add", "直接回答（不调用工具）"]
            assert tg.vote(GROUP, ALICE, poll.message_id, [1])
            final = await gb.answer_to(GROUP, asked)
            assert poll.poll.closed and "Hello, class." in final.text
            assert "全班预测 · 1 票 · 时间到，自动揭晓" in final.text
            assert "直接回答（不调用工具） 1 ✅" in final.text
            assert "stopPoll" in tg.methods(GROUP)


async def test_in_a_private_chat_quiz_says_what_it_is_for(tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        people(tg)
        async with serving(tg, model, tmp_path / "g.sqlite3", tools=[Add()]) as web:
            asked = tg.send(ALICE, ALICE, "/quiz what is 2+2?")
            await tg.wait(lambda: bool(web.gb.replies_to(ALICE, asked)))
            said = web.gb.replies_to(ALICE, asked)[0].text
            assert "/quiz is for a class: in a group" in said and "/step your question" in said
            assert not model.bodies and "sendPoll" not in tg.methods()


def named(name: str) -> Add:
    """An Add tool by another name (a tool name may be up to 64 characters)."""
    tool = Add()
    tool.name = name
    return tool


async def test_the_poll_keeps_within_telegram_limits(tmp_path: Path) -> None:
    """Twelve tools and a 2,000-character question: the poll has ten options (eight tools,
    "another tool", "answer directly") and a question of at most 300 characters, which the
    fake Bot API (refusing what Telegram refuses) takes; the model calling a tool the poll
    had no room for is "another tool"."""
    tools = [named(f"tool_{i:02d}_" + "x" * 54) for i in range(12)]
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        people(tg)
        model.push(tool_reply((tools[11].name, {"a": 1, "b": 1})), text_reply("Two."))
        async with serving(tg, model, tmp_path / "g.sqlite3", tools=tools,
                           quiz_timeout_s=0.3) as web:
            gb = web.gb
            asked = tg.send(GROUP, ALICE, "/quiz " + "how much is one and one? " * 80)
            poll, _ = await voting(gb, asked, 1)
            assert len(poll.poll.options) == 10 and len(poll.poll.question) <= 300
            assert poll.poll.options[:8] == [t.name for t in tools[:8]]
            assert poll.poll.options[8:] == ["another tool", "answer directly (no tool)"]
            assert poll.poll.question.endswith("…")
            assert tg.vote(GROUP, BOB, poll.message_id, [8])
            final = await gb.answer_to(GROUP, asked)
            assert "another tool 1 ✅" in final.text and "Two." in final.text


async def test_a_poll_telegram_holds_back_is_sent_after_the_wait(tmp_path: Path) -> None:
    """A 429 on sendPoll: the chat waits as Telegram asks, then the poll goes (once)."""
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        people(tg)
        model.push(text_reply("Four."))
        tg.fail("sendPoll", "error_429_too_many_requests.json")
        async with serving(tg, model, tmp_path / "g.sqlite3", tools=[Add()],
                           quiz_timeout_s=0.3) as web:
            asked = tg.send(GROUP, ALICE, "/quiz what is 2+2?")
            final = await web.gb.answer_to(GROUP, asked)
            assert "Four." in final.text and "0 votes · time ran out" in final.text
            assert len(polls(web.gb)) == 1 and tg.methods(GROUP).count("sendPoll") == 2


async def test_a_vote_that_comes_before_the_poll_id_still_counts() -> None:
    """A `poll_answer` may be read before sendPoll's reply: it counts once the open vote knows
    its poll; a vote taken back, or cast after the reveal, does not."""
    votes = OpenVotes()
    votes.answered("p1", BOB, [0])
    votes.answered("p1", CAROL, [1])
    votes.answered("p1", CAROL, [])  # taken back
    vote = OpenVote(1, 7, GROUP, ALICE, "Alice", size=2)
    votes.add(vote)
    votes.polled(vote, "p1")
    assert vote.counts() == (1, 0)
    assert vote.reveal("Alice") and not vote.reveal("Teacher")
    votes.answered("p1", ADMIN, [1])
    assert vote.counts() == (1, 0)


@asynccontextmanager
async def stopped_mid_vote(tg: FakeTelegram, model: FakeModel,
                           tmp_path: Path) -> AsyncIterator[tuple[Glassbox, int, Message]]:
    """Serves the bot, asks a /quiz and taps ⏹ Stop once its first poll is out; yields the
    bot, the asking message's id and the poll."""
    people(tg)
    async with serving(tg, model, tmp_path / "g.sqlite3", tools=[Add()]) as web:
        asked = tg.send(GROUP, ALICE, "/quiz what is 2+2?")
        poll, live = await voting(web.gb, asked, 1)
        tg.tap(GROUP, ALICE, live.message_id, live.button_data("⏹ Stop"))
        yield web.gb, asked, poll


async def test_stopping_mid_vote_closes_the_poll_and_says_so(tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        async with stopped_mid_vote(tg, model, tmp_path) as (gb, asked, poll):
            final = await gb.answer_to(GROUP, asked)
            await tg.wait(lambda: poll.deleted)
            assert poll.poll.closed and not model.bodies
            assert "Class prediction: the run ended before the reveal" in final.text
            assert "Waiting for the reveal" not in final.text


class PollOnItsWay(FakeTelegram):
    """Puts a poll in the chat but holds its reply to sendPoll until `told` is set: the bot
    does not know yet which poll is its own."""

    def __init__(self, scale: float) -> None:
        super().__init__(scale=scale)
        self.told = threading.Event()

    def _handle(self, request: Request) -> Reply:
        reply = super()._handle(request)
        if request.path.endswith("/sendPoll"):
            self.told.wait(30)
        return reply


async def test_stopping_while_the_poll_is_on_its_way_still_closes_it(tmp_path: Path) -> None:
    with PollOnItsWay(scale=0.02) as tg, FakeModel() as model:
        async with stopped_mid_vote(tg, model, tmp_path) as (gb, asked, poll):
            await tg.wait(lambda: "answerCallbackQuery" in tg.methods())  # the run is stopped
            tg.told.set()
            final = await gb.answer_to(GROUP, asked)
            await tg.wait(lambda: poll.deleted)
            assert poll.poll.closed and not model.bodies
            assert "Class prediction: the run ended before the reveal" in final.text
