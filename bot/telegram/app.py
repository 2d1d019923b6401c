"""The chat front end: python-telegram-bot's Application, built from settings with its own
parts, serving over the services the composition root opened."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
from collections.abc import AsyncIterator, Sequence
from typing import Any

from telegram import Update
from telegram.error import Conflict, NetworkError
from telegram.ext import Application, ApplicationBuilder

from bot.bot_settings import BotSettings
from bot.examples import load_examples
from bot.log_limit import RateLimit
from bot.runs.metrics import Metrics
from bot.runs.quota import Cooldowns
from bot.runs.services import Services
from bot.runs.uploads import UploadLimits
from bot.store import database_url
from bot.store.db import StoreUnavailable
from bot.telegram.admins import Admins
from bot.telegram.context import CONTEXT_TYPES, BotData, Context, Parts
from bot.telegram.delivery.outbox import Notice, Outbox
from bot.telegram.delivery.pacer import Limits, Pacer
from bot.telegram.delivery.typing_indicator import Typing
from bot.telegram.handlers import register
from bot.telegram.handlers.commands import register_commands
from bot.telegram.handlers.common import lang_of, sender_of
from bot.telegram.live_run import recover_interrupted
from bot.telegram.metered_request import MeteredRequest
from bot.telegram.unreadable import UpdatesRequest
from bot.view.i18n import text
from wire.limits import TELEGRAM_TIMEOUT_S

log = logging.getLogger(__name__)

App = Application[Any, Context, Any, Any, BotData, Any]


def build_app(settings: BotSettings, metrics: Metrics, *, limits: Limits | None = None,
              poll_timeout_s: float = 10.0,
              request_timeout_s: float = TELEGRAM_TIMEOUT_S) -> App:
    """The Application with its own parts, its Bot API calls counted in `metrics`; it
    answers updates once it serves over the open services (`serving`).
    `request_timeout_s`: how long one Bot API call may take to connect, send or answer."""
    _durations_as_timedelta()
    app: App = (
        ApplicationBuilder()
        .token(settings.telegram_bot_token.get_secret_value())
        .base_url(settings.telegram_api_base_url)
        .base_file_url(settings.telegram_file_base_url)
        .context_types(CONTEXT_TYPES)
        .concurrent_updates(True)
        .request(MeteredRequest(metrics, connect_timeout=request_timeout_s,
                                read_timeout=request_timeout_s,
                                write_timeout=request_timeout_s))
        .get_updates_request(UpdatesRequest(metrics, connection_pool_size=1,
                                            connect_timeout=request_timeout_s,
                                            read_timeout=poll_timeout_s + 5,
                                            write_timeout=request_timeout_s))
        .build()
    )
    pacer = Pacer(limits, on_wait=metrics.waited)
    searches = settings.history_rate_limit
    app.bot_data.parts = Parts(admins=Admins(app.bot, settings.admin_user_ids),
                               outbox=Outbox(app.bot, pacer), examples=load_examples(),
                               typing=Typing(app.bot, pacer.send_rate),
                               searches=searches and Cooldowns(searches.runs,
                                                               searches.window_s),
                               uploads=UploadLimits.of(settings.notes_upload_rate_limit,
                                                       settings.notes_readers))
    register(app)
    app.add_error_handler(on_error)
    return app


@contextlib.asynccontextmanager
async def serving(app: App, services: Services) -> AsyncIterator[Parts]:
    """The chat front end over `services` while the block runs (the caller starts and stops
    the updates and the Application inside it): its commands registered, the messages of
    the runs a restart cut short edited in the background; on leaving, its runs stopped."""
    parts = app.bot_data.parts
    assert parts is not None, "the Application was not made by build_app"
    app.bot_data.services = services
    try:
        await register_commands(app.bot)
        recovering = asyncio.create_task(
            recover_interrupted(services.runs, parts.outbox, services.cut_short))
        _settle_heap()
        try:
            yield parts
        finally:
            await services.runs.stop_all()
            await recovering
    finally:
        app.bot_data.services = None


def _durations_as_timedelta() -> None:
    """Opt in to python-telegram-bot's next major, which makes durations such as
    `RetryAfter.retry_after` a timedelta: that major then changes nothing here, and PTB
    stops warning about it. PTB reads the setting when it builds such a value, so before
    the Application's first Bot API call is soon enough."""
    os.environ["PTB_TIMEDELTA"] = "true"


YOUNG_COLLECTION = 10_000
"""Container objects made (net of those freed) between two young collections. CPython's
default, 700, is reached inside one parsed reply or rendered page, so most young
collections would come in the middle of such a burst, find nothing to collect and still
cost the event loop their scan. Cycles are still collected, a little later."""


def _settle_heap() -> None:
    """Hide what start-up made (modules, classes, settings: some 200,000 objects that live
    as long as the bot) from the garbage collector. A full collection scans every object
    holding the GIL, so it stalls the event loop even when a thread triggers it, as building
    /show or /export of a huge run does, for as long as it takes to scan them all.
    Then collect the young less often (YOUNG_COLLECTION)."""
    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_COLLECTION, older, oldest)


async def on_error(update: object, context: Context) -> None:
    """Log what failed (the log is redacted); a chat never sees a trace, but the person whose
    update failed gets one polite line in their language (a notice: paced, and once per
    cooldown). Errors while fetching updates come without an update: one clear line each,
    polling goes on."""
    if update is None and isinstance(context.error, Conflict):
        log.error("Telegram answered 409 Conflict: another bot instance is fetching updates "
                  "with this token. Only one may run; stop the other one (retrying meanwhile).")
        return
    if update is None and isinstance(context.error, NetworkError):
        log.warning("fetching updates failed (%s); retrying", context.error)
        return
    update_id = update.update_id if isinstance(update, Update) else None
    store_down = isinstance(context.error, StoreUnavailable)
    if store_down:  # an outage, not a bug: one line, and the sender is told what it is
        log.warning("update %s: the store is unreachable (%s)", update_id, context.error)
    else:
        log.error("update %s failed: %s", update_id, type(context.error).__name__,
                  exc_info=context.error)
    if isinstance(update, Update):
        try:
            await _apologise(update, context, "store_unavailable" if store_down
                             else "handler_failed")
        except Exception as err:  # the apology is best effort; its failure is only logged
            log.warning("update %s: could not tell the sender it failed (%s)", update_id, err)


async def _apologise(update: Update, context: Context, key: str) -> None:
    """One polite line to whoever sent `update`: an alert on their button, or a reply."""
    if update.effective_user is None:
        return
    line = text(lang_of(update.effective_user), key)
    if update.callback_query is not None:
        await update.callback_query.answer(line, show_alert=True)
    elif update.message is not None:
        await context.parts.outbox.notice(update.message.chat_id, update.message.message_id,
                                    sender_of(update).id, line, Notice.FAILED)


class Redact(logging.Filter):
    """Blank out secrets (the bot token, every model endpoint's key, the database's password
    as written and decoded) in every log line."""

    def __init__(self, secrets: Sequence[str]) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if s]

    def text(self, message: str) -> str:
        for secret in self.secrets:
            message = message.replace(secret, "[secret]")
        return message

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            message += "\n" + logging.Formatter().formatException(record.exc_info)
            record.exc_info = record.exc_text = None
        record.msg, record.args = self.text(message), None
        return True


def _not_bootstrap_abort(record: logging.LogRecord) -> bool:
    """python-telegram-bot logs a traceback when a start-up ("Bootstrap") step gives up, then
    raises the same error to `run_polling`/`run_webhook`: `python -m bot` reports it in one
    line, so the traceback is dropped. Aborts while running are still logged."""
    message = record.getMessage()
    return not ("Network Retry Loop (Bootstrap " in message and "Aborting" in message)


def redaction(settings: BotSettings) -> Redact:
    """The filter that blanks every secret of `settings`."""
    return Redact([settings.telegram_bot_token.get_secret_value(),
                   settings.openai_api_key.get_secret_value(),
                   *(point.api_key.get_secret_value() for point in settings.endpoints().values()),
                   *database_url.secrets(settings.database_url.get_secret_value())])


def setup_logging(settings: BotSettings) -> Redact:
    """Log lines to stderr, each kind rate-limited, with the secrets blanked out; the
    secrets' filter, for other output."""
    logging.basicConfig(level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)  # its INFO lines hold the bot URL
    logging.getLogger("telegram.ext").addFilter(_not_bootstrap_abort)
    redact = redaction(settings)
    for handler in logging.getLogger().handlers:
        handler.addFilter(RateLimit())  # first: a line it drops is never formatted
        handler.addFilter(redact)
    return redact
