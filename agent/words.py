"""Every word the agent writes itself, in Chinese and English, and the one way to look it up.

One table of (zh, en) templates: what the loop tells the model, what a tool says (and
how it fails), Glassbox's notes and run figures, what the terminal shows. `say()` fills
values in as they are (so `{n:,}` formats a number); the agent's words are plain text, and a
front end escapes them as it does all text.
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
    "weather_sep": ("，", ", "),
    "weather_coldest_first": ("现在气温从低到高：{places}。最冷的是{coldest}，最暖的是{warmest}。",
                              "Now, from coldest to warmest: {places}. The coldest is "
                              "{coldest}, the warmest {warmest}."),
    "weather_colder_warmer": ("现在{cold}（{cold_t}）比{warm}（{warm_t}）冷，{warm}比{cold}暖和。",
                              "Now {cold} ({cold_t}) is colder than {warm} ({warm_t}), and "
                              "{warm} is warmer than {cold}."),
    "weather_same": ("现在气温相同：{places}。", "The same temperature now: {places}."),
    "weather_now": ("现在 {value}", "now {value}"),
    "weather_feels": ("体感 {value}", "feels like {value}"),
    "weather_humidity": ("湿度 {value}", "humidity {value}"),
    "weather_wind": ("风速 {value}", "wind {value}"),
    "weather_high": ("最高 {value}", "high {value}"),
    "weather_low": ("最低 {value}", "low {value}"),
    "weather_rain": ("降水概率 {value}", "chance of rain {value}"),
    "weather_local_time": ("{name}（当地时间 {when}）", "{name} (local time {when})"),
    "weather_head": ("{head}：", "{head}:"),
    "weather_today": ("今天：{value}", "today: {value}"),
    "clock_where": ("{asked}（{label}）", "{asked} ({label})"),
    "clock_now": ("{where}：{now.year}年{now.month}月{now.day}日 {weekday} {now:%H:%M}（{offset}）",
                  "{where}: {weekday}, {now:%Y-%m-%d %H:%M} ({offset})"),
    "clock_ahead": ("{place}比{other}早 {hours}。", "{place} is {hours} ahead of {other}."),
    "clock_behind": ("{place}比{other}晚 {hours}。", "{place} is {hours} behind {other}."),
    "clock_hours": ("{n} 小时", "{n} hours"),
    "clock_hour": ("{n} 小时", "{n} hour"),
    "clock_same": ("{place}和{other}的时间相同。", "{place} and {other} have the same time."),
    "weekday_0": ("星期一", "Monday"),
    "weekday_1": ("星期二", "Tuesday"),
    "weekday_2": ("星期三", "Wednesday"),
    "weekday_3": ("星期四", "Thursday"),
    "weekday_4": ("星期五", "Friday"),
    "weekday_5": ("星期六", "Saturday"),
    "weekday_6": ("星期日", "Sunday"),
    "clock_unknown_zone": ("不认识时区或地点 “{asked}”。"
                           "请用 IANA 时区名（如 Asia/Shanghai）或城市名。",
                           "Unknown time zone or place '{asked}'. Use an IANA name such as "
                           "Europe/London, or a city name."),
    "notes_nothing": ("课程笔记里没有找到与 “{query}” 相关的内容。",
                      "Nothing about '{query}' in the course notes."),
    "search_not_needed": ("如果问题是问候、感谢或请你给建议，就不需要查找：现在直接给出你自己的回答"
                          "（你自己的建议、你自己的问候）。",
                          " If the question greets you, thanks you or asks for advice, no "
                          "lookup is needed: give your own answer now (your own advice, your "
                          "own greeting)."),
    # --- The WMO weather codes Open-Meteo reports (get_weather); the English as in the
    # Open-Meteo docs table (tests/wire/open-meteo/wmo_weather_codes.json) ---
    "wmo_0": ("晴", "clear sky"),
    "wmo_1": ("大致晴朗", "mainly clear"),
    "wmo_2": ("局部多云", "partly cloudy"),
    "wmo_3": ("阴", "overcast"),
    "wmo_45": ("雾", "fog"),
    "wmo_48": ("雾凇", "depositing rime fog"),
    "wmo_51": ("小毛毛雨", "light drizzle"),
    "wmo_53": ("中毛毛雨", "moderate drizzle"),
    "wmo_55": ("大毛毛雨", "dense drizzle"),
    "wmo_56": ("轻度冻毛毛雨", "light freezing drizzle"),
    "wmo_57": ("重度冻毛毛雨", "dense freezing drizzle"),
    "wmo_61": ("小雨", "slight rain"),
    "wmo_63": ("中雨", "moderate rain"),
    "wmo_65": ("大雨", "heavy rain"),
    "wmo_66": ("轻度冻雨", "light freezing rain"),
    "wmo_67": ("重度冻雨", "heavy freezing rain"),
    "wmo_71": ("小雪", "slight snow fall"),
    "wmo_73": ("中雪", "moderate snow fall"),
    "wmo_75": ("大雪", "heavy snow fall"),
    "wmo_77": ("米雪", "snow grains"),
    "wmo_80": ("小阵雨", "slight rain showers"),
    "wmo_81": ("中阵雨", "moderate rain showers"),
    "wmo_82": ("强阵雨", "violent rain showers"),
    "wmo_85": ("小阵雪", "slight snow showers"),
    "wmo_86": ("大阵雪", "heavy snow showers"),
    "wmo_95": ("雷暴", "thunderstorm"),
    "wmo_96": ("雷暴伴小冰雹", "thunderstorm with slight hail"),
    "wmo_99": ("雷暴伴大冰雹", "thunderstorm with heavy hail"),
    "wmo_unknown": ("天气代码 {code}", "weather code {code}"),
    # --- The calculator's refusals (agent/tools/calculator.py) ---
    "calc_how_to_write": ("写法示例：12.5% * 3840、12.5% of 3840、3840 * (1 + 5%)、"
                          "150 * (1 - 20%)、2**10、sqrt(2)。",
                          "Write it like: 12.5% * 3840, 12.5% of 3840, 3840 * (1 + 5%), "
                          "20% off 150, 2**10, sqrt(2)."),
    "calc_too_large": ("结果太大，无法计算。", "The result is too large to compute."),
    "calc_factorial": ("阶乘只对非负整数有定义。",
                       "factorial is only defined for whole numbers ≥ 0."),
    "calc_round_digits": ("round 的位数必须是整数。", "round's number of digits must be whole."),
    "calc_character": ("不支持字符 “{ch}”：请用普通数字和运算符书写"
                       "（分数写成 1/2，乘方写成 2**3）。",
                       "The character '{ch}' is not supported: write it with plain digits and "
                       "operators (a fraction as 1/2, a power as 2**3)."),
    "calc_too_long": ("表达式太长（最多 {most} 个字符）。",
                      "The expression is too long (at most {most} characters)."),
    "calc_empty": ("表达式是空的。", "The expression is empty."),
    "calc_unreadable": ("无法理解这个表达式：{text}。", "Could not read the expression: {text}. "),
    "calc_division_by_zero": ("不能除以零。", "Division by zero."),
    "calc_undefined": ("这个运算对给出的数没有定义（例如负数开平方、log(0)）。",
                       "The operation is not defined for these numbers "
                       "(e.g. sqrt of a negative, log(0))."),
    "calc_too_deep": ("表达式嵌套太深。", "The expression is nested too deeply."),
    "calc_not_a_number": ("不支持的值：{value!r}", "Not a number: {value!r}"),
    "calc_operator": ("不支持运算符 {symbol}。", "The operator {symbol} is not supported."),
    "calc_not_allowed": ("这里不允许使用{what}。", "Not allowed here: {what}."),
    "calc_attribute": ("这里不允许使用属性访问。", "Not allowed here: attribute access."),
    "calc_subscripts": ("这里不允许使用下标。", "Not allowed here: subscripts."),
    "calc_lambda": ("这里不允许使用lambda。", "Not allowed here: lambda."),
    "calc_comprehensions": ("这里不允许使用推导式。", "Not allowed here: comprehensions."),
    "calc_comparisons": ("这里不允许使用比较。", "Not allowed here: comparisons."),
    "calc_logic": ("这里不允许使用逻辑运算。", "Not allowed here: logic operators."),
    "calc_ambiguous_more": ("“{base} + {rate}%” 有两种读法：要算比 {base} 多 {rate}%，"
                            "写成 {relative}；要加上 {rate}% 这个数本身，写成 {plain}。",
                            "'{base} + {rate}%' can be read two ways: for {rate}% more than "
                            "{base}, write {relative}; to add {rate}% as a number, write {plain}."),
    "calc_ambiguous_less": ("“{base} - {rate}%” 有两种读法：要算比 {base} 少 {rate}%，"
                            "写成 {relative}；要减去 {rate}% 这个数本身，写成 {plain}。",
                            "'{base} - {rate}%' can be read two ways: for {rate}% less than "
                            "{base}, write {relative}; to subtract {rate}% as a number, write "
                            "{plain}."),
    "calc_functions_only": ("只能调用列出的数学函数。",
                            "Only the listed math functions can be called."),
    "calc_arguments": ("{name} 需要 {count} 个参数。", "{name} takes {count} argument(s)."),
    "calc_unknown_name": ("不认识 “{name}”。可以用：{allowed}。",
                          "Unknown name '{name}'. Allowed: {allowed}. "),
    # --- Calling tools (agent/protocols/tool_calls.py) and a person's edit of a call
    # (agent/classroom/confirm.py) ---
    "call_unit_lost": ("calculate(\"{expression}\") 把问题里的百分数写成了普通的数，"
                       "算出来会差 100 倍。请照问题的写法带上 %：{fixed}",
                       "calculate(\"{expression}\") writes a percentage of the question as a "
                       "plain number, which is 100 times too much. Write it with its %, as the "
                       "question does: {fixed}"),
    "call_discount_only": ("calculate(\"{expression}\") 算的是减掉的部分，不是打折后的价格。"
                           "请用这个算式再调用一次 calculate：{fixed}",
                           "calculate(\"{expression}\") works out the discount, not the price "
                           "after it. Call calculate again with this expression: {fixed}"),
    "call_rate_unseen": ("calculate(\"{expression}\") 用了没有工具给出的汇率来换算问题里的金额。"
                         "请先查汇率：{call}",
                         "calculate(\"{expression}\") converts the question's amount of money "
                         "at a rate no tool gave. Look it up: {call}"),
    "call_scale_lost": ("calculate(\"{expression}\") 把问题里的温度当成了普通的数，"
                        "没有换算温标。请用这个算式再调用一次 calculate：{fixed}",
                        "calculate(\"{expression}\") uses the question's temperature as a "
                        "plain number, without changing its scale. Call calculate again with "
                        "this expression: {fixed}"),
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
    "model_images_refused": ("这个模型不接收图片（模型服务拒绝了照片），而这里照片只交给模型"
                             "（PHOTO_READING=model 或 PHOTO_OCR=off），请用文字提问。",
                             "This model takes no images (its service refused the photo), and "
                             "photos go to the model only here (PHOTO_READING=model or "
                             "PHOTO_OCR=off): please type the question."),
    "model_bad_request": ("模型服务拒绝了这个请求，请换个问法再试。",
                          "The model service rejected the request. Please try rephrasing."),
    "model_incomplete": ("模型的回答中途断开了，请再试一次。",
                         "The model's reply was cut off. Please try again."),
    "model_empty": ("模型返回了空回答，请再试一次。",
                    "The model returned an empty reply. Please try again."),
    # --- Glassbox's remarks in a chain (agent/classroom/remarks.py, lookups.py, echoed_errors.py)
    "remark_photos_refused": ("{model} 不接收图片（它的服务拒绝了照片），所以 Glassbox 用 OCR "
                              "读了照片，把读出的文字交给模型；这个模型以后的照片也这样读。",
                              "{model} takes no images (its service refused the photo), so "
                              "Glassbox read the photo with OCR and gave the model the text; "
                              "it reads this model's photos so from now on."),
    "remark_label": ("由 Glassbox 补写", "Written by Glassbox"),
    "list_sep": ("、", ", "),
    "more_tools": ("另外 {more} 个工具", "{more} more tools"),
    "remark_no_reasoning_calls": ("模型没有写出思考过程，直接调用了 {tools}。",
                                "the model wrote no reasoning; it called {tools}."),
    "remark_no_reasoning_no_tool": ("模型没有写出思考过程，也没有使用工具，直接作答。",
                                  "the model wrote no reasoning and used no tool before "
                                  "answering."),
    "remark_no_reasoning": ("模型作答前没有写出思考过程。",
                          "the model wrote no reasoning before answering."),
    "remark_forced_repeated": ("模型第三次发出同样的调用，Glassbox 停止了工具，"
                             "请它根据已有观察作答。",
                             "the model made the same call a third time, so Glassbox stopped "
                             "the tools and asked it to answer from what it observed."),
    "remark_forced_rounds": ("已用完 {rounds} 轮工具调用的上限，Glassbox 请模型不用工具、"
                           "根据已有观察作答。",
                           "the model used all {rounds} tool rounds, so Glassbox asked it to "
                           "answer from what it observed, without tools."),
    "sides_missing": ("还没有查：{names}。这个问题在比较它们：作答前请先逐一查询。",
                      "Not looked up yet: {names}. The question compares them: look each "
                      "one up before you answer."),
    "sides_all_looked_up": ("已经查到：{names}。比较所需的每一方都有了：现在作答。",
                            "Looked up: {names}. You have each side of the comparison: "
                            "answer now."),
    "remark_side_not_looked_up": ("没有查过 {names}：回答里关于它的内容没有观察结果作依据。",
                                "{names} was not looked up: what the answer says of it rests "
                                "on no observation."
                                "| {names} were not looked up: what the answer says of them "
                                "rests on no observation."),
    "remark_lookups_failed": ("这些查询失败了：{calls}。", "these lookups failed: {calls}."),
    "remark_not_looked_up": ("回答里的 {figures} 不是查到的。",
                           " The answer's {figures} was not looked up."
                           "| The answer's {figures} were not looked up."),
    "echo_no_answer": ("没有得到回答：{call} 出错了，模型只是重复了这个错误，没有作答。"
                       "可以换个说法再问一次。",
                       "No answer: {call} gave an error, and the model repeated that error "
                       "instead of answering. Try asking in other words."),
    "sent_back_remark": ("回答里说 {figures}，但没有任何工具给出它；已请模型用 {tools} 查一查。",
                       "the answer said {figures}, which no tool gave; asked the model to look "
                       "it up with {tools}."),
    "sent_back_prompt": ("你的回答里有 {figures}，但这不是任何工具给出的。请先调用 {tools} 查到它，"
                         "再根据结果回答；如果工具查不到，就如实说明，不要写出这个数。",
                         "Your answer states {figures}, but no tool gave you that. Call {tools} "
                         "to look it up first, then answer from its result; if the tool cannot "
                         "give it, say so instead of stating a figure."),
    "call_as_answer_remark": ("模型最后写的是又一次工具调用，不是回答，"
                            "所以 Glassbox 不把它当作回答。",
                            "the model's last reply was one more tool call, not an answer, so "
                            "Glassbox does not show it as the answer."),
    "call_as_answer_reason": ("没有得到回答：模型没有作答，而是又要调用工具。"
                              "可以换个说法再问一次。",
                              "No answer: instead of answering, the model asked for one more "
                              "tool call. Try asking again in other words."),
    "echo_remark": ("模型的回答只是重复了上面 {call} 的错误信息，所以 Glassbox 不把它当作回答。",
                  "the model's answer only repeated the error of {call} above, so Glassbox "
                  "does not show it as the answer."),
    # --- A run's figures (agent/classroom/summary.py); a count's English holds singular|plural ---
    "figures_ms": ("{ms} 毫秒", "{ms} ms"),
    "figures_s": ("{s:,.1f} 秒", "{s:,.1f} s"),
    "figures_rounds": ("{n:,} 轮", "{n:,} round|{n:,} rounds"),
    "figures_tokens": ("{n:,} token", "{n:,} token|{n:,} tokens"),
    "figures_tool_calls": ("{n:,} 次工具调用", "{n:,} tool call|{n:,} tool calls"),
    "difference": ("无工具 → ReAct：{parts}", "No tools → ReAct: {parts}"),
    "difference_sides": ("{sides}：{parts}", "{sides}: {parts}"),
    "difference_rounds": ("轮数 {pair}", "rounds {pair}"),
    "difference_tool_calls": ("工具调用 {pair}", "tool calls {pair}"),
    "difference_seconds": ("用时（秒）{pair}", "seconds {pair}"),
    "difference_tokens": ("token {pair}", "tokens {pair}"),
    # --- The terminal (agent/cli.py, agent/terminal_confirm.py) ---
    "cli_thought": ("💭 思考：", "💭 Thought: "),
    "cli_answer": ("💬 回答：", "💬 Answer: "),
    "cli_thought_above": ("↑ 💭 思考", "↑ 💭 Thought"),
    "cli_answer_above": ("↑ 💬 回答", "↑ 💬 Answer"),
    "cli_unbacked": ("ⁱ 不来自任何观察：{figures}", "ⁱ not from any observation: {figures}"),
    "cli_round": ("── 第 {round} 轮 ──", "── Round {round} ──"),
    "cli_plan": ("📋 计划", "📋 Plan"),
    "cli_remark": ("📝 {label}：", "📝 {label}: "),
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
    # --- Asking the model for a conversation's summary (agent/classroom/history_summary.py) ---
    "summary_earlier": ("此前的摘要：{summary}", "Summary so far: {summary}"),
    "summary_turn": ("问：{question}\n答：{answer}", "Q: {question}\nA: {answer}"),
    "summary_ask": ("用不超过 {words} 字概括下面这段对话，保留事实、数字和结论：",
                    "Summarise this conversation in at most {words} words, keeping the facts, "
                    "figures and conclusions:"),
    # --- What the loop says to the model (agent/prompts.py, answer_model.py, auto_rounds.py,
    # text_rounds.py, text_protocol.py, compare_judge.py) ---
    "system_plain": ("你是 Glassbox，课堂聊天里的助教。你没有工具：根据你所知道的用中文简洁作"
                     "答，必要时使用 Markdown。如果有些事你无法知道（实时数据、精确数字），请"
                     "直说。",
                     "You are Glassbox, a teaching assistant in a class chat. You have no "
                     "tools: answer from what you know, concisely, in English, using Markdown "
                     "where it helps. Say so when you cannot know something (live data, exact "
                     "figures)."),
    "language_line": ("（请用中文回答。）",
                      "(Answer in English.)"),
    "language_tail": ("本次对话使用中文：请用中文作答。问候、感谢、请你给建议或问你是谁、能做什么，"
                      "都不需要工具：直接回答。",
                      "This conversation is in English: answer in English. A greeting, thanks, "
                      "a request for advice or a question about you needs no tool: answer it "
                      "at once."),
    "limit_message": ("你已经用完了可以调用工具的轮数。请不要再调用工具，根据上面的观察给出你"
                      "能给出的最好回答；没能查到的内容请直接说明没有查到，不要猜测。",
                      "You have used all your tool rounds. Do not call any more tools; give "
                      "the best answer you can from the observations above, and say plainly "
                      "what you could not look up instead of guessing it."),
    "repeated_remark": ("（这个调用与之前的一次完全相同，未再次执行；以下是之前的结果。）",
                      "(This call is identical to an earlier one and was not run again; here "
                      "is the earlier result.)"),
    "loop_stop_remark": ("（同一调用第三次出现，停止调用工具，直接作答。）",
                       "(The same call a third time: no more tools, answering now.)"),
    "not_run_result": ("未运行：每轮最多运行 {cap} 个工具调用。如仍需要，请在下一轮再调用。",
                       "Not run: at most {cap} tool calls run per round. Call it again in the "
                       "next round if you still need it."),
    "not_run_remark": ("另有 {skipped} 个调用未运行：每轮最多 {cap} 个",
                     "{skipped} more calls not run: at most {cap} per round"),
    "answer_system": ("你是 Glassbox 的回答撰写者。另一个模型已经一步步思考并调用了工具；根据"
                      "问题、它的完整过程和草稿，用中文写出最终回答：准确、简洁，只使用过程中"
                      "得到的事实，必要时使用 Markdown。不要提到另一个模型或草稿。",
                      "You write Glassbox's final answers. Another model has reasoned step by "
                      "step and used tools; from the question, its whole chain and its draft, "
                      "write the final answer in English: accurate, concise, using only facts "
                      "the chain established, with Markdown where it helps. Do not mention "
                      "the other model or the draft."),
    "answer_ask": ("问题：{question}\n\n过程：\n{chain}\n\n草稿：{draft}",
                   "Question: {question}\n\nChain:\n{chain}\n\nDraft: {draft}"),
    "answer_no_chain": ("（无）",
                        "(none)"),
    "text_format_remembered": ("这个模型之前没有正确使用函数调用，所以 Glassbox 使用经典的 "
                               "Thought/Action/Observation 文本格式。",
                               "This model did not use function calling properly before, so "
                               "Glassbox uses the classic Thought/Action/Observation format."),
    "text_format_as_text": ("这个模型把工具调用写在文字里，所以 Glassbox 改用经典的 "
                            "Thought/Action/Observation 文本格式。",
                            "This model writes its tool calls as text, so Glassbox uses the "
                            "classic Thought/Action/Observation format."),
    "text_format_code": ("这个模型用一段代码作答，而没有调用工具计算，所以 Glassbox 改用经典的"
                         " Thought/Action/Observation 文本格式，重新问这一轮。",
                         "This model answered with code instead of calling a tool to work it "
                         "out, so Glassbox asks this round again in the classic "
                         "Thought/Action/Observation format."),
    "text_format_described": ("这个模型只描述了要调用的工具而没有调用，所以 Glassbox 改用经典"
                              "的 Thought/Action/Observation 文本格式，重新问这一轮。",
                              "This model described a tool call instead of making it, so "
                              "Glassbox asks this round again in the classic "
                              "Thought/Action/Observation format."),
    "text_format_repeated": ("这个模型再次请求了已经拿到结果的调用，所以 Glassbox 改用经典的 "
                             "Thought/Action/Observation 文本格式。",
                             "This model asked again for a call whose result it already had, "
                             "so Glassbox goes on in the classic Thought/Action/Observation "
                             "format."),
    "final_answer_start": ("请以 `Final Answer:` 开头作答。",
                           " Start with `Final Answer:`."),
    "text_input_unreadable": ("它既不是 JSON 对象，也不是单个参数的值。",
                              "it is neither a JSON object nor the value of a single argument."),
    "mend_optional": ("，可选",
                      ", optional"),
    "mend": ("{tool} 无法使用这个输入：{problem}\n它的参数：{listing}。请把 ... 换成值，这样重"
             "写：\n{line}",
             "{tool} cannot use this input: {problem}\nIts arguments: {listing}. Write it "
             "like this, with values for the ...:\n{line}"),
    "correction": ("你的回复不符合格式。请只写 `Thought: ...` 再写 `Action: 工具名[输入]`，或"
                   "者写 `Final Answer: ...` 给出回答。",
                   "Your reply did not follow the format. Write `Thought: ...` then `Action: "
                   "tool_name[input]`, or write `Final Answer: ...` with the answer."),
    "language_name": ("Chinese",
                      "English"),
}


def known(key: str) -> bool:
    """Whether the table has words for `key` (one of a family said by its value, wmo_{code})."""
    return key in _WORDS


def say(lang: str, key: str, /, **values: Any) -> str:
    """The words `key` in `lang` (Chinese for any `zh…` code, else English), `values`
    filled in as they are."""
    return pick(lang, *_WORDS[key]).format(**values)


def count(lang: str, key: str, n: int, /, **values: Any) -> str:
    """The words `key` for a count `n` ("1 tool call", "1,280 tool calls": agent.lang.counted)."""
    return counted(pick(lang, *_WORDS[key]), n).format(n=n, **values)
