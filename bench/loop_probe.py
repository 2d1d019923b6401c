"""Run as the bot's main script by `bench.scale` (`python -c` with this file's text, so the
checkout on PYTHONPATH provides `bot`, whichever version it is): measures the bot's
event-loop lag (how late a 50 ms timer fires) and appends `monotonic lag` lines to
BENCH_LAG_FILE every second, then runs `python -m bot` as usual."""

import asyncio
import os
import sys
import time

TICK_S = 0.05


class _ProbedPolicy(asyncio.DefaultEventLoopPolicy):
    def new_event_loop(self) -> asyncio.AbstractEventLoop:
        loop = super().new_event_loop()
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
        return loop


asyncio.set_event_loop_policy(_ProbedPolicy())
from bot.__main__ import main  # noqa: E402  (after the policy: the bot's loop is probed)

sys.exit(main())
