"""The period's runs as CSV for the teacher's spreadsheet: one line a run, oldest first, the
header in the page's language. Pure.

Nothing of Glassbox's own (no token, key or path) is in it: only what the chat showed. A
question that starts like a formula (= + - @) is written with a leading apostrophe, so a
spreadsheet shows it as text instead of running it (a student wrote it).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from zoneinfo import ZoneInfo

from bot.course.course_words import word
from bot.store.course_records import RunLine

COLUMNS = ("time", "asker", "number", "mode", "question", "tools", "status", "rounds",
           "tokens", "seconds", "quiz")
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def runs_csv(lines: Sequence[RunLine], lang: str, zone: str, *, anonymous: bool) -> str:
    """`anonymous`: askers as "Student 1", "Student 2"… in the order they first asked in
    the period (COURSE_ANONYMOUS_ASKERS), instead of their names."""
    tz = ZoneInfo(zone)
    numbers: dict[int | None, int] = {}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([word(lang, f"csv_{column}") for column in COLUMNS])
    for line in lines:
        asker = line.user_name
        if anonymous:
            asker = word(lang, "student", n=numbers.setdefault(line.user_id, len(numbers) + 1))
        status = f"{line.status}: {line.error_kind}" if line.error_kind else line.status
        writer.writerow([
            line.started_at.astimezone(tz).strftime("%Y-%m-%d %H:%M"), _cell(asker), line.n,
            line.mode, _cell(line.question), " ".join(line.tools), status, line.rounds,
            line.tokens, "" if line.duration_ms is None else f"{line.duration_ms / 1000:.1f}",
            f"{line.quiz_right}/{line.quiz_rounds}" if line.quiz_rounds else ""])
    return out.getvalue()


def _cell(text: str) -> str:
    return "'" + text if text.startswith(FORMULA_STARTS) else text
