"""The benchmarks still run: `python -m bench --quick` (small, on a fast clock) prints the
table with every figure. The figures themselves are not checked here: speed goes to bench/."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench.__main__ import INSTEAD, main

ROOT = Path(__file__).resolve().parent.parent


def test_quick_bench_prints_the_whole_table() -> None:
    done = subprocess.run([sys.executable, "-m", "bench", "--quick"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ")]
    assert rows[0] == "| Figure | Value | Target | Met? |"
    names = "\n".join(row.split(" | ")[0] for row in rows[1:])
    for figure in ("Overhead, /ask of 3 rounds in a group chat", "Telegram calls for that run",
                   "answers delivered", "429s received", "run's end → final state on screen",
                   "Telegram calls in all", "peak memory of the bot process",
                   "/history page 1", "keyword search", "steps written per second",
                   "one edit of a 6-round chain", "longest loop stall, through the bot",
                   "Long answer", "upload → the bot's answer", "characters of hostile text"):
        assert figure in names, f"{figure!r} missing from:\n{done.stdout}"
    delivered = next(row for row in rows if "answers delivered" in row).split(" | ")[1]
    answered, asked = delivered.split(" / ")
    assert answered == asked


@pytest.mark.parametrize(("bench", "heading"), [
    ("--answer-cpu", "CPU per 3-round answer"),
    ("--delivery-cpu", "CPU per answer delivered"),
])
def test_cpu_benches_measure_a_quick_run(bench: str, heading: str) -> None:
    """The benches that measure the CPU per answer still run against today's code (each
    imports the bot's parts by name) and print a figure."""
    done = subprocess.run([sys.executable, "-m", "bench", bench, "--quick"], cwd=ROOT,
                          capture_output=True, text=True, timeout=150)
    assert done.returncode == 0, done.stderr[-2000:]
    assert heading in done.stdout
    [row] = [line for line in done.stdout.splitlines() if line.startswith("| this | ")]
    assert float(row.split(" | ")[1].split(" ms")[0]) > 0


def test_wire_floor_measures_a_quick_run() -> None:
    """`--wire-floor` (the CPU of an answer's HTTP alone) still drives the bot's own
    clients: each of its three figures comes from a finished run."""
    done = subprocess.run([sys.executable, "-m", "bench", "--wire-floor", "--quick"], cwd=ROOT,
                          capture_output=True, text=True, timeout=150)
    assert done.returncode == 0, done.stderr[-2000:]
    [row] = [line for line in done.stdout.splitlines() if line.startswith("| quick: ")]
    cells = [cell.strip(" *") for cell in row.strip("|").split("|")]
    assert cells[1] == "3.0"  # Telegram calls an answer: first message, an edit, the final
    assert all(float(cell.removesuffix(" ms")) > 0 for cell in cells[2:5])


def test_the_media_bench_measures_a_quick_run() -> None:
    """`python -m bench --media --quick`: a photo read and speech heard alone, then the other
    chats' first edit beside a photo and a voice message, through the real bot."""
    done = subprocess.run([sys.executable, "-m", "bench", "--media", "--quick"], cwd=ROOT,
                          capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-2000:]
    names = "\n".join(line.split(" | ")[0] for line in done.stdout.splitlines()
                      if line.startswith("| "))
    for figure in ("read by the OCR", "The OCR process's peak memory",
                   "30 s of speech heard by Whisper base (en", "(zh",
                   "The hearing process's peak memory", "Other chats' first edit alone",
                   "beside 1 photo and 1 voice message", "every answer final on screen",
                   "Peak memory meanwhile"):
        assert figure in names, f"{figure!r} missing from:\n{done.stdout}"
    assert "load average" in done.stdout


BENCHES_OF_THEIR_OWN = ("--scale", "--answer-cpu", "--delivery-cpu", "--wire-floor", "--hostile",
                       "--upload-storm", "--media", "--voice", "--course", "--grounding")


def test_every_bench_of_its_own_is_listed() -> None:
    assert sorted(INSTEAD) == sorted(BENCHES_OF_THEIR_OWN)


@pytest.mark.parametrize("option", BENCHES_OF_THEIR_OWN)
def test_each_bench_of_its_own_is_an_option_of_python_m_bench(
        option: str, capsys: pytest.CaptureFixture[str]) -> None:
    """One entry point: `python -m bench OPTION --help` reaches that bench's own options,
    which it names as they are typed."""
    with pytest.raises(SystemExit) as ended:
        main([option, "--help"])
    assert ended.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: python -m bench {option}")


def test_the_grounding_bench_prints_precision_and_recall(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--grounding"]) == 0
    assert "precision" in capsys.readouterr().out
