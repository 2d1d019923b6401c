"""Every word the agent writes itself, in Chinese and English, and the one way to look it up.

One table of (zh, en) templates: what a tool says when it fails, Glassbox's notes and run
figures, what the terminal shows. `say()` fills values in as they are (so `{n:,}` formats a
number); the agent's words are plain text, and a front end escapes them as it does all text.
The language is the run's (agent.lang.run_lang), picked as agent.lang.pick does. The bot's
own words live in bot/view/i18n.py: the agent knows nothing of the bot.
"""

from __future__ import annotations

from typing import Any

from agent.lang import pick

_WORDS: dict[str, tuple[str, str]] = {
    # --- The tools' own words (agent/tools/) ---
    "http_redirect_elsewhere": ("{service} 返回了指向别处的重定向，未跟随。",
                                "{service} answered with a redirect elsewhere; not followed."),
    "http_too_many_redirects": ("{service} 重定向次数过多。",
                                "{service} answered with too many redirects."),
    "http_timed_out": ("{service} 没有及时响应，请稍后再试。",
                       "{service} did not answer in time. Try again later."),
    "http_not_reached": ("无法连接 {service}。", "Could not reach {service}."),
    "http_broke": ("与 {service} 的连接中断了。", "The connection to {service} broke."),
    "http_not_json": ("{service} 返回的内容无法解析（不是 JSON）。",
                      "{service} sent a reply that is not JSON."),
    "http_error": ("{service} 返回错误 {status}{detail}",
                   "{service} answered with error {status}{detail}"),
    "wiki_not_found": ("维基百科上没有找到与 “{query}” 相关的条目。",
                       "No Wikipedia article found for '{query}'."),
    "wiki_did_you_mean": ("（也许是：{suggestion}）", " (did you mean: {suggestion}?)"),
    "wiki_error": ("{service} 返回错误：{info}", "{service} answered with an error: {info}"),
    "wiki_no_article": ("维基百科条目 “{title}” 不存在或已被删除。",
                        "The Wikipedia article '{title}' was not found."),
    "wiki_head": ("维基百科（{wiki}）条目《{title}》", "Wikipedia ({wiki}) article '{title}'"),
    "wiki_about": ("：{about}", ": {about}"),
    "wiki_disambiguation": ("这是一个消歧义页，请换个更具体的说法。",
                            "This is a disambiguation page; a more specific query will help."),
    "wiki_others": ("其他相关条目：{titles}", "Other matches: {titles}"),
    "currency_rate": ("（汇率 1 {source} = {rate:g} {target}，欧洲央行 {date} 的参考汇率）",
                      " (rate 1 {source} = {rate:g} {target}, ECB reference rate of {date})"),
    "currency_no_rate": ("{service} 没有返回 {source}→{target} 的汇率。",
                         "{service} sent no {source}→{target} rate."),
    "currency_unknown": ("不支持的货币 “{currency}”。支持的货币：{codes}"
                         "（也可以用人民币、美元、欧元、日元、英镑、港币等名称）。",
                         "Unsupported currency '{currency}'. Supported: {codes}."),
    "weather_no_place": ("没有找到名为 “{city}” 的地方。", "No place named '{city}' found."),
    "weather_no_data": ("{service} 没有返回天气数据。", "{service} sent no weather data."),
    "clock_unknown_zone": ("不认识时区或地点 “{asked}”。"
                           "请用 IANA 时区名（如 Asia/Shanghai）或城市名。",
                           "Unknown time zone or place '{asked}'. Use an IANA name such as "
                           "Europe/London, or a city name."),
    "notes_nothing": ("课程笔记里没有找到与 “{query}” 相关的内容。",
                      "Nothing about '{query}' in the course notes."),
}


def say(lang: str, key: str, /, **values: Any) -> str:
    """The words `key` in `lang` (Chinese for any `zh…` code, else English), `values`
    filled in as they are."""
    return pick(lang, *_WORDS[key]).format(**values)
