"""Figures in a link's URL: an answer's link whose target holds digits (a hostile one with
quotes and parentheses, Wikipedia's with parentheses) keeps its target exactly as written in
the chat, on the board and in /export; only figures of the text are marked."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from agent.ledger import Backing, Entry
from bot.view.grounding_marks import ledger_html, marked
from bot.view.markdown import md_to_html
from testkit.botkit import ALICE, Add, people
from testkit.fakes.model import FakeModel, Reply, text_reply, tool_reply
from testkit.fakes.telegram import FakeTelegram
from testkit.serving import serving
from tests.web.test_board import LINK

pytestmark = pytest.mark.usefixtures("no_crash")

HOSTILE = 'https://ok.example/"onmouseover="alert(20)'
WIKI = "https://en.wikipedia.org/wiki/Apollo_(1969)"
BARE = "https://x.example/a_(2024)/b"
ANSWER = f"See [g]({HOSTILE}) and [the landing]({WIKI}), also {BARE}: it is 35 km."


class Links(HTMLParser):
    """The targets of a page's links, and every attribute value."""

    def __init__(self, document: str) -> None:
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []
        self.values: list[str] = []
        self.feed(document)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.values += [value or "" for _, value in attrs]
        self.hrefs += [value or "" for name, value in attrs if tag == "a" and name == "href"]


def model(body: dict[str, Any]) -> Reply:
    if body["messages"][-1]["role"] == "tool":
        return text_reply(ANSWER)
    return tool_reply(("add", {"a": 1, "b": 2}))


def only_text_is_marked(document: str) -> None:
    links = Links(document)
    assert HOSTILE in links.hrefs and WIKI in links.hrefs
    assert not any("span" in href for href in links.hrefs)
    assert not any("ⁱ" in value for value in links.values)
    assert "35 km" in document  # the text's figure is still there, marked


async def test_a_figure_in_a_links_url_is_never_marked(tmp_path: Path) -> None:
    with FakeTelegram(scale=0.02) as tg, FakeModel(default=model) as fake:
        people(tg)
        async with serving(tg, fake, tmp_path / "g.sqlite3", tools=[Add()]) as web:
            asked = tg.send(ALICE, ALICE, "/ask how far?")
            final = await web.gb.answer_to(ALICE, asked)
            only_text_is_marked(final.raw)
            assert "35 kmⁱ" in final.text and f"{BARE}:" in final.text
            assert "not from any observation: 35 km\n" in final.text  # no URL's digits

            tg.send(ALICE, ALICE, "/board")
            await tg.wait(lambda: "/board/" in tg.bot_messages(ALICE)[-1].text)
            found = LINK.search(tg.bot_messages(ALICE)[-1].text)
            assert found is not None
            path = found[0]
            board = (await web.http.get(path + "/runs/1")).json()["html"]
            only_text_is_marked(board)
            assert 'class="figure-unbacked"' in board and BARE + ":" in board

            exported = tg.send(ALICE, ALICE, "/export 1")
            await tg.wait(lambda: bool(web.gb.replies_to(ALICE, exported)))
            document = web.gb.replies_to(ALICE, exported)[0].document
            assert document is not None
            page = document.content.decode("utf-8")
            only_text_is_marked(page)
            assert 'class="figure-unbacked"' in page and BARE + ":" in page


def test_the_renderers_mark_no_url_whatever_the_ledger_says() -> None:
    """A stored run's ledger may hold a URL's digits (runs kept before links were read
    apart, or a target the figure reader takes for text): the marks still stay out."""
    figures = [(ANSWER.index(text), text) for text in ("20", "1969", "2024", "35 km")]
    ledger = [Entry(at, at + len(text), text, Backing.UNBACKED) for at, text in figures]
    for drawn in (ledger_html(ANSWER, ledger, (), "en", md_to_html),
                  md_to_html(marked(ANSWER, ledger)),
                  md_to_html(marked(ANSWER, (), [text for _, text in figures]))):
        only_text_is_marked(drawn)
        assert "35 km" in drawn and "ⁱ" in drawn.split("35 km", 1)[1][:60]
        assert drawn.count("ⁱ") == 1
