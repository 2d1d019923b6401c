"""Text built to make a parser backtrack (long runs of spaces, tabs, `|`, `*`, `_`, backticks,
`[`, `(`, nested brackets, half-written styles and labels, behind prefixes that pick each
block rule), and the live render of a run made of it: the fault suite times each step over
it, the bench a whole render."""

from __future__ import annotations

from agent.events import RunFinished, Usage
from bot.view.markdown import md_spans
from bot.view.render import render_run
from bot.view.transcript import CallView, RoundView, Transcript

UNITS = [" ", "\t", " \t", "|", "| ", "*", "_", "`", "~", "[", "(", "[[]", "[a](", "[a](x",
         "[a](http://x ", "([", "**a", "*a ", "_a ", "a*", "a_b", "*_", "~~a", "`a", "\\*",
         "| -- ", "-- |", "# ", "#", "- ", "> ", "1. ", ":", "```a", "Thought", "Action ", ",",
         "a: b\n"]
PREFIXES = ["", "| ", "> ", "- ", "# ", "1. ", "```\n", "Thought", "Thought: ", "Action: x[",
            "<tool_call>", '{"name": ']


def hostile(n: int) -> list[str]:
    """Every unit repeated to n characters, behind each prefix in turn (and with none); and
    tables whose padding would grow with rows × columns (thousands of empty columns; a huge
    cell above thousands of rows)."""
    texts = []
    for i, unit in enumerate(UNITS):
        body = unit * (n // len(unit))
        texts.append(body)
        prefix = PREFIXES[1 + i % (len(PREFIXES) - 1)]
        texts.append((prefix + body)[:n])
        texts.append((prefix + "a" + body + "b")[:n])
    k = n // 5
    texts.append("|" * k + "\n" + "|-" * k + "\n" + "|\n" * k)
    texts.append("|a|b|\n|-|-|\n|" + "x" * (n // 2) + "|\n" + "|a|\n" * (n // 8))
    return texts


def transcript(text: str) -> Transcript:
    """A finished run whose thought, observation and answer are all `text`."""
    call = CallView("c1", "add", {"a": 1}, observation=text, ok=True, duration_ms=3)
    return Transcript(question="?", rounds=[RoundView(1, thought=text, calls=[call])],
                      answer=text, answer_final=True,
                      finished=RunFinished(round=1, status="done", usage=Usage(1, 1, 2),
                                           duration_ms=10, rounds=1, tool_calls=1))


def render_live(text: str) -> None:
    md_spans.cache_clear()
    render_run(transcript(text), "en", live=True)
