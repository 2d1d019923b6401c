"""/compare's difference line: one short, temperature-0 model call, once both answers are in,
that says whether they agree and what the tools contributed.

It is the model's judgement, and front ends label it so. A call that fails, or says nothing,
gives no line: the cost figures alone stay.
"""

from __future__ import annotations

import logging

from agent.events import Judgement, Usage
from agent.lang import pick
from agent.model import ModelClient, complete
from agent.model_errors import ModelError

log = logging.getLogger(__name__)

MAX_WORDS = 60
MAX_CHINESE_CHARS = 120
"""The Chinese cap: about as much to read as 60 English words."""
ANSWER_CHARS = 2000
"""Each answer is cut to this many characters in the prompt: the gist is at the start."""
JUDGE_MARK = "You compare two answers to one question."
"""The opening of the judge's system prompt (the test model server routes by it)."""
JUDGE_SYSTEM = JUDGE_MARK + (
    " The first answer is by a language model alone; the second is by the same model using"
    " tools (it could look things up and calculate). In one or two sentences, at most"
    " {words} words, written in {language}, say whether the answers agree and what the tools"
    " contributed: a fact or number looked up, an exact calculation, a correction, or nothing."
    " Name the figures that differ. No preamble, no Markdown.")


async def judge(question: str, plain_answer: str, react_answer: str, *, client: ModelClient,
                lang: str) -> Judgement | None:
    """The difference line for two finished answers, in `lang`, or None (logged) if the call
    failed or gave nothing."""
    system = JUDGE_SYSTEM.format(words=MAX_WORDS, language=pick(lang, "Chinese", "English"))
    user = (f"Question:\n{question}\n\nAnswer without tools:\n{plain_answer[:ANSWER_CHARS]}"
            f"\n\nAnswer with tools:\n{react_answer[:ANSWER_CHARS]}")
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    try:
        done = await complete(client, messages, temperature=0, max_tokens=200)
    except ModelError as err:
        log.warning("no compare judgement: the call failed: %s", err)
        return None
    text = capped(" ".join((done.content if done else "").split()), lang)
    if not text:
        return None
    return Judgement(round=0, text=text, usage=done.usage if done else Usage())


def capped(text: str, lang: str) -> str:
    """`text` within the line's length: MAX_WORDS words, or MAX_CHINESE_CHARS characters
    for Chinese, with an ellipsis where it was cut."""
    if lang.startswith("zh") and len(text) > MAX_CHINESE_CHARS:
        return text[: MAX_CHINESE_CHARS - 1] + "…"
    words = text.split(" ")
    if len(words) > MAX_WORDS:
        return " ".join(words[:MAX_WORDS]) + "…"
    return text
