"""Which pytest-xdist worker runs which tests, in `scripts/test`'s `--dist loadfile` (this
scheduler takes the place of xdist's own there): a file's tests run on one worker, so a
module's fixtures (the gallery's play of every scenario) are made once, but the long units
go first, each to a worker of its own.

xdist's loadfile hands out files in the order of their number of tests, so a file of a few
long tests (the voice's accuracy, the benches' quick runs) started last and the run ended
with it running alone on one worker. Here a worker with nothing long in hand takes the
longest unit left (LONG, in its order, then the files with the most tests); a worker still
running a long unit is given the shortest file left to follow it (a worker needs a test
queued after the one it runs, so it always gets one): never a second long unit behind the
first while another worker idles."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xdist.scheduler import LoadScopeScheduling

LONG = (
    "tests/test_photo_ocr.py::test_the_labelled_set_is_read_right",
    "tests/test_voice_accuracy.py::test_mandarin_questions_are_heard_in",
    "tests/test_voice_accuracy.py::test_english_questions_are_heard_within_15",
    "tests/test_bench_smoke.py::test_the_media_bench_measures_a_quick_run",
    "tests/test_bot_voice.py",
    "tests/faults/test_hostile_text.py",
    "tests/test_bench_smoke.py",
    "tests/test_gallery.py",
    "tests/test_bot_photos.py",
    "tests/test_photo_ocr.py",
    "tests/test_cli.py",
    "tests/web/test_course_page.py",
    "tests/faults/test_database_url.py",
    "tests/faults/test_uploads.py",
    "tests/test_bot_vision.py",
    "tests/test_bot_stats.py",
)
"""The units that take longest (a whole run's `--durations=0`, summed by unit), longest
first. A file is one unit; the tests a node id's prefix names (`file::test…`) are a unit of
their own, run beside the rest of their file, so they must not share a module-scoped fixture
with it."""


def _within(nodeid: str, unit: str) -> bool:
    return nodeid.startswith(unit if "::" in unit else unit + "::")


class LongestFirst(LoadScopeScheduling):
    """xdist's scheduling by scope, a scope being a LONG unit or else a file."""

    def __init__(self, config: Any, log: Any = None, long: Sequence[str] = LONG) -> None:
        super().__init__(config, log)
        self.long = tuple(long)

    def _split_scope(self, nodeid: str) -> str:
        """The LONG unit that names `nodeid` most closely (a test's before its file's), else
        its file."""
        return max((unit for unit in self.long if _within(nodeid, unit)), key=len,
                   default=nodeid.split("::", 1)[0])

    def _rank(self, scope: str) -> tuple[int, int]:
        """Larger for a unit expected to take longer: LONG's in their order, above every
        other file, which are ranked by their number of tests."""
        if scope in self.long:
            return 1, -self.long.index(scope)
        return 0, len(self.workqueue[scope])

    def _running_long(self, node: Any) -> bool:
        return any(scope in self.long and not all(done.values())
                   for scope, done in self.assigned_work.get(node, {}).items())

    def _assign_work_unit(self, node: Any) -> None:
        pick = min if self._running_long(node) else max
        self.workqueue.move_to_end(pick(self.workqueue, key=self._rank), last=False)
        super()._assign_work_unit(node)
