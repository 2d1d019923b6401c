"""`python -m bot`: Glassbox on Telegram, by long polling (or a webhook when WEBHOOK_URL is set)."""

from __future__ import annotations

import sys
from urllib.parse import urlsplit

from telegram import Update

from agent.settings import SettingsError, load_settings
from bot.app import build_app, setup_logging
from bot.delivery.pacer import Limits
from bot.settings import BotSettings


def main(limits: Limits | None = None) -> int:
    """Run until stopped; `limits` only for the benchmark's faster clock."""
    try:
        settings = load_settings(BotSettings)
    except SettingsError as err:
        print(f"Glassbox cannot start: {err}.", file=sys.stderr)
        return 2
    setup_logging(settings)
    app = build_app(settings, limits=limits)
    if settings.webhook_url:
        app.run_webhook(listen=settings.webhook_listen, port=settings.port,
                        url_path=urlsplit(settings.webhook_url).path.lstrip("/"),
                        webhook_url=settings.webhook_url,
                        secret_token=settings.webhook_secret.get_secret_value() or None,
                        allowed_updates=Update.ALL_TYPES)
    else:
        app.run_polling(allowed_updates=Update.ALL_TYPES)
    return 0


if __name__ == "__main__":
    sys.exit(main())
