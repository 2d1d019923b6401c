"""search_wikipedia: MediaWiki search, then the REST summary of the best hit.

The Wikipedia in the question's language is searched; the observation names the
article, gives its short description and the start of its summary, and its address.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from pydantic import BaseModel, Field

from agent.tool import Tool, ToolError, UpstreamError
from agent.tools.args import QuestionLang, lang_of
from agent.tools.upstream import get_json
from agent.words import say
from wire.tools_client import HttpClient

SERVICE = "Wikipedia"
MAX_EXTRACT = 600
# zh.wikipedia mixes scripts; the REST API converts to the variant asked for.
_VARIANT = {"zh": "zh-cn", "en": "en"}


def cut(text: str, limit: int = MAX_EXTRACT) -> str:
    """`text` up to `limit` characters, ended at a sentence if one ends late enough."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    head = text[:limit]
    end = max(head.rfind(mark) for mark in (". ", "。", "！", "？", "! ", "? "))
    return head[: end + 1] if end > limit // 2 else head.rstrip() + "…"


class SearchWikipedia(Tool):
    name = "search_wikipedia"
    description = (
        "Look up a topic on Wikipedia and return the summary of the best matching article. "
        "Use it for facts about people, places, events, concepts and definitions."
    )

    class Args(BaseModel):
        query: str = Field(description="What to look up: a name or a few keywords, "
                                       "e.g. 'Ayrton Senna', '图灵测试'.",
                           min_length=1, max_length=200)
        lang: QuestionLang = None

    def __init__(self, http: HttpClient, api_url: str, rest_url: str) -> None:
        self.http = http
        self.api_url = api_url
        self.rest_url = rest_url

    async def run(self, args: Args) -> str:
        lang = lang_of(args.lang, args.query)
        titles, suggestion = await self._search(args.query.strip(), lang)
        if not titles:
            hint = say(lang, "wiki_did_you_mean", suggestion=suggestion) if suggestion else ""
            raise ToolError(say(lang, "wiki_not_found", query=args.query) + hint
                            + say(lang, "search_not_needed"))
        summary = await self._summary(titles[0], lang)
        return self._observation(summary, titles, lang)

    async def _search(self, query: str, lang: str) -> tuple[list[str], str]:
        data = await get_json(self.http, self.api_url.replace("{lang}", lang), {
            "action": "query", "list": "search", "srsearch": query, "srlimit": 3,
            "format": "json", "utf8": 1,
        }, service=SERVICE, lang=lang)
        data = _dict(data)
        error = data.get("error")
        if isinstance(error, dict):  # MediaWiki reports errors with HTTP 200
            info = str(error.get("info") or error.get("code") or "?")[:200]
            raise UpstreamError(say(lang, "wiki_error", service=SERVICE, info=info))
        found = _dict(data.get("query"))
        hits = found.get("search") if isinstance(found.get("search"), list) else []
        titles = [h["title"] for h in hits
                  if isinstance(h, dict) and isinstance(h.get("title"), str)]
        suggestion = _dict(found.get("searchinfo")).get("suggestion")
        return titles, suggestion if isinstance(suggestion, str) else ""

    async def _summary(self, title: str, lang: str) -> dict[str, Any]:
        page = quote(title.replace(" ", "_"), safe="")
        url = f"{self.rest_url.replace('{lang}', lang).rstrip('/')}/page/summary/{page}"
        try:
            data = await get_json(self.http, url, {}, service=SERVICE, lang=lang,
                                  headers={"Accept-Language": _VARIANT[lang]})
        except UpstreamError as err:
            if err.status == 404:
                raise ToolError(say(lang, "wiki_no_article", title=title)) from None
            raise
        return _dict(data)

    def _observation(self, summary: dict[str, Any], titles: list[str], lang: str) -> str:
        title = summary.get("title") if isinstance(summary.get("title"), str) else titles[0]
        about = summary.get("description")
        head = say(lang, "wiki_head", wiki=lang, title=title)
        if isinstance(about, str) and about:
            head += say(lang, "wiki_about", about=about)
        lines = [head]
        if summary.get("type") == "disambiguation":
            lines.append(say(lang, "wiki_disambiguation"))
        extract = summary.get("extract")
        if isinstance(extract, str) and extract.strip():
            lines.append(cut(extract))
        others = [t for t in titles[1:] if t != title]
        if others:
            lines.append(say(lang, "wiki_others", titles=", ".join(others)))
        page = _dict(_dict(summary.get("content_urls")).get("desktop")).get("page")
        if isinstance(page, str):
            lines.append(page)
        return "\n".join(lines)


def _dict(value: Any) -> dict[str, Any]:
    """`value` if it is a JSON object, else an empty one (upstreams change shape)."""
    return value if isinstance(value, dict) else {}
