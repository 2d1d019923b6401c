"""The marks a test gets from what it uses, given at collection (tests/conftest.py), so a test
is marked as it is written:

- `browser`: it drives chromium (it asks for the `browser` or `chromium` fixture), and runs
  in the session's event loop, where the session's chromium lives;
- `process`: it starts a process of its own (its code, or a helper of tests' it calls,
  names `subprocess`), such as `python -m bot`;
- `timed`: it times our code by the wall clock (`perf_counter`): under pytest-xdist it runs
  while no other test does (tests/alone.py). A test that times the CPU its own thread
  spends (`thread_time`) needs no such turn;
- `slow`: every browser and process test, and the in-process tests in SLOW, which take
  seconds by design. `scripts/test -m "not slow"` is the everyday run; CI runs them all."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Iterable, Iterator
from enum import StrEnum
from pathlib import Path
from types import CodeType, FunctionType
from typing import Any

import pytest


class Mark(StrEnum):
    BROWSER = "browser"
    PROCESS = "process"
    TIMED = "timed"
    SLOW = "slow"


BROWSER_FIXTURES = frozenset({"browser", "chromium"})
PROCESS_NAMES = frozenset({"subprocess", "create_subprocess_exec", "create_subprocess_shell"})
TIMER_NAMES = frozenset({"perf_counter"})

SLOW = (
    # Each times its steps over hundreds of thousands of characters of hostile text.
    "tests/faults/test_hostile_text.py::test_each_step_reads_hostile_text_in_linear_time",
    "tests/faults/test_hostile_text.py::test_eight_times_the_text_takes_about_eight_times_as_",
    # Waits out a connect timeout of its own length.
    "tests/test_model_unreachable.py::test_a_connect_that_hangs_is_reported_within_20_s",
    # Telegram's pace of drafts and flood waits, kept to the second.
    "tests/test_bot_live.py::test_a_final_state_uses_telegrams_short_burst_and_drafts_do_not",
    "tests/test_bot_live.py::test_drafts_keep_to_one_a_second",
    "tests/test_bot_quiz.py::test_a_poll_telegram_holds_back_is_sent_after_the_wait",
    # Many chats at once, to see how they share the bot.
    "tests/test_bot_scale.py::test_a_busy_group_gets_fewer_drafts_not_later_answers",
    "tests/test_bot_scale.py::test_past_the_limit_questions_queue_fairly_across_chats",
    "tests/faults/test_send_rate.py::test_a_class_of_wrong_commands_never_holds_back_an_answer",
    "tests/web/test_board.py::test_a_class_streaming_at_once_reaches_the_board_in_batches",
    # A class at once on a small PostgreSQL plan; a database that hangs for a statement's
    # timeout, or comes back after the breaker's and the backlog's waits.
    "tests/faults/test_database.py::test_sixty_students_at_once_on_a_plan_of_six_connections",
    "tests/faults/test_database.py::test_another_instance_holding_five_of_six_connections",
    "tests/faults/test_database.py::test_statements_wait_their_turn_for_the_one_connection_w",
    "tests/faults/test_database.py::test_a_statement_waiting_for_a_turn_ends_at_its_timeout",
    "tests/faults/test_database.py::test_a_frozen_database_holds_one_answer_at_most_one_time",
    "tests/faults/test_database.py::test_a_run_the_outage_cut_short_is_stored_whole_once_the",
    # Two stored runs of 5,000 steps copied into a comparison.
    "tests/test_bot_compare_runs.py::test_a_run_of_thousands_of_steps_is_copied_whole",
    # Two terminal processes one after the other, through the bench's own helper.
    "tests/test_bench_terminal.py::test_each_question_is_a_terminal_process_and_the_median_",
    "tests/test_bench_terminal.py::test_remembered_the_terminal_starts_in_text_from_its_first",
    # Real OCR of photos, a few seconds each on two free cores.
    "tests/test_photo_ocr.py::test_the_labelled_set_is_read_right",
    "tests/test_photo_ocr.py::test_a_chinese_receipt_is_read_with_its_figures",
    "tests/test_photo_ocr.py::test_an_english_exercise_is_read",
    "tests/test_photo_ocr.py::test_a_picture_without_text_says_so",
    "tests/test_bot_photos.py::test_a_photo_with_ask_shows_what_was_read_before_the_answer",
    "tests/test_bot_photos.py::test_a_photo_in_a_private_chat_without_a_caption_is_asked_",
    "tests/test_bot_photos.py::test_ask_as_a_reply_to_a_photo_asks_about_it",
    "tests/test_bot_photos.py::test_quiz_as_a_reply_to_a_photo_has_the_class_predict_first",
    "tests/test_bot_photos.py::test_an_album_is_asked_about_together",
    "tests/test_bot_photos.py::test_a_photo_without_text_says_so_and_answers_from_the_capt",
    "tests/test_bot_vision.py::test_a_refused_photo_is_read_by_glassbox_and_the_refusal_is_re",
    "tests/test_bot_vision.py::test_photo_reading_ocr_reads_the_photo_even_for_a_model_that_s",
    "tests/web/test_api_images.py::test_bare_base64_is_read_by_the_ocr_and_the_run_json_has_",
    "tests/test_endpoint_memory.py::test_an_endpoint_that_refused_a_photo_reads_the_next_by_o",
    # Starts the embedded Whisper's process, whose imports take seconds.
    "tests/test_bot_voice.py::test_a_file_that_is_no_sound_is_refused_politely",
    # The course's pictures drawn by matplotlib in the drawing process: its start, then a
    # second or more a picture on two free cores.
    "tests/test_bot_stats.py::test_an_admin_gets_the_class_s_picture_in_both_languages",
    "tests/test_bot_stats.py::test_a_student_gets_their_own_numbers_privately",
    "tests/test_bot_stats.py::test_a_student_the_bot_cannot_write_to_is_told_how",
    "tests/web/test_course_page.py::test_the_page_shows_the_figures_and_links_each_question",
    "tests/test_course_chart.py::test_drawing_runs_in_its_own_process_while_the_loop_goes_on",
    "tests/test_course_chart.py::test_a_chat_draws_one_picture_at_a_time_and_few_wait",
    "tests/test_course_chart.py::test_a_picture_past_its_time_is_refused_and_the_next_drawn",
    # Pages of a 40-character limit over long texts.
    "tests/test_paginate.py::test_every_page_shows_something_within_the_limit_and_nothing_v",
)
"""In-process tests that take seconds by design (nodeid prefixes)."""


def _code_names(code: CodeType) -> Iterator[str]:
    """The global and attribute names `code` uses, its nested functions' included."""
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from _code_names(const)


def _helpers(value: Any) -> Iterator[FunctionType]:
    """The functions of tests' own helpers (tests/, testkit/) behind a name: a function
    (unwrapped from its decorators) or a class's methods. The code under test and libraries
    are not followed."""
    if not str(getattr(value, "__module__", "")).startswith(("tests", "testkit")):
        return
    if inspect.isclass(value):
        for member in vars(value).values():
            yield from _helpers(getattr(member, "__func__", getattr(member, "fget", member)))
        return
    function = inspect.unwrap(value) if callable(value) else None
    if isinstance(function, FunctionType):
        yield function


_reached: dict[Callable[..., Any], frozenset[str]] = {}


def names_reached(function: Callable[..., Any]) -> frozenset[str]:
    """Every name `function` and the tests' helpers it calls use, however deep."""
    if function not in _reached:
        names: set[str] = set()
        seen: set[FunctionType] = set()
        todo = list(_helpers(function)) or [inspect.unwrap(function)]
        while todo:
            current = todo.pop()
            if current in seen or not isinstance(current, FunctionType):
                continue
            seen.add(current)
            for name in _code_names(current.__code__):
                names.add(name)
                todo.extend(_helpers(current.__globals__.get(name)))
        _reached[function] = frozenset(names)
    return _reached[function]


def marks_of(item: pytest.Item) -> set[Mark]:
    """The marks `item` gets."""
    marks: set[Mark] = set()
    names = names_reached(item.function) if isinstance(item, pytest.Function) else frozenset()
    if BROWSER_FIXTURES & set(getattr(item, "fixturenames", ())):
        marks.add(Mark.BROWSER)
    if PROCESS_NAMES & names:
        marks.add(Mark.PROCESS)
    if marks or item.nodeid.startswith(SLOW):
        marks.add(Mark.SLOW)
    if TIMER_NAMES & names:
        marks.add(Mark.TIMED)
    return marks


class SlowWatch:
    """Names, at the end of a run, the tests not marked slow that took longer than
    UNMARKED_LIMIT_S (setup and teardown included): mark them in SLOW, or make them faster."""

    UNMARKED_LIMIT_S = 5.0

    def __init__(self) -> None:
        self.took: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if Mark.SLOW.value not in report.keywords:
            self.took[report.nodeid] = self.took.get(report.nodeid, 0.0) + report.duration

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        over = sorted(((s, n) for n, s in self.took.items() if s > self.UNMARKED_LIMIT_S),
                      reverse=True)
        if over:
            terminalreporter.write_sep(
                "-", f"not marked slow, yet longer than {self.UNMARKED_LIMIT_S:g} s "
                     "(tests/marks.py)")
            for seconds, nodeid in over:
                terminalreporter.write_line(f"{seconds:6.1f} s  {nodeid}")


def names_tests(entry: str) -> bool:
    """Whether `entry` of a list of tests (SLOW here, LONG in tests/spread.py), a test file or
    `file::` a prefix of test names, names tests that exist: a test renamed or moved would
    otherwise drop out of the list unseen."""
    path, _, prefix = entry.partition("::")
    if not (Path(__file__).resolve().parent.parent / path).is_file():
        return False
    module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
    return any(name.startswith(prefix) for name in vars(module)) if prefix else True


def mark_all(items: Iterable[pytest.Item]) -> None:
    """Give each item its marks."""
    for item in items:
        marks = marks_of(item)
        for mark in marks:
            item.add_marker(mark.value)
        if Mark.BROWSER in marks and inspect.iscoroutinefunction(getattr(item, "obj", None)):
            item.add_marker(pytest.mark.asyncio(loop_scope="session"), append=False)
