"""The python-telegram-bot Application: built from settings, with the model client, the
store and the tools opened in `post_init` and closed in `post_shutdown`."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from telegram import Update
from telegram.ext import Application, ApplicationBuilder, ContextTypes

from agent.model import ModelClient
from agent.tool import Tool
from agent.tools import Toolbox
from bot import history_handlers
from bot.commands import register_commands
from bot.handlers import register
from bot.i18n import text
from bot.pacer import Limits, Pacer
from bot.runs import recover_interrupted
from bot.services import Services
from bot.settings import BotSettings
from bot.store import Store
from bot.typing_indicator import Typing

log = logging.getLogger(__name__)


def build_app(settings: BotSettings, *, tools: Sequence[Tool] | None = None,
              limits: Limits | None = None,
              poll_timeout_s: float = 10.0) -> Application:  # type: ignore[type-arg]
    """The Application, ready for `run_polling`/`run_webhook` (or a test's own start).
    `tools`: None opens the toolbox that AGENT_TOOLS chooses."""

    async def post_init(app: Application) -> None:  # type: ignore[type-arg]
        store = await Store.open(settings.database_path)
        chosen = tools
        if chosen is None:
            toolbox = app.bot_data["toolbox"] = await Toolbox.open(settings)
            chosen = toolbox.tools
        svc = Services(settings=settings, bot=app.bot, client=ModelClient(settings),
                       store=store, tools=chosen, pacer=Pacer(limits), typing=Typing(app.bot))
        app.bot_data["services"] = svc
        await register_commands(app.bot)
        svc.recovering = asyncio.create_task(recover_interrupted(svc))
        if settings.transcript_retention_days:
            app.bot_data["pruning"] = asyncio.create_task(
                _prune_daily(svc.store, settings.transcript_retention_days))

    async def post_stop(app: Application) -> None:  # type: ignore[type-arg]
        svc: Services | None = app.bot_data.get("services")
        if svc is not None:
            await svc.active.stop_all(lambda lang: text(lang, "shutdown"))
            if svc.recovering is not None:
                await svc.recovering

    async def post_shutdown(app: Application) -> None:  # type: ignore[type-arg]
        pruning: asyncio.Task[None] | None = app.bot_data.pop("pruning", None)
        if pruning is not None:
            pruning.cancel()
        svc: Services | None = app.bot_data.pop("services", None)
        if svc is not None:
            await svc.client.close()
            await svc.store.close()
        toolbox: Toolbox | None = app.bot_data.pop("toolbox", None)
        if toolbox is not None:
            await toolbox.aclose()

    app = (
        ApplicationBuilder()
        .token(settings.telegram_bot_token.get_secret_value())
        .base_url(settings.telegram_api_base_url)
        .concurrent_updates(True)
        .get_updates_read_timeout(poll_timeout_s + 5)
        .post_init(post_init)
        .post_stop(post_stop)
        .post_shutdown(post_shutdown)
        .build()
    )
    register(app)
    history_handlers.register(app)
    app.add_error_handler(on_error)
    return app


async def _prune_daily(store: Store, days: int) -> None:
    """TRANSCRIPT_RETENTION_DAYS: delete old runs now, then once a day."""
    while True:
        try:
            removed = await store.prune(days)
            log.info("deleted %d transcripts older than %d days", removed, days)
        except Exception:
            log.exception("pruning old transcripts failed")
        await asyncio.sleep(24 * 3600)


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Log what failed (the log is redacted); a chat never sees a trace."""
    update_id = update.update_id if isinstance(update, Update) else None
    log.error("update %s failed: %s", update_id, type(context.error).__name__,
              exc_info=context.error)


class Redact(logging.Filter):
    """Blank out secrets (the bot token, the API key) in every log line."""

    def __init__(self, secrets: Sequence[str]) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if s]

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            message += "\n" + logging.Formatter().formatException(record.exc_info)
            record.exc_info = record.exc_text = None
        for secret in self.secrets:
            message = message.replace(secret, "[secret]")
        record.msg, record.args = message, None
        return True


def setup_logging(settings: BotSettings) -> None:
    logging.basicConfig(level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)  # its INFO lines hold the bot URL
    redact = Redact([settings.telegram_bot_token.get_secret_value(),
                     settings.openai_api_key.get_secret_value()])
    for handler in logging.getLogger().handlers:
        handler.addFilter(redact)
