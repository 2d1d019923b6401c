"""The model's Markdown shows as Telegram formatting, never as raw asterisks or hashes."""

from __future__ import annotations

import pytest

from bot.view.markdown import md_to_html
from testkit.fakes.telegram_html import parse_html

RICH = """# Weather report
Today is **sunny** and *warm*, with __light__ wind and _no_ rain.
~~Snow~~ is not expected; see [the forecast](https://open-meteo.com/en/docs?a=1&b=2).

## Steps
1. Look up `weather(city="Hangzhou")`
2. Convert with **`25*9/5+32`**

- first
  - nested *item*
* star bullet

> Quoted **line**
> second line

```python
def f(x):
    return x ** 2  # <b> stays text
```

| City | °C |
|------|---:|
| Hangzhou | **25** |

---
Done: snake_case_name, 2 * 3 * 4, and a_b_c.
"""


@pytest.mark.parametrize(("source", "expected"), [
    ("**bold** and __bold__", "<b>bold</b> and <b>bold</b>"),
    ("*italic* and _italic_", "<i>italic</i> and <i>italic</i>"),
    ("***both***", "<b><i>both</i></b>"),
    ("**bold *and italic* inside**", "<b>bold <i>and italic</i> inside</b>"),
    ("~~gone~~", "<s>gone</s>"),
    ("use `x < y && z`", "use <code>x &lt; y &amp;&amp; z</code>"),
    ("``a ` b``", "<code>a ` b</code>"),
    ("**`code`**", "<code>code</code>"),
    ("# Title", "<b>Title</b>"),
    ("### Closed heading ###", "<b>Closed heading</b>"),
    ("# **Bold** title", "<b>Bold title</b>"),
    ("- a\n- b", "• a\n• b"),
    ("  - nested", "  ◦ nested"),
    ("1. one\n2) two", "1. one\n2. two"),
    ("> a\n> b\n\nc", "<blockquote>a\nb</blockquote>\n\nc"),
    ("```js\nlet a = 1 < 2;\n```", '<pre><code class="language-js">let a = 1 &lt; 2;</code></pre>'),
    ("```\nplain\n```", "<pre>plain</pre>"),
    ("```md\n```python\nx\n````", '<pre><code class="language-md">```python\nx</code></pre>'),
    ("1. Run:\n   ```sh\n   ls -l\n     cd\n   ```\n2. Done",
     '1. Run:\n<pre><code class="language-sh">ls -l\n  cd</code></pre>\n2. Done'),
    ("[site](https://example.com/a_(b))", '<a href="https://example.com/a_(b)">site</a>'),
    ('[q](https://x.org/?a="1")', '<a href="https://x.org/?a=&quot;1&quot;">q</a>'),
    ("[**bold** link](tg://resolve?domain=x)",
     '<a href="tg://resolve?domain=x"><b>bold</b> link</a>'),
    ("| a | b |\n|---|---|\n| 1 | 2 |", "<pre>a | b\n--+--\n1 | 2</pre>"),
    ("---", "──────────"),
    (r"\*not italic\*", "*not italic*"),
])
def test_markdown_becomes_telegram_html(source: str, expected: str) -> None:
    assert md_to_html(source) == expected


@pytest.mark.parametrize("source", [
    "snake_case_name and a_b_c",
    "2 * 3 * 4 = 24",
    "a ** b",
    "price: 5 * 2",
    "[javascript](javascript:alert(1))",
    "[file](file:///etc/passwd)",
])
def test_text_that_only_looks_like_markdown_stays_as_written(source: str) -> None:
    assert parse_html(md_to_html(source)).text == source


def test_a_rich_answer_leaves_no_raw_markdown_and_parses() -> None:
    page = md_to_html(RICH)
    text = parse_html(page).text

    assert "x ** 2  # <b> stays text" in text  # code keeps its asterisks, escaped
    outside_code = text.replace("x ** 2", "")
    for raw in ("**", "__", "##", "```", "~~", "](", "|---"):
        assert raw not in outside_code
    assert "Hangzhou | 25" in text
    assert '<a href="https://open-meteo.com/en/docs?a=1&amp;b=2">the forecast</a>' in page


def test_every_prefix_of_a_streamed_answer_is_balanced_html() -> None:
    for end in range(len(RICH) + 1):
        parse_html(md_to_html(RICH[:end]))  # raises if Telegram would refuse it


def test_an_unclosed_bold_in_a_finished_answer_shows_as_written() -> None:
    assert md_to_html("It is **sun") == "It is **sun"


@pytest.mark.parametrize(("draft", "shown"), [
    ("It is **sun", "It is sun"),
    ("It is **", "It is "),
    ("Run `ls -", "Run ls -"),
    ("a *b* and _c", "a <i>b</i> and c"),
    ("see [the forecast](https://open-me", "see the forecast"),
    ("see [the fore", "see the fore"),
    ("**done** line\nand **op", "<b>done</b> line\nand op"),
    ("2 * 3 = 6, snake_case", "2 * 3 = 6, snake_case"),
])
def test_a_draft_never_shows_the_markup_of_a_span_not_yet_closed(draft: str, shown: str) -> None:
    assert md_to_html(draft, draft=True) == shown


def test_every_prefix_of_a_streamed_draft_shows_no_raw_markers() -> None:
    source = "Today is **sunny** and *warm*; see `weather()` and [docs](https://x.org/a)."
    for end in range(len(source) + 1):
        text = parse_html(md_to_html(source[:end], draft=True)).text
        for raw in ("**", "`", "](", "[d"):
            assert raw not in text, (source[:end], text)


def test_a_table_is_an_aligned_code_block_with_cjk_counted_double() -> None:
    source = ("| City | °C | 天气 |\n|---|---:|:-:|\n| Hangzhou | **25** | 晴天多云 |\n"
              "| 北京 | 3 | 雪 |\nafter")
    assert md_to_html(source) == (
        "<pre>City     | °C |   天气\n"
        "---------+----+---------\n"
        "Hangzhou | 25 | 晴天多云\n"
        "北京     |  3 |    雪</pre>\nafter")


def test_unclosed_code_fence_mid_stream_opens_a_code_block() -> None:
    assert md_to_html("Run:\n```python\nprint(1)\nprint(") == (
        'Run:\n<pre><code class="language-python">print(1)\nprint(</code></pre>')


@pytest.mark.parametrize("hostile", [
    "<b>bold?</b>",
    "</blockquote></pre></code>",
    "&amp; &lt; & < > &#x41;",
    '<a href="javascript:alert(1)">x</a>',
    "unclosed <b tag and ``` and ` and **",
    "<blockquote>\n> inner\n</blockquote>",
])
def test_hostile_html_and_markdown_are_shown_literally(hostile: str) -> None:
    text = parse_html(md_to_html(hostile)).text

    for word in ("<b", "</blockquote>", "&amp;", "&#x41;", "javascript"):
        if word in hostile:
            assert word in text


def test_right_to_left_zero_width_and_emoji_text_pass_through() -> None:
    source = "مرحبا **بالعالم**\u200f \u202eevil\u202c zero\u200bwidth 👨‍👩‍👧 🇨🇳"

    parsed = parse_html(md_to_html(source))

    assert parsed.text == source.replace("**", "")
    assert parsed.tags == ("b",)
