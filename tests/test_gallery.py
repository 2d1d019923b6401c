"""The gallery builds: every scenario plays in both languages, every state it drew is a page
Telegram accepts, each final state shows what the scenario is about, and (where Debian's
chromium is installed) its screens become pictures, the class board's among them: a
/compare's end shows both answers, their differing digits marked, and the judgement on one
1280×720 screen at the board's defaults.

The page these tests check is the one CI keeps: with GALLERY_PAGE set (`.ci/run` sets it to
build/gallery.html), it is written there, so the gallery is played once, not twice."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from gallery.board_picture import BoardShot
from gallery.draw import final_state, page
from gallery.pictures import take
from gallery.run import LANGS, Played, play_all
from gallery.scenarios import SCENARIOS
from testkit.fakes.telegram_html import parse_html


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def played(tmp_path_factory: pytest.TempPathFactory, chromium: Any | None) -> list[Played]:
    boards = tmp_path_factory.mktemp("boards") if chromium is not None else None
    return await play_all(delay=0.0, boards=boards, browser=chromium)


def board_of(played: list[Played], key: str, lang: str) -> BoardShot:
    [p] = [p for p in played if p.scenario.key == key and p.lang == lang]
    if p.board is None:
        pytest.skip("no /usr/bin/chromium: the board is not pictured")
    return p.board


def shown(played: Played) -> str:
    """The final state of the scenario's chat as a user reads it, message after message."""
    return "\n".join((f.document.file_name + "\n" if f.document else "")
                     + (parse_html(f.raw).text if f.parse_mode == "HTML" else f.raw)
                     for f in final_state(played.frames))


def test_every_scenario_plays_in_both_languages(played: list[Played]) -> None:
    assert [(p.scenario.key, p.lang) for p in played] == [
        (s.key, lang) for lang in LANGS for s in SCENARIOS]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("key", [s.key for s in SCENARIOS])
def test_each_final_state_shows_its_scenario(played: list[Played], key: str,
                                             lang: str) -> None:
    [p] = [p for p in played if p.scenario.key == key and p.lang == lang]
    assert any(f.from_bot for f in p.frames), "the bot said nothing"
    for frame in p.frames:
        if frame.parse_mode == "HTML":
            parse_html(frame.raw)  # every state drawn is one Telegram took
    text = shown(p)
    for piece in p.shot.expect:
        assert piece in text, (piece, text)
    last = [f for f in final_state(p.frames) if f.from_bot]
    assert not any("⏹" in b for f in last for row in f.buttons for b in row)  # all finished


async def test_the_page_draws_every_scenario_and_fetches_nothing(
        played: list[Played], tmp_path: Path, chromium: Any | None) -> None:
    html = page(played)
    for p in played:
        assert f'id="phone-{p.scenario.key}-{p.lang}"' in html
        assert f'id="desktop-{p.scenario.key}-{p.lang}"' in html
    assert "<script" not in html and not re.search(r'\ssrc="(?!data:)', html)
    out = Path(os.environ.get("GALLERY_PAGE", tmp_path / "gallery.html"))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(html, "utf-8")
    if chromium is None:
        pytest.skip("no /usr/bin/chromium: the pictures are not taken")
    pictures = await take(out, tmp_path / "pictures", ("phone-ask-en", "desktop-compare-zh"),
                          browser=chromium)
    assert [p.name for p in pictures] == ["ask-en-phone.png", "compare-zh-desktop.png"]
    assert all(p.read_bytes().startswith(b"\x89PNG") and p.stat().st_size > 10_000
               for p in pictures)


@pytest.mark.parametrize("lang", LANGS)
def test_the_board_shows_a_compare_end_on_one_screen(played: list[Played], lang: str) -> None:
    board = board_of(played, "compare", lang)
    assert board.path.name == f"compare-{lang}-board.png"
    assert board.path.read_bytes().startswith(b"\x89PNG")
    assert board.outside == ()  # both answers and the judgement inside 1280×720
    assert "121,932,631,137,021,795" in board.text and "121,932,631,112,635,269" in board.text
    assert "⚖️" in board.text
    # 137,021,795 against 112,635,269: every digit of the last nine but the first one
    assert "".join(d for lane, d in board.marked if lane == "react") == "12635269"
    assert "".join(d for lane, d in board.marked if lane == "plain") == "37021795"


@pytest.mark.parametrize("lang", LANGS)
def test_the_board_shows_a_tool_failure(played: list[Played], lang: str) -> None:
    board = board_of(played, "tool-failure", lang)
    assert board.path.name == f"tool-failure-{lang}-board.png"
    assert "get_weather" in board.text and "Atlantis" in board.text
    assert ("I could not find a place called Atlantis" if lang == "en"
            else "我找不到叫 Atlantis 的地方") in board.text


@pytest.mark.parametrize("lang", LANGS)
def test_the_board_shows_two_places_compared_in_one_lookup(played: list[Played],
                                                           lang: str) -> None:
    board = board_of(played, "two-places", lang)
    assert board.path.name == f"two-places-{lang}-board.png"
    assert board.outside == ()  # the lookup, the comparison and the answer on one screen
    assert "get_weather" in board.text and "2.3 °C" in board.text and "21.4 °C" in board.text
    assert ("Now Berlin (2.3 °C) is colder than Paris (21.4 °C)" if lang == "en"
            else "现在Berlin（2.3 °C）比Paris（21.4 °C）冷") in board.text


@pytest.mark.parametrize("lang", LANGS)
def test_the_board_shows_a_quiz_with_the_class_votes(played: list[Played], lang: str) -> None:
    board = board_of(played, "quiz", lang)
    assert board.path.name == f"quiz-{lang}-board.png"
    assert "🗳" in board.text and "36.1 °F" in board.text
    assert ("6 votes" if lang == "en" else "6 票") in board.text
    assert ("answer directly (no tool)" if lang == "en" else "直接回答（不调用工具）") in board.text


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("key", "shown"), [
    ("photo", {"en": ("📷 Read from the photo (Glassbox, OCR)", "average speed"),
               "zh": ("📷 从照片中读出的文字（Glassbox，OCR）", "平均速度")}),
    ("voice", {"en": ("🎤 Heard in the voice message (Glassbox, Whisper)",
                      "Is it raining in Shanghai"),
               "zh": ("🎤 从语音中听到的话（Glassbox，Whisper）", "上海明天会下雨")})])
def test_the_board_shows_what_was_read_or_heard_above_the_first_round(
        played: list[Played], key: str, shown: dict[str, tuple[str, str]], lang: str) -> None:
    board = board_of(played, key, lang)
    assert board.outside == ()  # what was read or heard inside 1280×720
    label, words = shown[lang]
    first_round = board.text.index("ROUND 1" if lang == "en" else "第 1 轮")
    assert board.text.index(words, board.text.index(label)) < first_round


@pytest.mark.parametrize("lang", LANGS)
def test_the_course_page_after_the_lecture(played: list[Played], lang: str) -> None:
    """The course page at 1280×720 once the lecture's examples ran: the class's figures."""
    page = board_of(played, "stats", lang)
    assert page.path.name == f"stats-{lang}-course.png"
    assert page.path.read_bytes().startswith(b"\x89PNG")
    assert "/compare" in page.text and "/quiz" in page.text


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("key", ["compare-runs", "rerun", "compare-models"])
def test_the_board_shows_two_runs_side_by_side(played: list[Played], key: str,
                                               lang: str) -> None:
    board = board_of(played, key, lang)
    assert board.outside == ()  # both answers inside 1280×720
    assert {lane for lane, _ in board.marked} == {"left", "right"}  # digits marked in both
    assert "📊 " in board.text and "⚡" not in board.text  # the chains folded at the end
    if key == "compare-models":
        assert "📊 local → qwen-plus" in board.text and "⚖️" in board.text
        assert ("🤖 local · with tools" if lang == "en" else "🤖 local · 使用工具") in board.text
