"""Run as the bot's main script by `bench.scale` (`python -c` with this file's text, so the
checkout on PYTHONPATH provides `bot`, whichever version it is): measures the bot's
event-loop lag (how late a 50 ms timer fires) and appends `monotonic lag` lines to
BENCH_LAG_FILE every second, then runs `python -m bot` as usual."""

import asyncio
import os
import signal
import sys
import time

TICK_S = 0.05


def _probed(loop: asyncio.AbstractEventLoop) -> asyncio.AbstractEventLoop:
    samples: list[str] = []
    flushed = [time.monotonic()]

    def tick(expected: float) -> None:
        now = time.monotonic()
        samples.append(f"{now:.3f} {max(0.0, now - expected):.4f}\n")
        if now - flushed[0] >= 1.0:
            with open(os.environ["BENCH_LAG_FILE"], "a") as out:
                out.writelines(samples)
            samples.clear()
            flushed[0] = now
        loop.call_later(TICK_S, tick, now + TICK_S)

    loop.call_soon(tick, time.monotonic())
    loop.add_signal_handler(signal.SIGUSR1, _dump_tasks)
    return loop


class _ProbedPolicy(asyncio.DefaultEventLoopPolicy):
    def new_event_loop(self) -> asyncio.AbstractEventLoop:
        return _probed(super().new_event_loop())


def _dump_tasks() -> None:
    """SIGUSR1: every task's stack to BENCH_LAG_FILE.tasks (what a stalled bot waits on)."""
    with open(os.environ["BENCH_LAG_FILE"] + ".tasks", "w") as out:
        for task in asyncio.all_tasks():
            out.write(f"{task.get_name()}:\n")
            awaited = task.get_coro()
            while awaited is not None:
                frame = getattr(awaited, "cr_frame", None) or getattr(awaited, "ag_frame", None)
                if frame is not None:
                    out.write(f"  {frame.f_code.co_filename}:{frame.f_lineno} "
                              f"{frame.f_code.co_name}\n")
                awaited = getattr(awaited, "cr_await", None) or getattr(awaited, "ag_await", None)
            out.write(f"  waits for {task._fut_waiter!r}\n"[:300])


def main() -> int:
    """Probe every event loop the bot makes, then run `python -m bot`'s main."""
    asyncio.set_event_loop_policy(_ProbedPolicy())
    try:  # a bot on uvloop makes its loop with uvloop.new_event_loop, not the policy
        import uvloop

        new_uvloop = uvloop.new_event_loop
        uvloop.new_event_loop = lambda: _probed(new_uvloop())
    except ImportError:
        pass
    from bot.__main__ import main as run_bot  # after the policy: the bot's loop is probed

    return run_bot()


if __name__ == "__main__":
    sys.exit(main())
