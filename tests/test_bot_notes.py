"""Course notes by upload through the real Application: files come down from the fake Bot API
(getFile, then /file/bot…), are indexed for their chat alone, cited by page or section,
replaced by name and forgotten; bad files get one clear line."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from testkit.botkit import ADMIN, ALICE, BOB, GROUP, Glassbox, running
from testkit.dbkit import Target
from testkit.fakes.model import FakeModel, text_reply, tool_reply
from testkit.fakes.telegram import FakeTelegram
from testkit.pdfkit import make_pdf

WEEK1 = """# Week 1: ReAct

The ReAct loop interleaves a Thought, an Action and an Observation.

## Glassbox tips

Glassbox shows every round of the loop live in the chat.
"""


@pytest.fixture
async def gb(fake_telegram: FakeTelegram, fake_model: FakeModel, tmp_path: Path,
             db_target: Target) -> AsyncIterator[Glassbox]:
    """The bot with search_notes, on each backend."""
    shared = tmp_path / "notes"
    shared.mkdir()
    (shared / "syllabus.md").write_text("# Syllabus\n\nThe exam covers tokenizers.\n")
    async with running(fake_telegram, fake_model, db_target, tools=None,
                       agent_tools="search_notes", notes_dir=shared) as glassbox:
        yield glassbox


async def reply(gb: Glassbox, chat: int, message_id: int) -> str:
    await gb.tg.wait(lambda: bool(gb.replies_to(chat, message_id)))
    return gb.replies_to(chat, message_id)[0].text


async def search(gb: Glassbox, chat: int, user: int, query: str) -> str:
    """What search_notes observed for `query` in a run of `chat`."""
    gb.model.push(tool_reply(("search_notes", {"query": query})), text_reply("Done."))
    asked = gb.tg.send(chat, user, f"/ask about {query}")
    await gb.answer_to(chat, asked)
    return gb.model.bodies[-1]["messages"][-1]["content"]


async def test_a_markdown_file_is_indexed_for_its_chat_only(gb: Glassbox) -> None:
    sent = gb.tg.send_document(GROUP, ADMIN, "week1.md", WEEK1.encode(), caption="/notes")
    said = await reply(gb, GROUP, sent)
    assert said.startswith("📚 Indexed week1.md: 2 sections,") and "characters" in said
    assert "getFile" in gb.tg.methods() and "download" in gb.tg.methods()

    found = await search(gb, GROUP, BOB, "interleaves")
    assert "[week1.md › Week 1: ReAct]" in found and "Thought, an Action" in found
    elsewhere = await search(gb, ALICE, ALICE, "interleaves")
    assert "week1.md" not in elsewhere and "Nothing about" in elsewhere
    assert "[syllabus.md › Syllabus]" in await search(gb, GROUP, BOB, "tokenizers")


async def test_a_pdf_made_here_is_cited_by_page(gb: Glassbox) -> None:
    pdf = make_pdf(["Lecture 3", "Function calling sends a JSON schema per tool.",
                    "Parallel calls run concurrently."])
    sent = gb.tg.send_document(ALICE, ALICE, "lecture-3.pdf", pdf, caption="/notes",
                               mime_type="application/pdf")
    said = await reply(gb, ALICE, sent)
    assert said.startswith("📚 Indexed lecture-3.pdf: 3 pages,")
    found = await search(gb, ALICE, ALICE, "schema per tool")
    assert found.startswith("[lecture-3.pdf, p. 2]")


async def test_bad_files_each_get_a_clear_line(gb: Glassbox) -> None:
    scanned = gb.tg.send_document(ALICE, ALICE, "scan.pdf", make_pdf(["", ""]),
                                  caption="/notes")
    assert "Nothing could be read from scan.pdf" in await reply(gb, ALICE, scanned)
    broken = gb.tg.send_document(ALICE, ALICE, "broken.pdf", b"%PDF-1.4 nothing else",
                                 caption="/notes")
    assert "broken.pdf could not be read" in await reply(gb, ALICE, broken)
    big = gb.tg.send_document(ALICE, ALICE, "huge.pdf", b"%PDF", size=25 * 1024 * 1024,
                              caption="/notes")
    assert "huge.pdf is 25.0 MB, too big" in await reply(gb, ALICE, big)
    word = gb.tg.send_document(ALICE, ALICE, "notes.docx", b"PK", caption="/notes")
    assert "notes.docx cannot be indexed" in await reply(gb, ALICE, word)
    assert "getFile" in gb.tg.methods()  # for the two PDFs that were read
    assert gb.tg.methods().count("getFile") == 2
    assert await gb.services.notes.uploads(ALICE) == []  # type: ignore[union-attr]


async def test_only_admins_add_and_a_reply_replaces_lists_and_forgets(gb: Glassbox) -> None:
    first = gb.tg.send_document(GROUP, BOB, "week1.md", WEEK1.encode(), caption="/notes")
    assert "只有管理员可以添加" in await reply(gb, GROUP, first)

    again = gb.tg.send(GROUP, ADMIN, "/notes", reply_to=first)
    assert (await reply(gb, GROUP, again)).startswith("📚 Indexed week1.md")
    newer = gb.tg.send_document(GROUP, ADMIN, "week1.md", b"# Week 1\n\nAgents plan first.\n",
                                caption="/notes@GlassboxBot")
    assert "(It replaced the earlier file of that name.)" in await reply(gb, GROUP, newer)
    assert "Nothing about" in await search(gb, GROUP, ALICE, "interleaves")
    assert "Agents plan first" in await search(gb, GROUP, ALICE, "plan first")

    listed = gb.tg.send(GROUP, ALICE, "/notes")
    assert "• week1.md: 1 section" in await reply(gb, GROUP, listed)
    refused = gb.tg.send(GROUP, ALICE, "/notes forget week1.md")
    assert "Only an admin" in await reply(gb, GROUP, refused)
    forgot = gb.tg.send(GROUP, ADMIN, "/notes forget week1.md")
    assert await reply(gb, GROUP, forgot) == "Removed week1.md."
    assert "Nothing about" in await search(gb, GROUP, ALICE, "plan first")


async def test_chinese_notes_are_found_by_chinese_words(gb: Glassbox) -> None:
    text = "# 第三周：思维链\n\n思维链提示让模型先写出推理步骤，再给出答案。\n"
    sent = gb.tg.send_document(ALICE, ALICE, "第三周.md", text.encode(), caption="/notes")
    assert (await reply(gb, ALICE, sent)).startswith("📚 Indexed 第三周.md: 1 section,")
    found = await search(gb, ALICE, ALICE, "什么是思维链")
    assert found.startswith("[第三周.md › 第三周：思维链]") and "推理步骤" in found
