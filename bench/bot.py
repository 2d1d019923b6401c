"""`python -m bench.bot`: the bot as `python -m bot` runs it (long polling, settings from the
environment, the toolbox AGENT_TOOLS chooses), with its Telegram pacing on a clock
BENCH_SCALE times as fast, to match the fakes of `python -m bench --quick`. (The real
figures come from `python -m bot` itself.)"""

from __future__ import annotations

import os
import sys

from telegram import Update

from agent.settings import SettingsError, load_settings
from bot.app import build_app, setup_logging
from bot.pacer import Limits
from bot.settings import BotSettings


def main() -> int:
    try:
        settings = load_settings(BotSettings)
    except SettingsError as err:
        print(f"Glassbox cannot start: {err}.", file=sys.stderr)
        return 2
    setup_logging(settings)
    limits = Limits().scaled(float(os.environ["BENCH_SCALE"]))
    build_app(settings, limits=limits).run_polling(allowed_updates=Update.ALL_TYPES)
    return 0


if __name__ == "__main__":
    sys.exit(main())
