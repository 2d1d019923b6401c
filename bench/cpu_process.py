"""What `python -m bench --answer-cpu`, `--delivery-cpu` and `--wire-floor` share: each
measures in a process of its own, started from any checkout's code, and prints before and
after side by side: processes of the two codes in pairs, each side's median and spread, and
whether the pairs' differences go beyond the noise of a shared machine.

The measured process runs the bench's own file with another ref's code on its path, so it
must not import this module (an older ref has none): only the measuring side does."""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.stage import ROOT
from testkit.agentkit import TEST_KEY
from testkit.fakes.telegram import TOKEN

_ONLY_ITS_CODE = """import sys
sys.meta_path[:] = [f for f in sys.meta_path
                    if not getattr(f, "__module__", "").startswith("__editable__")]
with open({source!r}, encoding="utf-8") as file:
    exec(compile(file.read(), {source!r}, "exec"), {{"__name__": "__main__"}})
"""
"""The measured process: `source` run as its main module with the code on its path alone.
The editable install of this checkout (`pip install -e .`) would otherwise supply any module
of agent/, bot/ or wire/ that the ref has not (a module renamed since): this checkout's code
measured as the ref's."""


TIMES = 6
"""Processes per code: with REF, the pairs whose differences say whether a difference is
beyond the noise (`Sides.verdict`); 6 is the fewest that can (all six one way)."""
ALONE_TIMES = 3
"""Processes of a bench that measures this checkout alone (its median)."""
SIGNIFICANT = 0.05
"""A difference is beyond the noise when pairs as one-sided as these come by chance alone
(were there no difference) at most this often."""


def in_process(source: Path, code: Path, *args: str) -> dict[str, Any]:
    """Run the bench module `source` (_ONLY_ITS_CODE) with `--client args… DIR` (DIR a fresh
    temporary folder, also its working directory) and `code` first on its path, so a
    checkout of another ref measures that ref's code; its last line of output, as JSON.
    The process has the fakes' key and token in OPENAI_API_KEY and TELEGRAM_BOT_TOKEN: it
    imports nothing of testkit/, which an older ref has not."""
    with tempfile.TemporaryDirectory(prefix=f"glassbox-{source.stem}-") as tmp:
        env = {**os.environ, "PYTHONPATH": str(code),  # `-c`: nothing of ROOT is implied
               "OPENAI_API_KEY": TEST_KEY, "TELEGRAM_BOT_TOKEN": TOKEN}
        out = subprocess.run(
            [sys.executable, "-c", _ONLY_ITS_CODE.format(source=str(source)), "--client",
             *args, tmp],
            capture_output=True, text=True, env=env, cwd=tmp, check=False)
    if out.returncode:
        raise RuntimeError(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def options(option: str, doc: str | None, *, against: bool = True) -> argparse.ArgumentParser:
    """The measuring side's options after `python -m bench OPTION` (the measured process
    gets `--client …` instead); `against`: whether it can measure another ref's code too."""
    parser = argparse.ArgumentParser(prog=f"python -m bench {option}", description=doc)
    if against:
        parser.add_argument("--against", metavar="REF",
                            help="also measure this git ref's code")
    times = TIMES if against else ALONE_TIMES
    parser.add_argument("--times", type=int, default=times,
                        help=f"processes per code (default {times})")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run (a few runs, one round, one process): figures not "
                             "to quote")
    return parser


def side_by_side(against: str | None, times: int, name: str,
                 measure: Callable[[Path], dict[str, Any]]) -> Sides:
    """`measure(code)` `times` over for this checkout and for REF (`against`), in pairs whose
    order turns each time (REF then this, this then REF, …): both share the machine's load
    of the moment, and neither always goes first into a load that rises or falls."""
    from bench.scale import checkout

    with contextlib.ExitStack() as stack:
        codes = {"this": ROOT}
        if against:
            codes = {against: stack.enter_context(checkout(against)), **codes}
        got: dict[str, list[dict[str, Any]]] = {label: [] for label in codes}
        loads = [os.getloadavg()[0]]
        for n in range(times):
            for label in list(codes)[::1 if n % 2 == 0 else -1]:
                print(f"{name}: {label} …", file=sys.stderr)
                got[label].append(measure(codes[label]))
                loads.append(os.getloadavg()[0])
    return Sides(got, against, (min(loads), max(loads)))


@dataclass(frozen=True)
class Sides:
    """Each code's figures (one a process) by label, "this" last; the nth of each side were
    measured one after the other."""

    got: dict[str, list[dict[str, Any]]]
    against: str | None
    load: tuple[float, float]
    """The machine's 1-minute load average, least and most, sampled between processes."""

    def spread(self, label: str, key: str) -> str:
        """The median of `key` and its least and most: `10.4 ms (10.1–10.9)`."""
        values = sorted(r[key] for r in self.got[label])
        return f"{statistics.median(values):.1f} ms ({values[0]:.1f}–{values[-1]:.1f})"

    def verdict(self, key: str, what: str = "") -> str:
        """This code against REF's: the medians' difference, each pair's difference (the nth
        process of each side, measured one after the other), and whether it is beyond the
        noise by the sign test: how often pairs at least as one-sided would come by chance
        alone. The load of the run besides; `what`: the figure's name, before it."""
        load = f"load average {self.load[0]:.1f}–{self.load[1]:.1f} (1 min) during the run"
        if self.against is None:
            return f"{load}."
        before = [r[key] for r in self.got[self.against]]
        after = [r[key] for r in self.got["this"]]
        medians = statistics.median(after) / statistics.median(before) - 1
        pairs = sorted(a / b - 1 for a, b in zip(after, before, strict=True))
        more, less = sum(p > 0 for p in pairs), sum(p < 0 for p in pairs)
        chance = sign_test(more, less)
        if chance > SIGNIFICANT:
            said = "within noise"
        else:
            said = f"{'more' if more > less else 'less'} than {self.against}"
        return (f"{what}this against {self.against}: {medians:+.1%} by the medians; pair by pair "
                f"{pairs[0]:+.1%} … {pairs[-1]:+.1%} (median {statistics.median(pairs):+.1%}; "
                f"{more} of {len(pairs)} pairs more, by chance alone {chance:.0%} of the time): "
                f"**{said}**; {load}.")


def sign_test(more: int, less: int) -> float:
    """The two-sided sign test: the chance that `more + less` differences with no difference
    behind them split at least as unevenly as `more` to `less`."""
    n, k = more + less, max(more, less)
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k, n + 1)) / 2 ** n) if n else 1.0
