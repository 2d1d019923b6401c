"""The scheduler (tests/spread.py) gives each worker a long unit first, follows a long unit
with the shortest file left, never with a second long one, and keeps a file's tests on one
worker; each LONG entry names tests that exist (a renamed one would drop out unseen). The
workers are stand-ins that record what they are sent, as xdist's own scheduling tests do."""

from __future__ import annotations

from types import SimpleNamespace

from tests.marks import names_tests
from tests.spread import LONG, LongestFirst


class Worker:
    """What the scheduler sees of an xdist worker: the tests it is sent, and its shutdown."""

    def __init__(self, name: str) -> None:
        self.gateway = SimpleNamespace(id=name)
        self.sent: list[int] = []
        self.shutting_down = False

    def send_runtest_some(self, indices: list[int]) -> None:
        self.sent.extend(indices)

    def shutdown(self) -> None:
        self.shutting_down = True


COLLECTION = [
    *(f"big.py::t{n}" for n in range(6)),
    "small.py::t0",
    "two.py::t0", "two.py::t1",
    "voice.py::test_english[a]", "voice.py::test_english[b]", "voice.py::test_mandarin",
    "voice.py::test_cap",
    "bench.py::t0", "bench.py::t1", "bench.py::t2",
]
LONG_HERE = ("voice.py::test_english", "bench.py", "voice.py::test_mandarin")


def started(workers: int, long: tuple[str, ...] = LONG_HERE
            ) -> tuple[LongestFirst, list[Worker]]:
    config = SimpleNamespace(getvalue={"tx": [f"{workers}*popen"]}.get,
                             option=SimpleNamespace(loadscopereorder=True))
    scheduler = LongestFirst(config, long=long)
    nodes = [Worker(f"gw{n}") for n in range(workers)]
    for node in nodes:
        scheduler.add_node(node)
        scheduler.add_node_collection(node, COLLECTION)
    scheduler.schedule()
    return scheduler, nodes


def sent(node: Worker) -> list[str]:
    return [COLLECTION[i] for i in node.sent]


def test_each_worker_starts_with_a_long_unit_and_is_given_a_short_file_after_it() -> None:
    _, (first, second) = started(2)
    assert sent(first) == ["voice.py::test_english[a]", "voice.py::test_english[b]",
                           "small.py::t0"]
    assert sent(second) == ["bench.py::t0", "bench.py::t1", "bench.py::t2"]


def test_a_worker_done_with_its_long_unit_takes_the_longest_left() -> None:
    scheduler, (first, second) = started(2)
    scheduler.mark_test_complete(first, first.sent[0])  # one English test to go
    assert sent(first)[3:] == ["voice.py::test_cap"]
    scheduler.mark_test_complete(first, first.sent[1])  # English done: short files to go
    assert sent(first)[4:] == ["voice.py::test_mandarin"]
    scheduler.mark_test_complete(second, second.sent[0])  # bench.py has two tests to go
    assert sent(second)[3:] == ["two.py::t0", "two.py::t1"]  # the shortest file left


def test_a_files_other_tests_stay_together_beside_its_long_ones() -> None:
    scheduler, _ = started(2)
    units = {scheduler._split_scope(nodeid) for nodeid in COLLECTION}
    assert units == {"big.py", "small.py", "two.py", "voice.py", *LONG_HERE}
    assert scheduler._split_scope("voice.py::test_cap") == "voice.py"
    listed_both = started(2, long=("voice.py", "voice.py::test_english"))[0]
    assert listed_both._split_scope("voice.py::test_english[a]") == "voice.py::test_english"
    assert listed_both._split_scope("voice.py::test_cap") == "voice.py"


def test_every_long_entry_names_tests() -> None:
    for entry in LONG:
        assert names_tests(entry), entry
