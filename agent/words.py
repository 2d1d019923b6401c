"""Every word the agent writes itself, in Chinese and English, and the one way to look it up.

One table of (zh, en) templates: what a tool says when it fails, Glassbox's notes and run
figures, what the terminal shows. `say()` fills values in as they are (so `{n:,}` formats a
number); the agent's words are plain text, and a front end escapes them as it does all text.
The language is the run's (agent.lang.run_lang), picked as agent.lang.pick does. The bot's
own words live in bot/view/i18n.py: the agent knows nothing of the bot.
"""

from __future__ import annotations

from typing import Any

from agent.lang import counted, pick

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
    # --- Calling tools (agent/tool_calls.py) and a person's edit of a call (agent/confirm.py) ---
    "call_bad_json": ("参数不是合法的 JSON：{error}", "The arguments are not valid JSON: {error}"),
    "call_not_object": ("参数必须是一个 JSON 对象。", "The arguments must be a JSON object."),
    "call_unknown_tool": ("没有名为 “{name}” 的工具。可用的工具：{names}。"
                          "如果这个问题不需要工具，现在就直接回答。",
                          "There is no tool named '{name}'. Available tools: {names}. "
                          "If the question needs no tool, answer it now."),
    "invalid_arguments": ("{tool} 的参数无效：{problems}",
                          "Invalid arguments for {tool}: {problems}"),
    "call_timed_out": ("{name} 超时（超过 {seconds:g} 秒）。",
                       "{name} timed out after {seconds:g} s."),
    "call_failed": ("{name} 出错：{error}", "{name} failed: {error}"),
    "call_cut": ("…（另有 {cut} 个字符已省略）", "… ({cut} more characters cut)"),
    "edit_no_tool": ("没有这个工具，不能修改参数。",
                     "There is no such tool, so its arguments cannot be edited."),
    "edit_bad_json": ("不是合法的 JSON：{error}", "Not valid JSON: {error}"),
    "edit_too_deep": ("JSON 嵌套太深了。", "The JSON is nested too deeply."),
    "edit_not_object": ("必须是一个 JSON 对象。", "It must be a JSON object."),
    "edit_how": ("请用 JSON 或 key=value 的形式写出参数（{names}）。",
                 "Write the arguments as JSON or as key=value pairs ({names})."),
    "stopped_by": ("已被 {by} 停止。", "Stopped by {by}."),
    "skipped_by": ("已被 {by} 跳过（未执行）。", "skipped by {by}"),
    # --- How a run ended (agent/run_task.py), why a model call failed (model_errors.py) ---
    "run_stopped": ("已停止。", "Stopped."),
    "run_internal_error": ("Glassbox 内部出错了，请再试一次。",
                           "Glassbox hit an internal error. Please try again."),
    "model_auth": ("模型服务拒绝了 API 密钥，请联系机器人管理员检查配置。",
                   "The model service rejected the API key. Please ask the bot's operator to "
                   "check it."),
    "model_quota": ("模型服务的额度已用完，请联系机器人管理员。",
                    "The model service's quota is used up. Please tell the bot's operator."),
    "model_rate_limit": ("模型服务现在太忙（请求过多），请稍后再试。",
                         "The model service is busy right now (too many requests). "
                         "Please try again soon."),
    "model_server": ("模型服务出错了，请稍后再试。",
                     "The model service had an error. Please try again in a moment."),
    "model_timeout": ("模型服务响应超时，请稍后再试。",
                      "The model service took too long to answer. Please try again."),
    "model_connection": ("无法连接到模型服务，请稍后再试。",
                         "Could not reach the model service. Please try again in a moment."),
    "model_moderation": ("模型服务的内容审核拦截了这个问题或回答，请换个说法。",
                         "The model service's content filter blocked this question or its "
                         "answer. Please rephrase it."),
    "model_context_length": ("对话太长，超出了模型的上下文长度，请开始一个新问题。",
                             "The conversation is too long for the model. Please start a new "
                             "question."),
    "model_model_not_found": ("找不到配置的模型，请联系机器人管理员检查 LLM_MODEL。",
                              "The configured model was not found. Please ask the operator to "
                              "check LLM_MODEL."),
    "model_tools_unsupported": ("这个模型服务不支持工具调用。",
                                "This model endpoint does not support tool calling."),
    "model_bad_request": ("模型服务拒绝了这个请求，请换个问法再试。",
                          "The model service rejected the request. Please try rephrasing."),
    "model_incomplete": ("模型的回答中途断开了，请再试一次。",
                         "The model's reply was cut off. Please try again."),
    "model_empty": ("模型返回了空回答，请再试一次。",
                    "The model returned an empty reply. Please try again."),
    # --- Glassbox's notes in a chain (agent/remarks.py, lookups.py, echoed_errors.py) ---
    "note_label": ("由 Glassbox 补写", "Written by Glassbox"),
    "list_sep": ("、", ", "),
    "more_tools": ("另外 {more} 个工具", "{more} more tools"),
    "note_no_reasoning_calls": ("模型没有写出思考过程，直接调用了 {tools}。",
                                "the model wrote no reasoning; it called {tools}."),
    "note_no_reasoning_no_tool": ("模型没有写出思考过程，也没有使用工具，直接作答。",
                                  "the model wrote no reasoning and used no tool before "
                                  "answering."),
    "note_no_reasoning": ("模型作答前没有写出思考过程。",
                          "the model wrote no reasoning before answering."),
    "note_forced_repeated": ("模型第三次发出同样的调用，Glassbox 停止了工具，"
                             "请它根据已有观察作答。",
                             "the model made the same call a third time, so Glassbox stopped "
                             "the tools and asked it to answer from what it observed."),
    "note_forced_rounds": ("已用完 {rounds} 轮工具调用的上限，Glassbox 请模型不用工具、"
                           "根据已有观察作答。",
                           "the model used all {rounds} tool rounds, so Glassbox asked it to "
                           "answer from what it observed, without tools."),
    "sides_missing": ("还没有查：{names}。这个问题在比较它们：作答前请先逐一查询。",
                      "Not looked up yet: {names}. The question compares them: look each "
                      "one up before you answer."),
    "note_side_not_looked_up": ("没有查过 {names}：回答里关于它的内容没有观察结果作依据。",
                                "{names} was not looked up: what the answer says of it rests "
                                "on no observation."
                                "| {names} were not looked up: what the answer says of them "
                                "rests on no observation."),
    "note_lookups_failed": ("这些查询失败了：{calls}。", "these lookups failed: {calls}."),
    "note_not_looked_up": ("回答里的 {figures} 不是查到的。",
                           " The answer's {figures} was not looked up."
                           "| The answer's {figures} were not looked up."),
    "echo_no_answer": ("没有得到回答：{call} 出错了，模型只是重复了这个错误，没有作答。"
                       "可以换个说法再问一次。",
                       "No answer: {call} gave an error, and the model repeated that error "
                       "instead of answering. Try asking in other words."),
    "echo_note": ("模型的回答只是重复了上面 {call} 的错误信息，所以 Glassbox 不把它当作回答。",
                  "the model's answer only repeated the error of {call} above, so Glassbox "
                  "does not show it as the answer."),
    # --- A run's figures (agent/summary.py); a count's English holds singular|plural ---
    "figures_ms": ("{ms} 毫秒", "{ms} ms"),
    "figures_s": ("{s:,.1f} 秒", "{s:,.1f} s"),
    "figures_rounds": ("{n:,} 轮", "{n:,} round|{n:,} rounds"),
    "figures_tokens": ("{n:,} token", "{n:,} token|{n:,} tokens"),
    "figures_tool_calls": ("{n:,} 次工具调用", "{n:,} tool call|{n:,} tool calls"),
    "difference": ("无工具 → ReAct：{parts}", "No tools → ReAct: {parts}"),
    "difference_rounds": ("轮数 {pair}", "rounds {pair}"),
    "difference_tool_calls": ("工具调用 {pair}", "tool calls {pair}"),
    "difference_seconds": ("用时（秒）{pair}", "seconds {pair}"),
    "difference_tokens": ("token {pair}", "tokens {pair}"),
    # --- The terminal (agent/cli.py, agent/terminal_confirm.py) ---
    "cli_thought": ("💭 思考：", "💭 Thought: "),
    "cli_answer": ("💬 回答：", "💬 Answer: "),
    "cli_thought_above": ("↑ 💭 思考", "↑ 💭 Thought"),
    "cli_answer_above": ("↑ 💬 回答", "↑ 💬 Answer"),
    "cli_round": ("── 第 {round} 轮 ──", "── Round {round} ──"),
    "cli_plan": ("📋 计划", "📋 Plan"),
    "cli_note": ("📝 {label}：", "📝 {label}: "),
    "cli_proposed": ("⏸ 提议：", "⏸ Proposed: "),
    "cli_observation": ("👀 观察", "👀 Observation"),
    "cli_judgement": ("⚖️ 模型的评判：", "⚖️ The model's judgement: "),
    "decided_nobody": ("无人", "nobody"),
    "decided_edit": ("✏️ {by} 修改为 ", "✏️ edited by {by}: "),
    "decided_run": ("▶ {by} 确认执行", "▶ run by {by}"),
    "decided_skip": ("⏭ {by} 跳过", "⏭ skipped by {by}"),
    "decided_stop": ("⏹ {by} 停止", "⏹ stopped by {by}"),
    "terminal_choose": ("⏸ {call}  执行/修改/跳过/停止 [r/e/s/q] ",
                        "⏸ {call}  run/edit/skip/stop [r/e/s/q] "),
    "terminal_no_input": ("没有输入，运行已停止。", "No input, so the run stopped."),
    "terminal_new_arguments": ("新参数（JSON、key=value 或值；空行返回）：",
                               "New arguments (JSON, key=value or the value; empty: back): "),
    # --- Asking the model for a conversation's summary (agent/history_summary.py) ---
    "summary_earlier": ("此前的摘要：{summary}", "Summary so far: {summary}"),
    "summary_turn": ("问：{question}\n答：{answer}", "Q: {question}\nA: {answer}"),
    "summary_ask": ("用不超过 {words} 字概括下面这段对话，保留事实、数字和结论：",
                    "Summarise this conversation in at most {words} words, keeping the facts, "
                    "figures and conclusions:"),
}


def say(lang: str, key: str, /, **values: Any) -> str:
    """The words `key` in `lang` (Chinese for any `zh…` code, else English), `values`
    filled in as they are."""
    return pick(lang, *_WORDS[key]).format(**values)


def count(lang: str, key: str, n: int, /, **values: Any) -> str:
    """The words `key` for a count `n` ("1 tool call", "1,280 tool calls": agent.lang.counted)."""
    return counted(pick(lang, *_WORDS[key]), n).format(n=n, **values)
