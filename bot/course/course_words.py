"""The course's words in Chinese and English: the charts' titles and labels, the caption,
the page and the CSV's header. Plain text (the page escapes it); looked up as
bot.view.i18n.phrase looks up its own (Chinese for any `zh…` code)."""

from __future__ import annotations

from typing import Any

from agent.lang import counted, pick

_WORDS: dict[str, tuple[str, str]] = {
    "title": ("课程概览", "The course"),
    "period": ("{first} 至 {last}", "{first} to {last}"),
    "n_questions": ("{n:,} 个问题", "{n:,} question|{n:,} questions"),
    "n_lectures": ("{n} 次课", "{n} lecture|{n} lectures"),
    "n_askers": ("{n} 人提问", "{n} asker|{n} askers"),
    "nothing": ("这段时间没有问题。", "No questions in this period."),
    "per_lecture": ("每次课的问题（按方式）", "Questions per lecture, by mode"),
    "questions": ("问题", "questions"),
    "mode_ask": ("ask 工具", "ask"),
    "mode_plain": ("plain 仅模型", "plain"),
    "mode_compare": ("compare 对比", "compare"),
    "mode_quiz": ("quiz 预测", "quiz"),
    "mode_step": ("step 逐步", "step"),
    "tools": ("工具调用与失败", "Tools called, and how often each failed"),
    "calls_ok": ("成功", "worked"),
    "calls_failed": ("失败", "failed"),
    "no_tools": ("没有调用工具。", "No tool was called."),
    "endings": ("结局", "How runs ended"),
    "end_done": ("完成", "done"),
    "end_out_of_rounds": ("轮数用完", "out of rounds"),
    "end_failed": ("失败：{kind}", "failed: {kind}"),
    "end_failed_unknown": ("失败", "failed"),
    "end_stopped": ("被停止", "stopped"),
    "end_interrupted": ("被重启打断", "interrupted"),
    "end_running": ("仍在运行", "running"),
    "end_refused_rate": ("被拒：频率限制", "refused: rate limit"),
    "end_refused_budget": ("被拒：今日额度", "refused: daily budget"),
    "compare": ("/compare：仅模型与用工具的数字不同", "/compare: model alone vs tools"),
    "compare_same": ("数字一致", "same figures"),
    "compare_differ": ("数字不同", "figures differ"),
    "no_compare": ("没有 /compare。", "No /compare."),
    "quiz": ("/quiz：全班首选猜中的比例（每次课）",
             "/quiz: the class's top pick right, per lecture"),
    "quiz_share": ("猜中比例", "share right"),
    "no_quiz": ("没有投票的 /quiz。", "No /quiz with votes."),
    "tokens": ("每天的 token 与每日额度", "Tokens per day, against the daily budget"),
    "budget": ("每日额度 {budget:,}", "daily budget {budget:,}"),
    "caption_tools": ("工具 {calls} 次，失败 {failed} 次", "{calls} tool calls, {failed} failed"),
    "caption_compare": ("/compare 数字不同 {differed}/{compared}",
                        "/compare differed {differed} of {compared}"),
    "caption_quiz": ("/quiz 首选猜中 {right}/{rounds} 轮",
                     "/quiz top pick right {right} of {rounds} rounds"),
    "caption_tokens": ("{tokens:,} token", "{tokens:,} tokens"),
    "caption_own": ("（只有你自己的问题）", "(your own questions only)"),
    "caption_page": ("课程页（更大，含问题列表和 CSV）：在群里发送 /board 获取看板链接，"
                     "在其后加 /course。",
                     "The course page (larger, with the lists and a CSV): the board's link "
                     "(/board) followed by /course."),
    "list_differing": ("仅模型答错数字的问题", "Where the model alone differed on a figure"),
    "list_missed": ("全班猜得最差的轮次", "The rounds the class got most wrong"),
    "colon": ("：", ": "),
    "list_round": ("第 {round} 轮：{right}/{voters} 猜中",
                   "round {round}: {right} of {voters} right"),
    "pick_from": ("从", "From"),
    "pick_to": ("到", "to"),
    "pick_show": ("显示", "Show"),
    "csv_link": ("下载这段时间的 CSV", "Download this period as CSV"),
    "csv_time": ("时间", "time"),
    "csv_asker": ("提问者", "asker"),
    "csv_number": ("编号", "number"),
    "csv_mode": ("方式", "mode"),
    "csv_question": ("问题", "question"),
    "csv_tools": ("工具", "tools"),
    "csv_status": ("结局", "status"),
    "csv_rounds": ("轮数", "rounds"),
    "csv_tokens": ("token", "tokens"),
    "csv_seconds": ("秒", "seconds"),
    "csv_quiz": ("quiz 首选猜中轮数", "quiz rounds top pick right"),
    "student": ("学生 {n}", "Student {n}"),
    "period_unreadable": (
        "看不懂这个时间段。可以这样写：/stats、/stats 7d、/stats 2026-09-01..2026-12-31。",
        "I can't read that period. Try /stats, /stats 7d or /stats 2026-09-01..2026-12-31."),
    "period_too_long": ("时间段最长 {most} 天。", "A period is at most {most} days long."),
    "period_backwards": ("结束日期早于开始日期。", "The period ends before it starts."),
    "drawing_already": ("这个聊天的图正在画，请等它画完。",
                        "This chat's picture is being drawn: wait for it, please."),
    "drawing_busy": ("现在要画的图太多了，请过一会儿再试。",
                     "Too many pictures are being drawn right now; try again in a minute."),
    "drawing_failed": ("图没画出来，请稍后再试。",
                       "The picture could not be drawn; try again later."),
}


def word(lang: str, key: str, **values: Any) -> str:
    return pick(lang, *_WORDS[key]).format(**values)


def word_for(lang: str, key: str, n: int, **values: Any) -> str:
    """`key` for a count `n` (an English template may hold singular|plural)."""
    return counted(pick(lang, *_WORDS[key]), n).format(n=n, **values)
