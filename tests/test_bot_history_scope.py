"""Who reaches which runs: no chat sees, shows, exports or forgets another chat's runs (forged
buttons included); members forget their own runs, admins any; /forget all after a confirm;
old runs pruned; the new commands in the menus and /help."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from contextlib import closing
from pathlib import Path

import pytest

from bot.store.records import Scope
from bot.store.transcripts import Store
from testkit.botkit import ADMIN, ALICE, BOB, GROUP, Glassbox, people, running
from testkit.fakes.model import DashScope, FakeModel, sse
from testkit.fakes.telegram import FakeTelegram
from tests.historykit import DANA, OTHER_GROUP, reply, seed, tap


@pytest.fixture
def fake_telegram(fake_telegram: FakeTelegram) -> FakeTelegram:
    """The class, a second class, and Dana: a real administrator of the first."""
    fake_telegram.group(OTHER_GROUP, "Class 3B")
    fake_telegram.user(DANA, "Dana", "en")
    fake_telegram.admin(GROUP, DANA)
    return fake_telegram


async def count(gb: Glassbox, chat_id: int) -> int:
    return (await gb.services.store.history(Scope(chat_id))).total


async def test_no_chat_reaches_another_chats_runs(gb: Glassbox) -> None:
    store = gb.services.store
    await seed(store, GROUP, ALICE, "Alice", "group secret question", "group secret answer")
    await seed(store, GROUP, BOB, "Bob", "another group question")
    await seed(store, OTHER_GROUP, ALICE, "Alice", "other class question")
    await seed(store, ALICE, ALICE, "Alice", "alice private question")

    other = await reply(gb, OTHER_GROUP, ALICE, "/history")
    assert "other class question" in other.text and "group" not in other.text
    assert other.buttons == ["#1 ▶"]
    assert "No question or answer" in (await reply(gb, OTHER_GROUP, ALICE,
                                                   "/history secret")).text
    for command in ("/show 2", "/export 2", "/forget 2"):
        assert (await reply(gb, OTHER_GROUP, ALICE, command)).text == "There is no run #2 here."
    assert "other class question" in (await reply(gb, OTHER_GROUP, ALICE, "/show 1")).text
    assert all(m.document is None for m in gb.tg.bot_messages(OTHER_GROUP))

    private = await reply(gb, ALICE, ALICE, "/history")  # Alice's own chat: her runs there
    assert "alice private question" in private.text and "group" not in private.text
    assert (await reply(gb, BOB, BOB, "/show 1")).text == "这里没有 #1 这条记录。"
    assert "这里还没有记录" in (await reply(gb, BOB, BOB, "/history")).text
    assert [await count(gb, chat) for chat in (GROUP, OTHER_GROUP, ALICE)] == [2, 1, 1]


async def test_forged_buttons_reach_nothing_outside_the_chat(gb: Glassbox) -> None:
    store = gb.services.store
    await seed(store, GROUP, ALICE, "Alice", "group secret question")
    await seed(store, GROUP, BOB, "Bob", "second group question")
    await seed(store, OTHER_GROUP, BOB, "Bob", "other class question")
    await seed(store, ALICE, ALICE, "Alice", "alice private question")
    listing = await reply(gb, OTHER_GROUP, ALICE, "/history")
    before = len(gb.tg.bot_messages(OTHER_GROUP))

    assert await tap(gb, OTHER_GROUP, ALICE, listing, "show:2") == "There is no run #2 here."
    for garbage in ("show:abc", "show:99999999999999999999", "show:", "fa:yes:x", "garbage",
                    "stop:1x"):
        assert await tap(gb, OTHER_GROUP, ALICE, listing, garbage) == \
            "This button no longer works."
    for stale in ("hist:1:77", "hist:x", "hist:-1"):  # an unknown search, a bad page
        assert "expired" in await tap(gb, OTHER_GROUP, ALICE, listing, stale)
    await tap(gb, OTHER_GROUP, ALICE, listing, "hist:99")  # a page past the end: the last
    await tap(gb, OTHER_GROUP, ALICE, listing, "show:1")
    await gb.tg.wait(lambda: len(gb.tg.bot_messages(OTHER_GROUP)) == before + 1)
    [shown] = gb.replies_to(OTHER_GROUP, listing.message_id)
    assert "other class question" in shown.text
    assert "group" not in listing.text and "secret" not in shown.text

    # a member taps a forged "delete all" made out to herself: refused, nothing deleted
    assert await tap(gb, OTHER_GROUP, ALICE, listing, f"fa:yes:{ALICE}") == \
        "Only an admin can delete all of this chat's runs."
    mine = await reply(gb, BOB, BOB, "/history")  # Bob's private chat has no runs
    assert await tap(gb, BOB, BOB, mine, "show:1") == "这里没有 #1 这条记录。"
    assert [await count(gb, chat) for chat in (GROUP, OTHER_GROUP, ALICE)] == [2, 1, 1]


async def test_members_forget_their_own_runs_admins_any(gb: Glassbox) -> None:
    store = gb.services.store
    await seed(store, GROUP, ALICE, "Alice", "alice asks")
    for question in ("bob asks", "bob asks again", "bob once more"):
        await seed(store, GROUP, BOB, "Bob", question)

    refused = await reply(gb, GROUP, ALICE, "/forget 2")
    assert refused.text.startswith("Run #2 is not yours")
    assert (await reply(gb, GROUP, ALICE, "/forget 1")).text == "Run #1 is deleted."
    assert (await reply(gb, GROUP, ALICE, "/show 1")).text == "There is no run #1 here."
    assert (await reply(gb, GROUP, ALICE, "/forget")).text.startswith("Please give a run number")

    # Dana administers the group in Telegram; she is not in ADMIN_USER_IDS
    assert (await reply(gb, GROUP, DANA, "/forget 2")).text == "Run #2 is deleted."
    assert (await reply(gb, GROUP, DANA, "/forget #3")).text == "Run #3 is deleted."
    asked = [c for c in gb.tg.calls if c.method == "getChatMember"]
    assert [(int(c.params["chat_id"]), int(c.params["user_id"])) for c in asked] == [
        (GROUP, ALICE), (GROUP, DANA)]  # each asked once, then remembered
    assert (await reply(gb, GROUP, ADMIN, "/forget 4")).text == "Run #4 is deleted."
    assert await count(gb, GROUP) == 0


async def test_forget_all_needs_an_admin_and_a_confirmation(gb: Glassbox) -> None:
    store = gb.services.store
    for user, name in ((ALICE, "Alice"), (BOB, "Bob"), (ALICE, "Alice")):
        await seed(store, GROUP, user, name, f"{name}'s question")
    await seed(store, OTHER_GROUP, ALICE, "Alice", "stays")

    member = await reply(gb, GROUP, ALICE, "/forget all")
    assert member.text == "Only an admin can delete all of this chat's runs."
    confirm = await reply(gb, GROUP, ADMIN, "/forget all")
    assert confirm.text == "Delete all 3 runs of this chat? This cannot be undone."
    assert confirm.buttons == ["🗑 Delete all", "Cancel"]
    assert await tap(gb, GROUP, BOB, confirm, confirm.button_data("🗑 Delete all")) == \
        "这个按钮是给发出命令的人的。"
    await tap(gb, GROUP, ADMIN, confirm, confirm.button_data("Cancel"))
    await gb.tg.wait(lambda: confirm.text == "Cancelled; nothing was deleted.")
    assert confirm.buttons == [] and await count(gb, GROUP) == 3

    again = await reply(gb, GROUP, DANA, "/forget all")  # a chat admin may, too
    await tap(gb, GROUP, DANA, again, again.button_data("🗑 Delete all"))
    await gb.tg.wait(lambda: again.text == "Deleted all runs of this chat (3).")
    assert again.buttons == []
    assert (await reply(gb, GROUP, ALICE, "/history")).text.startswith("No runs here yet.")
    assert await count(gb, OTHER_GROUP) == 1

    await seed(store, ALICE, ALICE, "Alice", "my own")  # a private chat is its user's to clear
    private = await reply(gb, ALICE, ALICE, "/forget all")
    await tap(gb, ALICE, ALICE, private, private.button_data("🗑 Delete all"))
    await gb.tg.wait(lambda: private.text == "Deleted all runs of this chat (1).")


async def test_a_chat_admin_may_stop_anyones_run(gb: Glassbox) -> None:
    """The ⏹ button uses the same admin check as /forget."""
    gb.model.push(sse(DashScope().text("never shown"), first_delay=3.0))
    asked = gb.tg.send(GROUP, ALICE, "/ask something slow")
    live = await gb.stop_button_on(GROUP, asked)
    gb.tg.tap(GROUP, DANA, live.message_id, live.button_data("⏹ Stop"))
    assert "Stopped by Dana" in (await gb.answer_to(GROUP, asked)).text


async def test_runs_older_than_the_retention_are_pruned_at_start(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    store = await Store.open(db)
    old = await seed(store, GROUP, ALICE, "Alice", "last term's question")
    await seed(store, GROUP, BOB, "Bob", "this week's question")
    await store.close()
    with closing(sqlite3.connect(db)) as raw, raw:
        raw.execute("UPDATE runs SET started_at = '2020-01-01T00:00:00.000+00:00' WHERE id = ?",
                    (old.id,))
    with FakeTelegram(scale=0.02) as tg, FakeModel() as model:
        people(tg)
        async with running(tg, model, db, transcript_retention_days=30) as gb:
            deadline = time.monotonic() + 10
            while await count(gb, GROUP) != 1 and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            listing = await reply(gb, GROUP, ALICE, "/history")
    assert "this week's question" in listing.text
    assert "last term's question" not in listing.text


async def test_the_commands_are_in_the_menus_and_in_help(gb: Glassbox) -> None:
    for menu in gb.tg.commands:
        names = [c["command"] for c in menu["commands"]]
        assert {"history", "show", "export", "forget"} <= set(names)
    zh = next(m for m in gb.tg.commands if m["language_code"] == "zh")
    assert any("记录" in c["description"] for c in zh["commands"])
    help_en = await reply(gb, ALICE, ALICE, "/help")
    help_zh = await reply(gb, BOB, BOB, "/help")
    for command in ("/history", "/show", "/export", "/forget"):
        assert command in help_en.text and command in help_zh.text
    assert "keyword" in help_en.text and "关键词" in help_zh.text
