"""The marks tests/marks.py gives follow from what a test uses, through the helpers it calls:
starting `python -m bot` through testkit/bot_process.py makes a process test, timing by the
wall clock makes a timed one, drawing a chain makes neither; and each test SLOW names is
there (a renamed test would otherwise drop out of it unseen). The test modules are imported
inside the tests, so that their tests are not collected here a second time."""

from __future__ import annotations

from tests.marks import PROCESS_NAMES, SLOW, TIMER_NAMES, names_reached, names_tests


def test_a_test_that_starts_the_bot_through_a_helper_starts_a_process() -> None:
    from tests.faults.test_shutdown import test_sigterm_while_runs_are_live

    assert PROCESS_NAMES & names_reached(test_sigterm_while_runs_are_live)


def test_a_test_that_times_by_the_wall_clock_is_timed() -> None:
    from tests.faults.test_hostile_text import (
        test_a_hostile_answer_streams_while_another_chat_is_answered as streams,
    )
    from tests.faults.test_hostile_text import (
        test_eight_times_the_text_takes_about_eight_times_as_long as eight_times,
    )

    assert TIMER_NAMES & names_reached(streams)
    assert not TIMER_NAMES & names_reached(eight_times)  # it counts its thread's CPU


def test_a_test_that_draws_a_chain_is_neither() -> None:
    from tests.test_render import test_a_finished_chain_shows_every_step_in_english as drawn

    assert not (PROCESS_NAMES | TIMER_NAMES) & names_reached(drawn)


def test_every_slow_entry_names_a_test() -> None:
    for entry in SLOW:
        assert "::" in entry and names_tests(entry), entry
