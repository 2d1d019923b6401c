"""`python -m bot`: Glassbox on Telegram, by long polling (or a webhook when WEBHOOK_URL is set),
with its HTTP server (the class board, the API, /healthz) beside it."""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING

from agent.settings import SettingsError, load_settings
from bot.bot_settings import BotSettings

if TYPE_CHECKING:
    from bot.telegram.delivery.pacer import Limits

log = logging.getLogger("bot")


def main(limits: Limits | None = None) -> int:
    """Run until stopped; `limits` only for the benchmark's faster clock. Every way it ends
    early prints one line on stderr without the secrets, and exits with code 2 (python-
    telegram-bot's own exceptions print the token: they never reach the interpreter)."""
    try:
        settings = load_settings(BotSettings)
    except SettingsError as err:
        return _stop(f"Glassbox cannot start: {err}.")
    # Loaded once the settings are read: a start that ends at a wrong setting says so
    # without loading the bot (Telegram's library, the model client, the web server first).
    from telegram.error import InvalidToken, NetworkError

    from bot import serve
    from bot.store.db import DatabaseUnreachable
    from bot.telegram.app import setup_logging

    redact = setup_logging(settings)
    token = settings.telegram_bot_token.get_secret_value()
    try:
        serve.run(settings, limits=limits)
    except (serve.PortInUse, DatabaseUnreachable) as err:
        return _stop(f"Glassbox cannot start: {err}.")
    except InvalidToken:
        return _stop(f"Glassbox cannot start: Telegram rejected TELEGRAM_BOT_TOKEN "
                     f"(…{token[-4:]}); check it with @BotFather.")
    except NetworkError as err:  # TimedOut too
        return _stop(redact.text(f"Glassbox stopped: cannot reach the Telegram Bot API at "
                                 f"{settings.telegram_api_base_url} ({err})."))
    except Exception as err:
        log.critical("Glassbox stopped", exc_info=err)  # redacted, as every log line
        return _stop(redact.text(f"Glassbox stopped: {type(err).__name__}: {err}."))
    return 0


def _stop(line: str) -> int:
    print(line, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
