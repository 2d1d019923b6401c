"""search_notes: the best passages of the course notes an instructor put in NOTES_DIR."""

from __future__ import annotations

from pydantic import BaseModel, Field

from agent.lang import clear_lang
from agent.tool import Source, Tool, ToolError
from agent.tools.args import QuestionLang, lang_of
from agent.tools.notes_index import NotesIndex, Passage
from agent.words import say

SHOWN_CHARS = 400
SHOWN = 3
LOOKED_AT = 9
"""How many of the best passages are weighed for the run's language, of which SHOWN go to
the model: a small model answered an English question from memory when the three best
passages for "ReAct" were the Chinese half of bilingual notes."""


def _show(passage: Passage) -> str:
    """`[lecture-3.pdf, p. 12 › Heading]` and the passage, so an answer can cite it."""
    where = f"{passage.path}, {passage.location}" if passage.location else passage.path
    where = f"{where} › {passage.heading}" if passage.heading else where
    body = passage.body if len(passage.body) <= SHOWN_CHARS else (
        passage.body[:SHOWN_CHARS].rstrip() + "…")
    return f"[{where}]\n{body}"


class SearchNotes(Tool):
    name = "search_notes"
    source = Source.READ_IN_NOTES
    description = (
        "Search the course notes the instructor shared for this class (on topics such as "
        "ReAct, chain-of-thought, function calling and tool use) and return the best "
        "3 passages with file name and heading. Use it first for questions about the course."
    )

    class Args(BaseModel):
        query: str = Field(description="Keywords to look for: the topic the question is "
                                       "about, in its own words.",
                           min_length=1, max_length=200)
        lang: QuestionLang = None

    def __init__(self, index: NotesIndex) -> None:
        self.index = index

    async def run(self, args: Args) -> str:
        lang = lang_of(args.lang, args.query)
        found = await self.index.search(args.query, limit=LOOKED_AT)
        # Notes often hold each topic in both languages: the run's go first, best first.
        passages = sorted(found, key=lambda p: clear_lang(p.body) not in (lang, None))[:SHOWN]
        if not passages:
            raise ToolError(say(lang, "notes_nothing", query=args.query)
                            + say(lang, "search_not_needed"))
        return "\n\n".join(_show(p) for p in passages)
