"""`python -m bench [--quick] [--only live|overhead|store|render|huge|notes]`: run the benchmarks
and print one Markdown table (progress goes to stderr). `--quick` runs everything small and on
a 20-times faster clock: a smoke run, not figures to quote. `--only overhead --against REF`:
the overhead asks with REF's code first, then with this checkout's (side by side, as the
machine's load of the moment is shared).
`python -m bench --local-model URL [--record]`: the class questions against a real model
instead (bench/local_model.py); `--judge-local URL [--record]`: /compare's judgement by it
(bench/judge_local.py).
Instead of the table, one bench of its own, its options after it (`--help` lists them):
  --scale [--quick] [--against REF] [--levels N …]   a whole school on one process
  --answer-cpu [--quick] [--against REF]    the CPU of one answer's agent, fold, store, render
  --delivery-cpu [--quick] [--against REF]  the CPU of delivering one answer to Telegram
  --wire-floor [--quick]                    the CPU of one answer's HTTP alone
  --hostile [--against REF] [--only ATTACK …]   the HTTP side's attacks on python -m bot
  --upload-storm [--against REF] [--file pdf|txt]   a /notes upload while a class asks
  --media [--quick]   photos and voice messages: seconds each, peak memory, and the other
                      chats' first edit while ten of each are read and heard
  --voice [--runs N]  Whisper base alone: seconds per 30 s of speech, peak memory, error rates
  --course [--runs N] [--postgres SERVER_URL]   the course's figures and pictures of many runs
  --grounding         the grounding marks' precision and recall on hand-labelled answers"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import sys
import tempfile
import time
from pathlib import Path

from bench.bench_figures import Figure, table
from bench.huge import huge_figures
from bench.judge_local import judge_cases
from bench.judge_local import report as judge_report
from bench.live import live_figures, overhead_figures
from bench.local_model import (
    SETS,
    ServerLog,
    load,
    report,
    run_questions,
    run_terminal,
    terminal_report,
)
from bench.notes_upload import notes_figures
from bench.rendering import render_figures
from bench.scale import checkout
from bench.stage import stage
from bench.storage import store_figures

QUICK_SCALE = 0.05
INSTEAD = {"--scale": "bench.scale", "--answer-cpu": "bench.answer_cpu",
           "--delivery-cpu": "bench.delivery_cpu", "--wire-floor": "bench.wire_floor",
           "--hostile": "bench.hostile", "--upload-storm": "bench.upload_storm",
           "--media": "bench.media", "--voice": "bench.voice", "--course": "bench.course",
           "--grounding": "bench.grounding"}
"""The benches run instead of the table: the option, and the module whose main() takes the
options after it."""


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if instead := next((a for a in argv if a in INSTEAD), None):
        bench = importlib.import_module(INSTEAD[instead])
        return bench.main([a for a in argv if a != instead])
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small and fast: a smoke run")
    parser.add_argument("--only", choices=("live", "overhead", "store", "render", "huge",
                                            "notes"),
                        action="append",
                        help="run only these parts (repeatable; overhead: the first part "
                             "of live)")
    parser.add_argument("--against", metavar="REF",
                        help="with --only overhead: measure this git ref's code first")
    parser.add_argument("--local-model", metavar="URL",
                        help="instead: the class questions against a real model at URL "
                             "(bench/local_model.py)")
    parser.add_argument("--judge-local", metavar="URL",
                        help="instead: /compare's judgement by a real model at URL for the "
                             "class's compare cases (bench/judge_local.py)")
    parser.add_argument("--record", action="store_true",
                        help="with --local-model or --judge-local: keep the streams under "
                             "tests/wire/local/")
    parser.add_argument("--question", action="append",
                        help="with --local-model or --judge-local: only this question or case "
                             "id (repeatable)")
    parser.add_argument("--remembered", action="store_true",
                        help="with --local-model: start as a restarted bot whose store "
                             "remembers that the model writes its calls as text (and the "
                             "terminal as one whose cache does)")
    parser.add_argument("--set", choices=tuple(SETS), default="class",
                        help="with --local-model: the class's twenty questions, ten "
                             "written for no change to tune to (untuned, untuned2), the "
                             "issue's answers with figures and no lookup, or requests that "
                             "need no tool")
    parser.add_argument("--path", choices=("both", "bot", "terminal"), default="both",
                        help="with --local-model: the questions in one bot process, each in "
                             "a terminal process of its own, or both (the default)")
    parser.add_argument("--server-log", type=Path, metavar="PATH",
                        help="with --local-model: llama-cpp-python's server log, read for the "
                             "prompt tokens each call made the server read anew")
    args = parser.parse_args(argv)
    if args.judge_local:
        judged = asyncio.run(judge_cases(args.judge_local, args.record, args.question))
        print(judge_report(judged))
        return 0
    if args.local_model:
        started_load = load()
        if args.path in ("bot", "both"):
            run = asyncio.run(run_questions(args.local_model, args.record, args.question,
                                            args.server_log, args.remembered,
                                            SETS[args.set]))
            print(report(run, args.local_model, (started_load, load())), flush=True)
        if args.path in ("terminal", "both"):
            started_load = load()
            log = ServerLog(args.server_log) if args.server_log else None
            outcomes = asyncio.run(run_terminal(args.local_model, args.question,
                                                SETS[args.set], args.remembered,
                                                args.server_log))
            print(terminal_report(outcomes, (started_load, load()),
                                  log.speeds() if log else ""))
        return 0
    parts = args.only or ["live", "store", "render", "huge", "notes"]
    started = time.monotonic()
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory(prefix="glassbox-bench-") as tmp:
        work = Path(tmp)
        if "live" in parts:
            print("live: the bot against fake Telegram and model …", file=sys.stderr)
            with stage(work, QUICK_SCALE if args.quick else 1.0) as st:
                figures += live_figures(st, *((8, 4) if args.quick else (40, 20)))
        if "overhead" in parts and "live" not in parts:
            scale = QUICK_SCALE if args.quick else 1.0
            if args.against:
                print(f"overhead: {args.against}'s code …", file=sys.stderr)
                (work / "before").mkdir()
                with checkout(args.against) as code, \
                        stage(work / "before", scale, code=code) as st:
                    figures += overhead_figures(st, f"{args.against}: ")
                print("overhead: this checkout …", file=sys.stderr)
            with stage(work, scale) as st:
                figures += overhead_figures(st, "this: " if args.against else "")
        if "store" in parts:
            print("store: building the transcripts …", file=sys.stderr)
            figures += asyncio.run(store_figures(work / "store.sqlite3",
                                                 2_000 if args.quick else 100_000))
        if "render" in parts:
            print("render …", file=sys.stderr)
            figures += render_figures(50 if args.quick else 2_000)
        if "huge" in parts:
            print("huge: /show and /export of a 10,000-step run …", file=sys.stderr)
            figures += huge_figures(args.quick)
        if "notes" in parts:
            print("notes: a PDF uploaded with /notes …", file=sys.stderr)
            figures += notes_figures(args.quick)
    print(f"done in {time.monotonic() - started:.0f} s", file=sys.stderr)
    if args.quick:
        print(f"Quick run (time ×{QUICK_SCALE}, small sizes): not figures to quote.\n")
    print(table(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
