"""Who is asking, when a message is posted as a channel or as the group ("anonymous admin").
Telegram sends every such message `from` one placeholder user (136817688 for channels,
1087968824 for anonymous admins) and says who it really is in `sender_chat`. Two channels
are two senders: their own runs, their own running question, their own rate limit; an
anonymous admin is an admin of that group."""

from __future__ import annotations

from pathlib import Path

import pytest

from testkit.botkit import ALICE, BOB, GROUP, Glassbox
from testkit.fakes.model import DashScope, sse, text_reply
from tests.faults.kit import faulty, glassbox, runs_of, still_answers

X, Y = -1001111111111, -1002222222222


@pytest.mark.usefixtures("no_crash")
async def test_two_channels_and_the_group_are_three_senders(tmp_path: Path) -> None:
    async with glassbox(tmp_path, user_rate_limit="1/10m") as gb:
        tg = faulty(gb)
        tg.channel(X, "Channel X")
        tg.channel(Y, "Channel Y")
        gb.model.push(sse(DashScope().text("X's answer."), first_delay=1.5),
                      text_reply("Y's answer."))
        xs = tg.posted_as(GROUP, X, "/ask slow one")
        await gb.stop_button_on(GROUP, xs)
        stop = tg.posted_as(GROUP, Y, "/stop")  # Y has nothing running; X's run goes on
        await gb.tg.wait(lambda: bool(gb.replies_to(GROUP, stop)))
        assert gb.replies_to(GROUP, stop)[0].text == "You have no question running."
        assert gb.running(GROUP)
        ys = tg.posted_as(GROUP, Y, "/ask quick one")  # Y's own slot and rate limit
        assert "Y's answer." in (await gb.answer_to(GROUP, ys)).text
        assert "X's answer." in (await gb.answer_to(GROUP, xs)).text
        again = tg.posted_as(GROUP, X, "/ask one more")
        assert (await gb.answer_to(GROUP, again)).text.startswith("You have asked 1 question")
        x_run, y_run = await runs_of(gb, GROUP)
        assert (x_run.user_id, x_run.user_name, x_run.status) == (X, "Channel X", "done")
        assert (y_run.user_id, y_run.user_name) == (Y, "Channel Y")

        forget = tg.posted_as(GROUP, Y, f"/forget {x_run.n}")  # not Y's to delete
        assert (await gb.answer_to(GROUP, forget)).text.startswith(
            f"Run #{x_run.n} is not yours")
        forget = tg.posted_as(GROUP, GROUP, f"/forget {y_run.n}")  # an admin of the group
        assert (await gb.answer_to(GROUP, forget)).text == f"Run #{y_run.n} is deleted."
        assert [r.n for r in await runs_of(gb, GROUP)] == [x_run.n]
        refused = tg.posted_as(GROUP, X, "/forget all")  # a channel is never an admin
        assert (await gb.answer_to(GROUP, refused)).text == \
            "Only an admin can delete all of this chat's runs."
        await still_answers(gb, GROUP, ALICE)


async def test_an_anonymous_admins_forget_all_is_confirmed_by_an_admin(gb: Glassbox) -> None:
    """The confirm button's taps come from the admins' own accounts: any admin may confirm,
    a member may not (not even cancel)."""
    await still_answers(gb, GROUP, ALICE)
    tg = faulty(gb)
    asked = tg.posted_as(GROUP, GROUP, "/forget all")
    await tg.wait(lambda: bool(gb.replies_to(GROUP, asked)))
    [confirm] = gb.replies_to(GROUP, asked)
    assert confirm.text == "Delete all 1 runs of this chat? This cannot be undone."
    for data in (confirm.button_data("Cancel"), confirm.button_data("🗑 Delete all")):
        tg.tap(GROUP, ALICE, confirm.message_id, data)
    await tg.wait(lambda: len(tg.answers_to_taps()) == 2)
    assert tg.answers_to_taps() == ["Only an admin can delete all of this chat's runs."] * 2
    tg.admin(GROUP, BOB)
    tg.tap(GROUP, BOB, confirm.message_id, confirm.button_data("🗑 Delete all"))
    done = "已删除本聊天的 1 条记录。"  # Bob's Telegram is in Chinese
    await tg.wait(lambda: tg.messages[GROUP, confirm.message_id].text == done)
    assert await runs_of(gb, GROUP) == []
