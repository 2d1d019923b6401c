"""Every word the bot itself writes, in Chinese and English, and the one way to look it up.

Two tables of (zh, en) templates, told apart by what the template is:

- `_HTML`: whole chat messages in Telegram HTML (they may hold tags). Look up with `text()`,
  which HTML-escapes the values it fills in.
- `_PLAIN`: plain words that a view builds into a page: render's spans, the export's
  elements. They never hold HTML. Look up with `phrase()`, which fills values in as they are
  (so `{chars:,}` formats a number); the page escapes the result, as it does all text.

A key lives in one table only; both lookups pick the language as agent.lang.pick does
(Chinese for any `zh…` code, else English).
The bot's own words follow the user's Telegram language (`language_code`); the agent answers
in the language of the question on its own, and its own words (run figures, tool errors,
what it tells the model) live in agent/words.py, the agent's table.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from agent.events import Origin

if TYPE_CHECKING:  # the view's fold imports these words' module, not the other way round
    from bot.view.transcript import Transcript
from agent.lang import counted, pick

_HTML: dict[str, tuple[str, str]] = {
    "help": (
        "🔍 <b>Glassbox</b> 回答问题时，会把它的思考过程一步步摆在你眼前。\n\n"
        "它用的是 <b>ReAct</b>（推理 + 行动）。每一轮：\n"
        "💭 <b>思考</b> — 模型说它需要什么\n"
        "🔧 <b>行动</b> — 它调用一个工具（天气、汇率、时间、计算器、课程笔记、百科）\n"
        "👀 <b>观察</b> — 工具返回的结果（✅ 成功，⚠️ 失败）\n"
        "信息够了，就给出 💬 <b>回答</b>。\n"
        "📝 <b>由 Glassbox 补写</b> 的话是 Glassbox 自己的说明，不是模型的思考。"
        "回答完成后，过程折叠在 🔎 一行摘要下，点一下展开。\n\n"
        "<b>例子</b>：问“杭州现在多少度？”\n"
        "💭 思考：我需要杭州的实时天气。\n🔧 行动 <code>get_weather(city=\"杭州\")</code>\n"
        "👀 观察 ✅ 18°C，多云\n💬 回答：杭州现在 18°C，多云。\n\n"
        "<b>命令</b>\n"
        "/ask 问题 — 用工具一步步回答（私聊里直接发问题也行）\n"
        "/plain 问题 — 只用模型本身，不用工具\n"
        "/compare 问题 — 两种方式同时回答，并排对比\n"
        "/compare 3 5 — 把本聊天的两条记录并排对比（不调用模型重答）\n"
        "/compare 模型A 模型B 问题 — 两个模型同时回答同一个问题（各自用工具），并排对比\n"
        "/rerun 3 — 用现在的设置把 #3 的问题再问一次，与原来的并排对比"
        "（/rerun 3 模型名：换一个模型问）\n"
        "/plan 问题 — 先列出计划（清单），再一步步回答\n"
        "/step 问题 — 每次行动前暂停，由你决定：执行、修改、跳过或停止\n"
        "/quiz 问题 — 课堂预测（群里）：每一轮前全班投票猜模型下一步调用哪个工具，再揭晓\n"
        "/settings — 本聊天的设置：语言、时区、模型、工具、计划、模式（管理员可修改）\n"
        "/notes — 课程笔记：带 /notes 说明发送 PDF、.md 或 .txt 文件即可添加（管理员）\n"
        "/examples — 示例问题，点一下就能运行\n"
        "/stop — 停止你正在运行的问题\n"
        "/history [页码或关键词] — 本聊天的记录，可搜索\n"
        "/show 编号 — 重放一次完整的过程 · /export 编号 — 导出 HTML 文件\n"
        "/forget 编号 — 删除你的一条记录（管理员：/forget all 清空本群）\n"
        "/board — 课堂看板链接：在投影上大字实时显示本聊天的问答\n"
        "/stats [时间段] — 课程统计图：问题、工具、结局、对比与预测（非管理员只看自己的）\n\n"
        "回复机器人的回答可以继续追问；回复别人的消息并发送 /ask，就是问那条消息。",
        "🔍 <b>Glassbox</b> answers questions and shows you how it gets there.\n\n"
        "It works in <b>ReAct</b> style (reason + act). Each round:\n"
        "💭 <b>Thought</b> — what the model says it needs\n"
        "🔧 <b>Action</b> — the tool it calls (weather, currency, time, calculator, course "
        "notes, encyclopedia)\n"
        "👀 <b>Observation</b> — what the tool returned (✅ worked, ⚠️ failed)\n"
        "When it knows enough, it gives the 💬 <b>Answer</b>.\n"
        "📝 <b>Written by Glassbox</b> marks Glassbox's own words, never the model's thoughts. "
        "Once answered, the chain folds under a 🔎 summary line: tap it to open.\n\n"
        "<b>Example</b>: “How warm is it in Hangzhou?”\n"
        "💭 Thought: I need the current weather in Hangzhou.\n"
        "🔧 Action <code>get_weather(city=\"Hangzhou\")</code>\n"
        "👀 Observation ✅ 18°C, cloudy\n💬 Answer: It is 18°C and cloudy in Hangzhou.\n\n"
        "<b>Commands</b>\n"
        "/ask question — answer step by step with tools (in a private chat, just type)\n"
        "/plain question — the model alone, no tools\n"
        "/compare question — both at once, side by side\n"
        "/compare 3 5 — two stored runs of this chat side by side (not asked again)\n"
        "/compare A B question — two models answer one question at once, each with tools, "
        "side by side\n"
        "/rerun 3 — ask #3's question again with today's settings, beside the original "
        "(/rerun 3 NAME: on another model)\n"
        "/plan question — make a plan (a checklist) first, then answer step by step\n"
        "/step question — pause before every action: you run, edit, skip or stop it\n"
        "/quiz question — predict, then reveal (in a group): before each round the class "
        "votes on which tool the model calls next\n"
        "/settings — this chat's settings: language, time zone, model, tools, plans, mode "
        "(admins)\n"
        "/notes — course notes: send a PDF, .md or .txt file captioned /notes (admins)\n"
        "/examples — preset questions to tap\n"
        "/stop — stop your running question\n"
        "/history [page or keyword] — this chat's earlier runs, searchable\n"
        "/show n — replay a whole chain · /export n — download it as an HTML file\n"
        "/forget n — delete one of your runs (admins: /forget all clears the chat)\n"
        "/board — the class board: this chat's runs live, in large type, for a projector\n"
        "/stats [period] — the course as a picture: questions, tools, endings, /compare and "
        "/quiz (yours only, unless you are an admin)\n\n"
        "Reply to one of my answers to follow up; reply /ask to someone's message to ask "
        "about it.",
    ),
    "usage": ("请在命令后面写上问题，例如：\n/{command} 杭州现在天气怎么样？",
              "Please put a question after the command, e.g.\n"
              "/{command} What is the weather in Hangzhou?"),
    "too_long": ("这个问题有 {length} 个字符，太长了。请控制在 2000 个字符以内。",
                 "That question is {length} characters long. Please keep it under 2,000 "
                 "characters."),
    "busy": ("我还在回答你上一个问题，请等它完成，或者用 /stop 停止它。",
             "Still working on your last question. Please wait for it, or /stop it."),
    "nothing_to_stop": ("你现在没有正在运行的问题。", "You have no question running."),
    "not_yours": ("只有提问的人或管理员可以停止它。",
                  "Only the person who asked (or an admin) can stop this."),
    "stopping": ("正在停止…", "Stopping…"),
    "not_running": ("这个问题已经结束了。", "That question has already finished."),
    "stop_button": ("⏹ 停止", "⏹ Stop"),
    "examples": ("点一个问题来运行它：", "Tap a question to run it:"),
    # --- /settings ---
    "settings_title": ("⚙️ <b>本聊天的设置</b>（从下一个问题起生效）",
                       "⚙️ <b>This chat's settings</b> (they apply from the next question)"),
    "settings_read_only": ("只有管理员可以修改。", "Only an admin can change them."),
    "settings_changed": ("✅ 已修改 {what}：{before} → {after}",
                         "✅ Changed {what}: {before} → {after}"),
    "settings_usage": ("用 /settings 打开菜单；设置其他时区：/settings timezone Europe/Paris",
                       "Send /settings for the menu; for another time zone: "
                       "/settings timezone Europe/Paris"),
    "settings_learned_title": ("🧪 <b>自动模式学到的</b>"
                               "（作用于所有聊天；只对机器人的管理员显示）",
                               "🧪 <b>What auto mode learned</b> (for every chat; shown to the "
                               "bot's admins)"),
    # --- /notes: course notes by upload ---
    "notes_indexed_pdf": ("📚 已收录 <b>{name}</b>：{parts} 页，{chars} 字。"
                          "本聊天的问题现在可以引用它。",
                          "📚 Indexed <b>{name}</b>: {parts} page, {chars} characters. "
                          "Questions in this chat can cite it now.|"
                          "📚 Indexed <b>{name}</b>: {parts} pages, {chars} characters. "
                          "Questions in this chat can cite it now."),
    "notes_indexed_text": ("📚 已收录 <b>{name}</b>：{parts} 节，{chars} 字。"
                           "本聊天的问题现在可以引用它。",
                           "📚 Indexed <b>{name}</b>: {parts} section, {chars} characters. "
                           "Questions in this chat can cite it now.|"
                           "📚 Indexed <b>{name}</b>: {parts} sections, {chars} characters. "
                           "Questions in this chat can cite it now."),
    "notes_replaced": ("（替换了同名的旧文件。）", "(It replaced the earlier file of that name.)"),
    "notes_type": ("{name} 不能收录：只支持 PDF、Markdown（.md）和文本（.txt）文件。",
                   "{name} cannot be indexed: send a PDF, Markdown (.md) or text (.txt) file."),
    "notes_too_big": ("{name} 有 {mb} MB，太大了：机器人最多只能下载 20 MB 的文件。",
                      "{name} is {mb} MB, too big: bots can download files of at most 20 MB."),
    "notes_empty": ("{name} 里读不出任何文字（可能是扫描版 PDF），没有收录。",
                    "Nothing could be read from {name}: it has no text (a scanned PDF?), so "
                    "nothing was indexed."),
    "notes_unreadable": ("{name} 无法读取（文件可能已损坏），没有收录。",
                         "{name} could not be read (the file may be damaged); nothing was "
                         "indexed."),
    "notes_time": ("{name} 在 {s} 秒内一个字也没读出来，没有收录。",
                   "Nothing could be read from {name} within {s} s, so nothing was indexed."),
    "notes_memory": ("读取 {name} 需要的内存超过了上限，没有收录。",
                     "Reading {name} needs more memory than allowed, so nothing was indexed."),
    "notes_busy": ("本聊天的上一个文件还在读取，读完后再发送 {name}。",
                   "This chat's previous file is still being read; send {name} again when it "
                   "is done."),
    "notes_queued": ("其他聊天的文件正在读取；轮到 {name} 时就读，读完在这里告诉你。",
                     "Files from other chats are being read right now; {name} is read as soon "
                     "as one is done, and I will reply here."),
    "notes_rate_limited": ("你刚才上传了很多文件。请 {wait} 后再试。",
                           "You have uploaded many files just now. Please try again in {wait}."),
    "notes_cut_chars_text": ("只收录了前 {kept} 字（共 {total} 字）：每个文件最多收录 {cap} 字。",
                             "Kept the first {kept} of its {total} characters: at most {cap} "
                             "are kept per file."),
    "notes_cut_chars_pdf": ("只收录了第 1–{pages} 页（共 {total} 页）：每个文件最多收录 {cap} 字。",
                            "Kept page {pages} of {total}: at most {cap} characters are kept per "
                            "file.|Kept pages 1–{pages} of {total}: at most {cap} characters "
                            "are kept per file."),
    "notes_cut_pages": ("只收录了第 1–{pages} 页（共 {total} 页）：每个文件最多读 {pages} 页。",
                        "Kept page {pages} of {total}: at most {pages} page is read per file.|"
                        "Kept pages 1–{pages} of {total}: at most {pages} pages are read per "
                        "file."),
    "notes_cut_time": ("只收录了第 1–{pages} 页（共 {total} 页）：读取 {s} 秒后停止了。",
                       "Kept page {pages} of {total}: reading stopped after {s} s.|"
                       "Kept pages 1–{pages} of {total}: reading stopped after {s} s."),
    "notes_cut_memory": ("只收录了第 1–{pages} 页（共 {total} 页）：读取用到了内存上限。",
                         "Kept page {pages} of {total}: reading stopped at its memory limit.|"
                         "Kept pages 1–{pages} of {total}: reading stopped at its memory "
                         "limit."),
    "notes_cut_unreadable": ("只收录了第 1–{pages} 页（共 {total} 页）：后面的页无法读取。",
                             "Kept page {pages} of {total}: the next page could not be read.|"
                             "Kept pages 1–{pages} of {total}: the next page could not be "
                             "read."),
    "notes_cut_text": ("只收录了前 {kept} 字（共 {total} 字）：读取在限制内没能完成。",
                       "Kept the first {kept} of its {total} characters: reading did not "
                       "finish within its limits."),
    "notes_cut_long": ("有 {count} 页超过 {cap} 字，每页只收录了前 {cap} 字。",
                       "{count} page had more than {cap} characters; only its first {cap} were "
                       "kept.|{count} pages had more than {cap} characters; only the first "
                       "{cap} of each were kept."),
    "notes_download_failed": ("没能从 Telegram 下载 {name}，请再发送一次。",
                              "{name} could not be downloaded from Telegram; please send it "
                              "again."),
    # --- voice questions ---
    "voice_too_long": ("这条语音超过了 {limit} 秒，我听不了这么长的。请分成几段短一点的再发。",
                       "This voice message is longer than {limit} seconds, the most I listen "
                       "to. Please send it again in shorter parts."),
    "voice_too_big": ("这个文件有 {mb} MB，Telegram 只让机器人下载 20 MB 以内的文件。",
                      "This file is {mb} MB; Telegram lets bots download at most 20 MB."),
    "voice_not_audio": ("我没能从这个文件里读出声音。请发语音消息，"
                        "或 OGG、MP3、M4A、WAV 音频文件。",
                        "I could not read any sound from this file. Please send a voice "
                        "message, or an OGG, MP3, M4A or WAV audio file."),
    "voice_silent": ("这条语音里我没有听到说话。请靠近麦克风再说一次。",
                     "I heard no words in this voice message. Please say it again, closer to "
                     "the microphone."),
    "voice_chat_busy": ("我还在听这个聊天的上一条语音，请稍后再发这一条。",
                        "I am still listening to this chat's previous voice message; please "
                        "send this one again in a moment."),
    "voice_busy": ("现在有很多语音在排队，请过一分钟再发。",
                   "Many voice messages are waiting to be heard; please send it again in a "
                   "minute."),
    "voice_failed": ("现在没法听语音消息，请把问题用文字发给我。",
                     "I cannot listen to voice messages right now; please type the question."),
    "notes_admins": ("只有管理员可以添加或删除本聊天的课程笔记。",
                     "Only an admin can add or remove this chat's course notes."),
    "notes_off": ("课程笔记没有开启（search_notes 不在 AGENT_TOOLS 中）。",
                  "Course notes are off here (search_notes is not among AGENT_TOOLS)."),
    "notes_list": ("📚 <b>本聊天的课程笔记</b>", "📚 <b>This chat's course notes</b>"),
    "notes_line_pdf": ("• {name}：{parts} 页，{chars} 字",
                       "• {name}: {parts} page, {chars} characters|"
                       "• {name}: {parts} pages, {chars} characters"),
    "notes_line_text": ("• {name}：{parts} 节，{chars} 字",
                        "• {name}: {parts} section, {chars} characters|"
                        "• {name}: {parts} sections, {chars} characters"),
    "notes_none": ("本聊天还没有上传的课程笔记。带 /notes 说明发送 PDF、.md 或 .txt 文件即可添加。",
                   "No course notes uploaded here yet. Send a PDF, .md or .txt file with the "
                   "caption /notes to add one."),
    "notes_hint": ("添加：带 /notes 说明发送文件（同名会替换）· 删除：/notes forget 文件名",
                   "Add: send a file captioned /notes (same name replaces) · Remove: "
                   "/notes forget NAME"),
    "notes_forgotten": ("已删除 {name}。", "Removed {name}."),
    "notes_not_found": ("这里没有名为 “{name}” 的文件。用 /notes 查看列表。",
                        "There is no file named “{name}” here. /notes lists them."),
    # --- Walkthrough (/step) ---
    "pause_edit_prompt": (
        "✏️ 修改 <code>{call}</code> 的参数：请<b>回复这条消息</b>，写 JSON、key=value"
        "（{fields}），只有一个参数时也可以直接写值。",
        "✏️ New arguments for <code>{call}</code>: <b>reply to this message</b> with JSON, "
        "key=value pairs ({fields}), or, for a tool of one argument, just the value."),
    "pause_edit_invalid": ("⚠️ {error}", "⚠️ {error}"),
    # --- Quiz mode ---
    "quiz_private": (
        "🗳 /quiz 是给课堂用的：在<b>群里</b>，每一轮开始前，我会发一个投票"
        "“模型下一步会调用哪个工具？”，全班先猜，老师（或提问的人）点 👁 揭晓后，"
        "再看模型真正做了什么；投票结果会和这次运行一起保存（/show、/export、看板）。\n\n"
        "把我加进课堂群，在群里发 <code>/quiz 问题</code> 就可以。"
        "私聊里想一步步看，可以用 <code>/step 问题</code>。",
        "🗳 /quiz is for a class: in a <b>group</b>, before each round I post a poll “Which "
        "tool will the model call next?”, the class predicts, and once the teacher (or whoever "
        "asked) taps 👁 Reveal, everyone sees what the model really did. The votes are kept "
        "with the run (/show, /export, the board).\n\n"
        "Add me to your class group and send <code>/quiz your question</code> there. "
        "To go one step at a time here, try <code>/step your question</code>."),
    "pause_edit_not_yours": ("只有 {name} 或管理员可以修改这一步。",
                            "Only {name} or an admin can edit this step."),
    "stopped_by": ("由 {name} 停止。", "Stopped by {name}."),
    "stopped_forgotten": ("已停止：这个问题已被删除。", "Stopped: this question was deleted."),
    "stopped_thread_forgotten": ("已停止：这个对话里较早的一个问题已被删除，不会再发给模型。",
                                 "Stopped: an earlier question of this thread was deleted, "
                                 "so it is not sent to the model again."),
    "shutdown": ("Glassbox 正在重启，这个问题被中断了，请稍后再问一次。",
                 "Glassbox is restarting, so this question was stopped. Please ask again soon."),
    "interrupted": ("Glassbox 重启时这个问题还没答完，已中断。请再问一次。",
                    "Glassbox restarted before this question was finished. Please ask again."),
    "failed": ("出了点问题，这个回答没能完成。请再试一次。",
               "Something went wrong and this answer could not be finished. Please try again."),
    "transcript_unsaved": ("这个回答没能保存：数据库暂时连不上，/history 和 /show 里不会有它。",
                           "This answer could not be saved: the database is unreachable for "
                           "now, so /history and /show will not have it."),
    "transcript_waiting": ("数据库暂时连不上，这个回答还没保存：数据库恢复后会自动保存，"
                           "之后 /history 和 /show 里就有它了。",
                           "The database cannot be reached right now, so this answer is not "
                           "saved yet: it is saved once the database is back, and /history "
                           "and /show have it from then on."),
    "not_saved": ("这个问题没能保存，所以还没有开始回答。请再问一次。",
                  "This question could not be saved, so it was not answered. Please ask "
                  "again."),
    "queued": ("⏳ 排队中：前面还有 {ahead} 个问题，轮到时会自动开始。",
               "⏳ Queued: {ahead} ahead of you. Your question starts when there is room."),
    "handler_failed": ("抱歉，出了点问题，没能处理这条消息。请稍后再试。",
                       "Sorry, something went wrong with that message. Please try again later."),
    "store_unavailable": ("抱歉，现在连不上本班的记录库，这条消息没能处理。请过一两分钟再试。",
                          "Sorry, the class's records cannot be reached right now, so that "
                          "message was not handled. Please try again in a minute or two."),
    # --- /history, /show, /export, /forget ---
    "history_title": ("📜 <b>记录</b> · 第 {page}/{pages} 页 · 共 {total} 条（{zone} 时间）",
                      "📜 <b>Runs</b> · page {page} of {pages} · {total} in all (times in "
                      "{zone})"),
    "history_found": ("🔎 <b>“{keyword}”</b> · 找到 {total} 条 · 第 {page}/{pages} 页"
                      "（{zone} 时间）",
                      "🔎 <b>“{keyword}”</b> · {total} found · page {page} of {pages} (times "
                      "in {zone})"),
    "history_empty": ("这里还没有记录。用 /ask 提一个问题吧。",
                      "No runs here yet. Ask something with /ask."),
    "history_nothing_found": ("没有问题或回答包含“{keyword}”。",
                              "No question or answer contains “{keyword}”."),
    "history_hint": ("点编号查看完整过程 · /export 编号 导出 · /forget 编号 删除",
                     "Tap a number to replay it · /export n to download · /forget n to delete"),
    "history_words_capped": ("（只搜索了前 {most} 个词。）",
                             "(Only the first {most} words were searched.)"),
    "history_rate_limited": ("你刚才查了很多次记录。请 {wait} 后再试。",
                             "You have looked through the history a lot just now. Please try "
                             "again in {wait}."),
    "history_expired": ("这个列表已过期，请重新发送 /history。",
                        "This list has expired; please send /history again."),
    "run_usage": ("请写上记录编号，例如：/{command} 12（编号见 /history）",
                  "Please give a run number, e.g. /{command} 12 (see /history)"),
    "no_run": ("这里没有 #{n} 这条记录。", "There is no run #{n} here."),
    "model_unknown": ("这里没有叫 {name} 的模型。可以用的模型：{known}",
                      "There is no model called {name} here. The models: {known}"),
    "models_same": ("请写两个不同的模型，例如：/compare {example} 问题（可以用的模型：{known}）",
                    "Please name two different models, e.g. /compare {example} question "
                    "(the models: {known})"),
    "models_only_one": ("这里只配置了一个模型（{known}），没有第二个可以对比。",
                        "Only one model is set up here ({known}): there is no second one to "
                        "compare it with."),
    "rerun_models_named": ("#{n} 对比的是两个模型；/rerun {n} 会把两个模型再问一次。",
                           "Run #{n} compared two models; /rerun {n} asks both again."),
    "runs_same": ("请写两条不同的记录，例如：/compare 3 5（编号见 /history）",
                  "Please name two different runs, e.g. /compare 3 5 (see /history)"),
    "runs_running": ("#{n} 还在运行，结束后再对比。",
                     "Run #{n} is still running; compare it once it has ended."),
    "rerun_comparison": ("#{n} 是一次记录对比，没有问题可以重问；请选一条问过模型的记录。",
                         "Run #{n} compares stored runs and asked no question; please pick a "
                         "run that asked the model."),
    "runs_comparison": ("#{n} 本身就是一次对比，请选两条问过模型的记录。",
                        "Run #{n} is itself a comparison; please pick two runs that asked the "
                        "model."),
    "show_header": ("📜 #{n} · {name} · {when} · {status}", "📜 #{n} · {name} · {when} · {status}"),
    "still_running": ("这个问题还在运行，以上是目前为止的过程。",
                      "This question is still running; this is the chain so far."),
    "show_rest_in_export": ("……这次运行太长，后面的过程没有在这里显示。"
                            "完整过程请用 /export {n} 下载。",
                            "… This run is too long to show here in full: the rest is in "
                            "/export {n}."),
    "export_caption": ("Glassbox 记录 #{n}：{question}", "Glassbox transcript #{n}: {question}"),
    "forgotten": ("已删除 #{n}。", "Run #{n} is deleted."),
    "forget_not_yours": ("#{n} 不是你问的：只有提问的人或管理员可以删除它。",
                         "Run #{n} is not yours: only the person who asked (or an admin) can "
                         "delete it."),
    "forget_all_admins": ("只有管理员可以清空本群的全部记录。",
                          "Only an admin can delete all of this chat's runs."),
    "forget_all_confirm": ("确定删除本聊天的全部 {total} 条记录吗？删除后无法恢复。",
                           "Delete all {total} runs of this chat? This cannot be undone."),
    "forget_all_yes": ("🗑 全部删除", "🗑 Delete all"),
    "forget_all_no": ("取消", "Cancel"),
    "forget_all_done": ("已删除本聊天的 {count} 条记录。",
                        "Deleted all runs of this chat ({count})."),
    "forget_all_cancelled": ("已取消，记录都还在。", "Cancelled; nothing was deleted."),
    "stale_button": ("这个按钮已经失效了。", "This button no longer works."),
    "not_your_button": ("这个按钮是给发出命令的人的。",
                        "This button is for whoever sent the command."),
    # --- Abuse, access and odd input ---
    "rate_limited": ("你在 {window} 内已经问了 {count} 个问题，请休息一下，{wait}后可以再问。",
                     "You have asked {count} questions in the last {window}. Please take a "
                     "break: you can ask again in {wait}."),
    "over_budget": ("这个聊天今天的额度（{budget} 个 token）已经用完了，{wait}后（UTC 0 点）恢复。",
                    "This chat has used up today's budget of {budget} tokens. It frees up in "
                    "{wait} (at 00:00 UTC)."),
    "not_allowed": ("这个聊天没有开通 Glassbox。", "Glassbox is not enabled in this chat."),
    "unknown_command": ("我不认识这个命令。发送 /help 看看我能做什么。",
                        "I don't know that command. Send /help to see what I can do."),
    "text_only": ("这类消息（贴纸、GIF 动图、其他文件）我读不了。请用文字或照片提问，例如：\n"
                  "/ask 杭州现在天气怎么样？",
                  "I can't read this kind of message (stickers, GIFs, other files). Please "
                  "ask in words or with a photo, e.g.\n/ask What is the weather in Hangzhou?"),
    # --- Photos sent with a question (bot/telegram/handlers/photo_questions.py) ---
    "photo_question": ("这张图片是什么内容？如果是题目，请解答。",
                       "What does this show? If it is an exercise, solve it."),
    "photo_off": ("这里没有开启读照片的功能，请用文字提问。",
                  "Reading photos is turned off here: please type the question."),
    "photo_not_image": ("这个文件不是我能读的图片。请发送照片（JPEG 或 PNG）。",
                        "That file is not a picture I can read. Please send a photo (JPEG or "
                        "PNG)."),
    "photo_too_large": ("这张图片太大了（超过 {mp} 百万像素），我读不了。请发一张小一点的照片。",
                        "That picture is too large to read (over {mp} megapixels). Please send "
                        "a smaller photo."),
    "photo_animated": ("我读不了 GIF 动图或动态贴纸。请发一张静态照片，或用文字提问。",
                       "I can't read GIFs or animated stickers. Please send a still photo or "
                       "type the question."),
    "photo_download_failed": ("没能从 Telegram 下载这张照片，请再发一次。",
                              "I could not download the photo from Telegram. Please send it "
                              "again."),
    "album_capped": ("这组照片我只读前 {n} 张，其余 {more} 张没有读。",
                     "I read the first {n} photos of the album; the other {more} are left "
                     "out."),
    # --- /board ---
    "board_link": ("📺 <b>{title}</b> 的课堂看板：\n{url}\n\n在投影上打开它：这里的每个 /ask 和 "
                   "/compare 都会以大字实时显示。拿到链接的人都能看；/board reset 换一个新链接。",
                   "📺 The class board of <b>{title}</b>:\n{url}\n\nOpen it on the projector: "
                   "every /ask and /compare here shows live, in large type. Anyone with the "
                   "link can watch; /board reset makes a new one."),
    "board_reset": ("🔄 已换成新链接，旧链接不再有效。",
                    "🔄 A new link: the old one no longer works."),
    "board_sent": ("📺 看板链接已私信发给你。", "📺 I sent you the board link privately."),
    "board_start_private": ("我还不能私信你：请先打开和我的私聊并点“开始”，再在这里发送 /board。",
                            "I can't write to you privately yet: open a private chat with me, "
                            "press Start, then send /board here again."),
    "stats_sent": ("📊 你的数字已私信发给你。", "📊 I sent you your numbers privately."),
    "stats_start_private": ("我还不能私信你：请先打开和我的私聊并点“开始”，再在这里发送 /stats。",
                            "I can't write to you privately yet: open a private chat with me, "
                            "press Start, then send /stats here again."),
    "board_admins_only": ("只有本群的管理员可以获取看板链接。",
                          "Only the group's admins can get the board link."),
    "board_off": ("看板没有开启（HTTP_LISTEN=off）。",
                  "The class board is off here (HTTP_LISTEN=off)."),
}


_PLAIN: dict[str, tuple[str, str]] = {
    # --- A run's chain: the live message and /show (render); the export shares labels ---
    "compare_plain": ("🧠 仅模型，不用工具", "🧠 Model alone, no tools"),
    "compare_react": ("🔍 ReAct，使用工具", "🔍 ReAct, with tools"),
    "compare_model_side": ("🤖 {model} · 使用工具", "🤖 {model} · with tools"),
    "compare_judgement": ("模型的评判：", "The model's judgement: "),
    "compare_judging": ("⚖️ 正在请模型比较两个回答…", "⚖️ Asking the model how the answers differ…"),
    "compare_chain": ("ReAct 的过程", "The ReAct chain"),
    "compare_rounds": ("两条过程，逐轮对齐", "Both chains, round by round"),
    "compare_gap": ("（这一边没有这一轮）", "(no such round on this side)"),
    "compare_first_differs": ("⚡ 第一个不同的动作", "⚡ first differing action"),
    "compare_same_moves": ("两条过程每一轮的动作都相同。",
                           "Both chains made the same moves, round by round."),
    "compare_answered": ("在这一轮回答", "answered in this round"),
    "compare_more_rounds": ("……还有 {n} 轮没有在这里显示，完整的对齐过程请用 /export 下载。",
                            "… {n} more rounds are not shown here: /export has them all."),
    "compare_no_more": ("这一轮没有再调用工具", "no further call in this round"),
    "chain_round": ("第 {n} 轮", "Round {n}"),
    "chain_plan": ("计划", "Plan"),
    "chain_plan_answer": ("作答", "answer"),
    "chain_thought": ("思考", "Thought"),
    "chain_no_tools": ("未用工具", "no tools"),
    "chain_rounds": ("{n:,} 轮", "{n:,} round|{n:,} rounds"),
    "chain_tool_calls": ("{n:,} 次工具调用", "{n:,} tool call|{n:,} tool calls"),
    "chain_tokens": ("{n:,} token", "{n:,} token|{n:,} tokens"),
    "chain_failed_calls": ("{n} 次失败", "{n} failed"),
    "chain_last_forced": ("（最后一轮不用工具）", " (the last without tools)"),
    "chain_colon": ("：", ": "),
    "chain_action": ("行动", "Action"),
    "chain_observation": ("观察", "Observation"),
    "chain_empty": ("（空）", "(empty)"),
    "chain_cut": ("（共 {chars:,} 字，/show 可看全文）",
                  "({chars:,} chars in all; /show shows every one)"),
    "chain_answer": ("回答", "Answer"),
    "chain_answer_by": ("回答（{model} 撰写）", "Answer (written by {model})"),
    "compare_written_by": ("（{model} 撰写）", " (written by {model})"),
    "chain_writing": ("（生成中…）", " (writing…)"),
    "chain_incomplete": ("（未完成）", " (incomplete)"),
    "chain_unparsed": ("（模型未按格式作答，以上为原文）",
                       "(The model did not follow the format; this is its raw text.)"),
    "grounding_unfounded": ("不来自任何观察：{figures}", "not from any observation: {figures}"),
    "grounding_sent_back": ("不来自任何观察（已请模型去查，它仍没有查）：{figures}",
                            "not from any observation, though the model was asked to look "
                            "it up: {figures}"),
    "grounding_memory": ("来自模型的记忆：{figures}", "from the model's memory: {figures}"),
    "ledger_heading": ("数字的来源", "Where the figures come from"),
    "ledger_figure": ("数字", "Figure"),
    "ledger_status": ("来源", "Backed by"),
    "ledger_observation": ("观察 {n}（{rule}）", "observation {n} ({rule})"),
    "ledger_computed": ("由 {inputs} 算出（{rule}）", "computed from {inputs} ({rule})"),
    "ledger_question": ("问题", "the question"),
    "ledger_history": ("对话的前文", "the thread's history"),
    "ledger_unbacked": ("无来源", "nothing: not from any observation"),
    "rule_exact": ("原样", "exact"),
    "rule_rounded": ("四舍五入", "rounded"),
    "rule_date": ("同一日期", "same date"),
    "rule_time": ("同一时刻", "same time"),
    "rule_converted": ("单位换算", "unit conversion"),
    "rule_rate": ("按汇率换算", "through the exchange rate"),
    "rule_example": ("换算示例的金额", "the amount of a worked example"),
    "rule_sum": ("求和", "sum"),
    "rule_difference": ("求差", "difference"),
    "rule_product": ("乘积", "product"),
    "rule_ratio": ("比值", "ratio"),
    "rule_mean": ("平均", "mean"),
    "rule_percent_change": ("按百分比增减", "a percentage more or less"),
    "rule_time_difference": ("两个时刻之差", "the time between two times of day"),
    "rule_none": ("无", "none"),
    "chain_failed": ("出错了。", "Failed."),
    "chain_stopped": ("已停止。", "Stopped."),
    "chain_round_limit": ("已达到轮数上限", "Round limit reached"),
    "chain_working": ("⏳ 正在思考…", "⏳ Working…"),
    # --- What Glassbox read or heard from what was sent (bot/view/read_view.py): {engine} is
    # "OCR", or what heard a voice message ("Whisper", a transcription server's model); or a
    # photo given to the model itself, {engine} the model's name ---
    "read_photo": ("📷 从照片中读出的文字（Glassbox，{engine}）",
                   "📷 Read from the photo (Glassbox, {engine})"),
    "read_photo_of": ("📷 从第 {n}/{of} 张照片中读出的文字（Glassbox，{engine}）",
                      "📷 Read from photo {n} of {of} (Glassbox, {engine})"),
    "read_photo_model": ("📷 照片交给了模型（{engine}）自己看",
                         "📷 Photo given to the model ({engine})"),
    "read_photo_model_of": ("📷 第 {n}/{of} 张照片交给了模型（{engine}）自己看",
                            "📷 Photo {n} of {of} given to the model ({engine})"),
    "read_by_model": ("照片由模型自己看：Glassbox 没有读它，这里也就没有读出的文字。",
                      "The model looks at the photo itself: Glassbox did not read it, so no "
                      "text read is shown here."),
    "read_voice": ("🎤 从语音中听到的话（Glassbox，{engine}）",
                   "🎤 Heard in the voice message (Glassbox, {engine})"),
    "read_unsure": ("❓ 标出的是 Glassbox 没有把握的地方，可能读错了。",
                    "❓ marks what Glassbox is unsure of: it may be misread."),
    "read_no_text": ("照片里没有找到文字，只按问题回答。",
                     "No text found in the photo: answering from the question alone."),
    "read_time": ("照片没能及时读完，只按问题回答。",
                  "The photo could not be read in time: answering from the question alone."),
    "read_memory": ("照片太大，读不了，只按问题回答。",
                    "The photo is too large to read: answering from the question alone."),
    "read_unreadable": ("照片读不了，只按问题回答。",
                        "The photo could not be read: answering from the question alone."),
    "chain_unfinished": ("⚠️ 这次运行没有结束。", "⚠️ This run did not finish."),
    # --- /settings: its lines and buttons ---
    "settings_lang": ("🌐 语言", "🌐 Language"),
    "settings_timezone": ("🕒 时区", "🕒 Time zone"),
    "settings_tools_off": ("🧰 工具", "🧰 Tools"),
    "settings_model": ("🤖 模型", "🤖 Model"),
    "settings_planner": ("📋 先列计划", "📋 Plan first"),
    "settings_agent_mode": ("🧠 调用方式", "🧠 Agent mode"),
    "settings_walkthrough": ("⏸ 默认逐步确认", "⏸ Step mode by default"),
    "settings_remarks": ("📝 模型不写思考时显示 Glassbox 的说明",
                       "📝 Glassbox's notes when a model gives no reasoning"),
    "settings_lang_auto": ("自动（每人的 Telegram 语言）",
                           "auto (each person's Telegram language)"),
    "settings_lang_zh": ("中文", "中文"),
    "settings_lang_en": ("English", "English"),
    "settings_mode_auto": ("自动", "auto"),
    "settings_mode_native": ("函数调用", "function calling"),
    "settings_mode_text": ("文本 ReAct", "text ReAct"),
    "settings_on": ("开", "on"),
    "settings_off": ("关", "off"),
    "settings_no_tools": ("（全部关闭）", "(all off)"),
    "settings_back": ("◀ 返回", "◀ Back"),
    "settings_not_admin": ("只有本聊天的管理员可以修改设置。",
                           "Only an admin of this chat can change its settings."),
    "settings_changed_short": ("{what}：{after}", "{what}: {after}"),
    "learned_nothing": ("{model}：函数调用，没有学到什么",
                        "{model}: function calling, nothing learned"),
    "learned_tools_rejected": ("{model}：每个问题都用文本格式，因为服务拒绝了工具；{when}",
                               "{model}: every question in the text format, as the endpoint "
                               "refuses tools; {when}"),
    "learned_calls_as_text": ("{model}：每个问题都用文本格式，因为模型把调用写在文字里；{when}",
                              "{model}: every question in the text format, as the model writes "
                              "its calls as text; {when}"),
    "learned_probe_in": ("再过 {n} 个问题会重新试一次函数调用",
                         "function calling is tried again in {n} question|function calling is "
                         "tried again in {n} questions"),
    "learned_probe_next": ("下一个问题会重新试一次函数调用",
                           "the next question tries function calling again"),
    "seen_tools_rejected": ("{model}：服务在 {runs} 个问题（{chats} 个聊天）里拒绝了工具，"
                            "还没有切换（要 {need} 个问题、至少 {chats_needed} 个聊天）",
                            "{model}: the endpoint refused tools (questions: {runs}, chats: "
                            "{chats}); not switched yet, it switches at {need} questions from "
                            "{chats_needed} chats"),
    "seen_calls_as_text": ("{model}：模型在 {runs} 个问题（{chats} 个聊天）里把调用写在文字里，"
                           "还没有切换（要 {need} 个问题、至少 {chats_needed} 个聊天）",
                           "{model}: the model wrote its calls as text (questions: {runs}, "
                           "chats: {chats}); not switched yet, it switches at {need} questions "
                           "from {chats_needed} chats"),
    "learned_usage_estimated": ("{model}：服务不接受 stream_options，用量按文字长度估算",
                                "{model}: the endpoint refused stream_options, so its token "
                                "counts are estimated"),
    "learned_no_images": ("{model}：服务拒绝了照片，照片由 Glassbox 的 OCR 读",
                          "{model}: the endpoint refused a photo, so Glassbox's OCR reads its "
                          "photos"),
    "settings_forget_learned": ("♻️ 忘掉自动模式学到的", "♻️ Forget what auto mode learned"),
    "settings_forgot_learned": ("已忘掉：每个聊天重新从函数调用开始",
                                "Forgotten: every chat starts with function calling again"),
    "settings_not_bot_admin": ("只有 ADMIN_USER_IDS 里的管理员可以重置它。",
                               "Only the admins in ADMIN_USER_IDS can reset this."),
    "settings_store_down": ("数据库暂时不可用，什么也没有改；请稍后再试。",
                            "The database is unavailable, so nothing was changed; please try "
                            "again later."),
    # --- Walkthrough (/step): the chain's lines, the buttons, the answers to a tap ---
    "pause_waiting": ("等待决定：▶ 执行、✏️ 修改、⏭ 跳过 或 ⏹ 停止",
                     "Waiting for a decision: ▶ Run, ✏️ Edit, ⏭ Skip or ⏹ Stop"),
    "pause_ran": ("{by} 确认执行", "Run by {by}"),
    "pause_skipped": ("{by} 跳过了这一步", "Skipped by {by}"),
    "pause_stopped": ("{by} 在这里停止了运行", "Stopped here by {by}"),
    "pause_timed_out": ("无人决定，运行在这里停止", "No one decided in time; the run stopped here"),
    "pause_edited": ("{by} 修改了参数；模型原本提议 ", "Edited by {by}; the model proposed "),
    "quiz_poll": ("第 {n} 轮：模型下一步会调用哪个工具？", "Round {n}: which tool will the "
                  "model call next?"),
    "quiz_answer_choice": ("直接回答（不调用工具）", "answer directly (no tool)"),
    "quiz_other_choice": ("另一个工具", "another tool"),
    "quiz_heading": ("全班预测", "Class prediction"),
    "quiz_voting": ("群里正在投票：模型下一步会做什么？点 👁 揭晓后继续。",
                    "The class is voting in the group: what will the model do next? Tap "
                    "👁 Reveal to go on."),
    "quiz_voting_board": ("群里正在投票", "voting in the group"),
    "quiz_so_far": ("已有 {n:,} 人投票", "{n:,} voted so far"),
    "quiz_waiting": ("⏳ 等待揭晓…", "⏳ Waiting for the reveal…"),
    "quiz_matched": ("🗳 全班多数猜中 {hit}/{n} 轮", "🗳 the class's top pick was right in "
                     "{hit} of {n} rounds"),
    "quiz_cut": ("运行在揭晓前就结束了", "the run ended before the reveal"),
    "quiz_votes": ("{n:,} 票", "{n:,} vote|{n:,} votes"),
    "quiz_revealed_by": ("{by} 揭晓", "revealed by {by}"),
    "quiz_timed_out": ("时间到，自动揭晓", "time ran out"),
    "quiz_unsent": ("投票没能发到群里，这一轮没有预测", "the poll could not be posted, so no "
                    "one predicted this round"),
    "quiz_model_took": ("模型的选择", "the model's choice"),
    "quiz_predicted": ("🗳 全班 {n}/{total} 猜中", "🗳 {n} of {total} predicted it"),
    "quiz_button_reveal": ("👁 揭晓", "👁 Reveal"),
    "quiz_answer_reveal": ("👁 揭晓", "👁 Revealing"),
    "quiz_not_yours": ("只有 {name} 或管理员可以揭晓。", "Only {name} or an admin can reveal."),
    "quiz_stale": ("这一轮已经揭晓了。", "This round has already been revealed."),
    "pause_button_run": ("▶ 执行", "▶ Run"),
    "pause_button_edit": ("✏️ 修改", "✏️ Edit"),
    "pause_button_skip": ("⏭ 跳过", "⏭ Skip"),
    "pause_button_stop": ("⏹ 停止", "⏹ Stop"),
    "pause_answer_run": ("▶ 执行", "▶ Running it"),
    "pause_answer_edit": ("✏️ 请回复新的参数", "✏️ Reply with the new arguments"),
    "pause_answer_skip": ("⏭ 已跳过", "⏭ Skipped"),
    "pause_answer_stop": ("⏹ 正在停止", "⏹ Stopping"),
    "pause_not_yours": ("只有 {name} 或管理员可以决定。", "Only {name} or an admin can decide."),
    "pause_stale": ("这一步已经决定过了。", "This step has already been decided."),
    "pause_timeout_reason": ("{s} 秒内无人决定，运行已停止。",
                            "No decision within {s} s, so the run stopped."),
    "pause_stopped_reason": ("由 {name} 停止。", "Stopped by {name}."),
    # --- A run as an HTML file (/export) ---
    "export_title": ("Glassbox 记录 #{n}", "Glassbox transcript #{n}"),
    "export_footer": ("由 Glassbox 导出", "Exported from Glassbox"),
    "export_asked_by": ("提问人", "Asked by"),
    "export_when": ("时间", "When"),
    "export_mode": ("模式", "Mode"),
    "export_sides": ("对比的记录", "Runs compared"),
    "export_model": ("模型", "Model"),
    "export_status": ("状态", "Status"),
    "export_duration": ("用时", "Duration"),
    "export_tokens": ("Token", "Tokens"),
    "export_token_counts": ("输入 {prompt:,} · 输出 {completion:,}",
                            "{prompt:,} in · {completion:,} out"),
    "export_failed": ("失败", "failed"),
    "export_difference": ("两个回答的区别", "How the answers differ"),
    # --- Which kind a run was and how it ended: /history, /show and the export ---
    "failure_bad_arguments": ("参数有误", "bad arguments"),
    "failure_unknown_tool": ("没有这个工具", "no such tool"),
    "failure_timeout": ("超时", "timed out"),
    "failure_tool_error": ("工具报错", "tool error"),
    "failure_upstream_error": ("外部服务出错", "upstream service failed"),
    "failure_skipped": ("被跳过", "skipped by a person"),
    "failure_not_run": ("未运行", "not run"),
    "status_running": ("进行中", "running"),
    "status_done": ("完成", "done"),
    "status_max_rounds": ("达到轮数上限", "round limit reached"),
    "status_error": ("出错", "error"),
    "status_cancelled": ("已停止", "stopped"),
    "status_interrupted": ("被中断", "interrupted"),
    "mode_ask": ("提问", "ask"),
    "mode_plain": ("仅模型", "plain"),
    "mode_compare": ("对比", "compare"),
    "mode_runs": ("对比记录", "runs compared"),
    "mode_models": ("模型对比", "models compared"),
    "lane_plain": ("仅模型（不用工具）", "Model alone (no tools)"),
    "lane_react": ("ReAct（使用工具）", "ReAct (with tools)"),
    # --- The command menus Telegram shows (bot/telegram/handlers/commands.py) ---
    "command_ask": ("用工具一步步回答问题", "Answer step by step, with tools"),
    "command_plain": ("只用模型回答，不用工具", "Answer with the model alone, no tools"),
    "command_compare": ("并排对比：有无工具、两个模型（/compare A B 问题）或两条记录",
                        "Side by side: with and without tools, two models (/compare A B q), "
                        "two runs"),
    "command_rerun": ("重问一次，与原来的并排：/rerun 编号 [模型]",
                      "Ask run n again, beside it: /rerun n [model]"),
    "command_plan": ("先列计划，再一步步回答", "Make a plan first, then answer step by step"),
    "command_step": ("每次行动前暂停，由你决定", "Pause before every action: you decide"),
    "command_quiz": ("全班先猜模型下一步，再揭晓", "The class predicts each step, then sees it"),
    "command_examples": ("示例问题，点一下就运行", "Preset questions to tap"),
    "command_stop": ("停止你正在运行的问题", "Stop your running question"),
    "command_history": ("本聊天的记录：页码或关键词", "Earlier runs here: a page or a keyword"),
    "command_show": ("重放一次完整的过程：/show 编号", "Replay a whole chain: /show n"),
    "command_export": ("把一次记录导出为 HTML 文件", "Download a run as an HTML file"),
    "command_forget": ("删除一条记录，或 all（管理员）", "Delete a run, or all (admins)"),
    "command_board": ("课堂看板链接（投影用）", "The class board link, for a projector"),
    "command_stats": ("课程统计图：/stats、/stats 7d 或日期范围",
                      "The course as a picture: /stats, /stats 7d or a date range"),
    "command_settings": ("本聊天的设置（管理员可修改）",
                         "This chat's settings (admins change them)"),
    "command_notes": ("课程笔记：带 /notes 说明发送文件即可添加",
                      "Course notes: send a file captioned /notes"),
    "command_help": ("Glassbox 是什么，ReAct 怎么工作", "What Glassbox does and how ReAct works"),
    "command_start": ("开始使用 Glassbox", "Start using Glassbox"),
    # --- Spans of time and lists (bot/view/when.py, grounding.py) ---
    "wait_minutes": ("{minutes} 分钟", "{minutes} min"),
    "wait_hours": ("{hours} 小时", "{hours} h"),
    "list_sep": ("、", ", "),
    # --- The class board (bot/view/board_html.py) ---
    "board_title": ("Glassbox 课堂看板", "Glassbox class board"),
    "board_waiting": ("等待本聊天的问题…（/ask 或 /compare）",
                      "Waiting for a question in this chat… (/ask or /compare)"),
    "board_next": ("智能体下一步会做什么？（按空格揭晓）",
                   "What will the agent do next? (space to reveal)"),
    "board_chains": ("两条过程（点击展开）", "Both chains (click to open)"),
    "board_rail": ("其他记录：{n}", "other runs: {n}"),
    "board_pinned": ("📌 已固定 #{n} · P 取消固定 · F 跟随 {name}",
                     "📌 #{n} pinned · P unpin · F follow {name}"),
    "board_following": ("👩‍🏫 跟随 {name} · P 固定", "👩‍🏫 following {name} · P pin"),
    "board_lead": ("老师", "the teacher"),
    "board_keys": ("← → 切换记录 · + − 字号 · T 主题 · R 揭晓模式 · 空格 下一步",
                   "← → runs · + − size · T theme · R reveal mode · space next step"),
}


def lang_code(lang: str) -> str:
    """`zh` or `en`: the language that `text()` and `phrase()` answer `lang` in."""
    return pick(lang, "zh", "en")


def text(lang: str, key: str, count: int | None = None, /, **values: Any) -> str:
    """The chat message `key` (Telegram HTML) in `lang`, `values` filled in HTML-escaped.
    With a `count`, the form for it of a template that has two (singular|plural); it is
    positional only, so a template may still name a value `count`."""
    template = pick(lang, *_HTML[key])
    if count is not None:
        template = counted(template, count)
    return template.format(**{k: html.escape(str(v)) for k, v in values.items()})


def phrase(lang: str, key: str, **values: Any) -> str:
    """The plain words `key` in `lang`, `values` filled in as they are: not HTML, so the
    caller escapes the result (spans.to_html does it for render)."""
    return pick(lang, *_PLAIN[key]).format(**values)


def plural(lang: str, key: str, n: int) -> str:
    """The words `key` for a count `n`: an English template holds the singular and the
    plural form, split by `|` ("1 tool call", "1,280 tool calls"); Chinese has one form."""
    return counted(pick(lang, *_PLAIN[key]), n).format(n=n)


def status_label(status: str, lang: str) -> str:
    """How a run ended (or that it is still running); a status we have no words for as is."""
    key = f"status_{status}"
    return phrase(lang, key) if key in _PLAIN else status


_ENDINGS = {"error": ("❌", "chain_failed"), "cancelled": ("⏹", "chain_stopped"),
            "max_rounds": ("⚠️", "chain_round_limit")}


def ending_line(status: str, reason: str, lang: str) -> str:
    """'❌ why', '⏹ why' or '⚠️ why': how a run that did not end well ended (its own
    `reason`, else the usual words); empty for a run that ended well."""
    if status not in _ENDINGS:
        return ""
    mark, key = _ENDINGS[status]
    return f"{mark} {reason or phrase(lang, key)}"


def answer_heading(answer_model: str, lang: str) -> str:
    """The answer's heading: it names the model that wrote it when a second one did."""
    return phrase(lang, "chain_answer_by", model=answer_model) if answer_model else (
        phrase(lang, "chain_answer"))


def failure_label(failure: str, lang: str) -> str:
    """Why a tool call gave no result (agent.events.ObservationFailure); unknown ones as is."""
    key = f"failure_{failure}"
    return phrase(lang, key) if key in _PLAIN else failure


def mode_label(mode: str, lang: str) -> str:
    """The kind of run (ask, plain, compare); a mode we have no words for as is."""
    key = f"mode_{mode}"
    return phrase(lang, key) if key in _PLAIN else mode


def side_label(origin: Origin, lang: str) -> str:
    """A copied lane's heading: which run it is, who asked, when, in which mode."""
    return f"#{origin.n} · {origin.asker} · {origin.when} · {mode_label(origin.mode, lang)}"


def sides_text(left: str, right: str) -> str:
    """'#3 → #5' or 'local → cloud': two sides (Transcript.side_name) as the cost line names
    them ('' for a /compare's model alone and with tools)."""
    return f"{left} → {right}" if left and right else ""


def side_heading(t: Transcript, lang: str) -> str:
    """The heading of one side of a comparison of two runs: the copied run's label, or the
    named model's; empty for any other lane."""
    if t.origin is not None:
        return side_label(t.origin, lang)
    return phrase(lang, "compare_model_side", model=t.model) if t.named_side else ""


def lane_label(lane: str, lang: str) -> str:
    """The heading of a compare run's lane; a run's only lane (`main`) has none: empty."""
    return "" if lane == "main" else phrase(lang, f"lane_{lane}")
