"""`python -m bench.bot`: the bot as `python -m bot` runs it (long polling, settings from
the environment), with the benchmark's one tool, in a process of its own so its memory
is measured alone.

BENCH_SCALE (default 1) runs the tool and the bot's Telegram pacing on a faster clock,
matching fakes scaled the same way (`python -m bench --quick`)."""

from __future__ import annotations

import asyncio
import os
import sys

from pydantic import BaseModel
from telegram import Update

from agent.settings import SettingsError, load_settings
from agent.tool import Tool
from bot.app import build_app, setup_logging
from bot.pacer import Limits
from bot.settings import BotSettings

TOOL_S = 0.2
"""How long a tool call takes (a real tool's typical network round trip)."""


class LookupArgs(BaseModel):
    query: str


class Lookup(Tool):
    name = "lookup"
    description = "Look a fact up."
    Args = LookupArgs

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    async def run(self, args: LookupArgs) -> str:
        await asyncio.sleep(self.seconds)
        return f"Facts about {args.query}: it is well documented, and here is a short summary."


def main() -> int:
    try:
        settings = load_settings(BotSettings)
    except SettingsError as err:
        print(f"Glassbox cannot start: {err}.", file=sys.stderr)
        return 2
    scale = float(os.environ.get("BENCH_SCALE", "1"))
    setup_logging(settings)
    app = build_app(settings, tools=[Lookup(TOOL_S * scale)], limits=Limits().scaled(scale))
    app.run_polling(allowed_updates=Update.ALL_TYPES)
    return 0


if __name__ == "__main__":
    sys.exit(main())
