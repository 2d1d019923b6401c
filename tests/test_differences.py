"""/compare marks the digits that differ between the two answers' figures, in both answers:
underlined in the chat, `<mark>` on the board and in the export; figures both answers share
are not marked, and a draft is not marked until both answers are final."""

from __future__ import annotations

from agent.events import Answer, Event, RunFinished, RunStarted
from agent.grounding.figure_diff import differing
from bot.view.export import export_html
from bot.view.render import render_compare
from bot.view.transcript import Transcript
from tests.test_export import record

QUESTION = "What is 123456789 × 987654321?"
GUESS = "123456789 × 987654321 = **121,932,631,137,021,795**."
EXACT = "123456789 × 987654321 = **121,932,631,112,635,269**."


def lane(mode: str, answer: str, final: bool = True) -> list[Event]:
    events: list[Event] = [RunStarted(round=0, mode=mode, question=QUESTION, model="m")]
    if final:
        events += [Answer(round=1, text=answer),
                   RunFinished(round=1, status="done", rounds=1, duration_ms=10)]
    return events


def underlined(text: str) -> list[str]:
    """The underlined pieces of a Telegram HTML page, in order."""
    return [piece.split("</u>")[0] for piece in text.split("<u>")[1:]]


def test_the_pairs_and_their_differing_digits() -> None:
    (pair,) = differing(GUESS, EXACT)  # the question's own numbers pair with nothing
    assert (pair.left.text, pair.right.text) == ("121,932,631,137,021,795",
                                                 "121,932,631,112,635,269")
    assert "".join(GUESS[i] for i in pair.left_marks) == "37021795"
    assert "".join(EXACT[i] for i in pair.right_marks) == "12635269"
    (rough,) = differing("Roughly 17% of 2,480 is about 400.", "17% of 2,480 is 421.6.")
    assert (rough.left.text, rough.right.text) == ("400", "421.6")
    assert differing("It is 25 °C.", "It is 25 °C now.") == []



def test_a_figure_pairs_only_with_one_of_its_kind_and_unit() -> None:
    """What the local model wrote alone and with tools (tests/wire/local/judge/currency):
    the date was paired with the question's 100 dollars, which only the second answer
    repeats, and their digits marked as differing."""
    alone = ("As of my last update in October 2023, the current exchange rate from US "
             "dollars to Chinese yuan is approximately 6.71 yuan per dollar.")
    tools = "100 US dollars is equivalent to 729.94 Chinese yuan today."
    (pair,) = differing(alone, tools)
    assert (pair.left.text, pair.right.text) == ("6.71 yuan", "729.94")
    assert differing("It was 2023-10-01.", "It is 100.") == []  # a date and a number
    assert differing("About 700 yuan.", "About 100 dollars.") == []  # other units


def test_the_chat_underlines_the_digits_that_differ_in_both_answers() -> None:
    plain = Transcript.from_events(lane("plain", GUESS))
    react = Transcript.from_events(lane("react", EXACT))
    (page,) = render_compare(plain, react, "en", live=False)
    assert underlined(page) == ["37", "021", "795", "12", "635", "269"]
    assert "<b>121,932,631,1<u>37</u>,<u>021</u>,<u>795</u></b>" in page
    assert "<u>" not in page.split("121,932,631")[0]  # the question's figures are not marked

    drafting = Transcript.from_events(lane("react", EXACT, final=False)[:1])
    drafting.answer = EXACT  # streaming: no marks that could come and go
    (draft,) = render_compare(plain, drafting, "en")
    assert "<u>" not in draft


def test_a_single_digit_that_differs_is_marked_and_a_list_number_is_not() -> None:
    (pair,) = differing("The answer is 4.", "The answer is 5.")
    assert (pair.left.text, pair.right.text) == ("4", "5")
    plain = Transcript.from_events(lane("plain", "1. It takes 4 hours.\n2. Rest 1 day."))
    react = Transcript.from_events(lane("react", "1. It takes 5 hours.\n2. Rest 1 day."))
    (page,) = render_compare(plain, react, "en", live=False)
    assert underlined(page) == ["4", "5"]


def test_the_export_marks_them_too() -> None:
    events = {"plain": lane("plain", GUESS), "react": lane("react", EXACT)}
    page = export_html(record(mode="compare"), events, "en")
    assert ('121,932,631,1<mark class="differs">12</mark>,<mark class="differs">635</mark>,'
            '<mark class="differs">269</mark>') in page
    assert page.count('<mark class="differs">') == 6


def test_the_likest_figures_pair_first() -> None:
    """The local model alone wrote "0.125 × 3840 = 460" for 12.5% of 3840 (with tools: 480;
    tests/wire/local/judge/percent_zh): the rate came first and was paired with 480, and the
    judge was told "0.125 vs 480". 460 is the figure that differs."""
    alone = "\\( 12.5\\% \\) 的 \\( 3840 \\) 是：\n\n\\[ 0.125 \\times 3840 = 460 \\]"
    (pair,) = differing(alone, "12.5% 的 3840 是 480。")
    assert (pair.left.text, pair.right.text) == ("460", "480")
