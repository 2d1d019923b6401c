"""`python -m bench.bot`: the bot exactly as `python -m bot` runs it, with its Telegram
pacing on a clock BENCH_SCALE times as fast, to match the fakes of `python -m bench --quick`.
(The real figures come from `python -m bot` itself.)"""

from __future__ import annotations

import os
import sys

from bot.__main__ import main
from bot.telegram.delivery.pacer import Limits

if __name__ == "__main__":
    sys.exit(main(Limits().scaled(float(os.environ["BENCH_SCALE"]))))
