"""What `python -m bench --answer-cpu`, `--delivery-cpu` and `--wire-floor` share: each
measures in a process of its own, started from any checkout's code, and prints before and
after side by side.

The measured process runs the bench's own file with another ref's code on its path, so it
must not import this module (an older ref has none): only the measuring side does."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
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
    parser.add_argument("--times", type=int, default=3, help="processes per code (default 3)")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run (a few runs, one round, one process): figures not "
                             "to quote")
    return parser


def side_by_side(against: str | None, times: int, name: str,
                 measure: Callable[[Path], dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """`measure(code)` `times` over for this checkout, each time after REF's (`against`),
    so both share the machine's load of the moment; the figures by label."""
    from bench.scale import checkout

    with contextlib.ExitStack() as stack:
        codes = {"this": ROOT}
        if against:
            codes = {against: stack.enter_context(checkout(against)), **codes}
        got: dict[str, list[dict[str, Any]]] = {label: [] for label in codes}
        for _ in range(times):
            for label, code in codes.items():
                print(f"{name}: {label} …", file=sys.stderr)
                got[label].append(measure(code))
    return got
