"""The composition root: the services every front end reads, and over them python-telegram-
bot's Application (long polling, or a webhook) and the HTTP server (uvicorn) side by side in
one event loop, until SIGTERM or SIGINT stops both.

This is `Application.run_polling` taken apart (python-telegram-bot documents doing so for a
custom webhook server): initialize the Application, open the services, serve the chat front
end over them and start the Application, then the server; on a stop signal, stop the
server, then updates, then the Application, the chat front end's runs, the services. The
listening socket is bound first, so a port in use is reported before anything else starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
from collections.abc import AsyncIterator, Callable, Iterator, Sequence

import uvicorn
import uvloop
from starlette.routing import BaseRoute
from telegram import Update
from telegram.error import TelegramError

from agent.tool import Tool
from bot.bot_settings import BotSettings
from bot.runs.metrics import Metrics
from bot.runs.services import Services
from bot.telegram.app import App, build_app, serving
from bot.telegram.delivery.pacer import Limits
from bot.telegram.webhook import webhook_path, webhook_routes
from bot.web.board import Leads
from bot.web.connection_cap import (
    ConnectionCap,
    ConnectionLimits,
    connection_cap,
    raise_descriptor_limit,
)
from bot.web.guard import server_config
from bot.web.routes import web_app
from wire.wire_errors import GlassboxError

log = logging.getLogger("bot")


class PortInUse(GlassboxError):
    """HTTP_LISTEN's address could not be bound."""


def run(settings: BotSettings, *, limits: Limits | None = None) -> None:
    """Build the Telegram front end, open the services under it, and serve it and the HTTP
    front end over them until stopped (blocking); errors from Telegram at start-up
    propagate. `limits`: only for the benchmark's faster clock. On uvloop: the same asyncio,
    less CPU per call and per event."""
    sock = bind(settings)
    metrics = Metrics()
    app = build_app(settings, metrics, limits=limits)
    try:
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            runner.run(serve(app, settings, metrics, sock))
    finally:
        if sock is not None:
            sock.close()


def bind(settings: BotSettings) -> socket.socket | None:
    address = settings.http_address()
    if address is None:
        return None
    host, port = address
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as err:
        sock.close()
        raise PortInUse(f"cannot listen on {host}:{port} ({err.strerror}); set HTTP_LISTEN "
                        f"to another host:port, or to off") from err
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


async def serve(app: App, settings: BotSettings, metrics: Metrics, sock: socket.socket | None,
                *, tools: Sequence[Tool] | None = None, stopping: asyncio.Event | None = None,
                poll_timeout_s: int = 10, warm_drawing: bool = True) -> None:
    """Run until `stopping` is set (by default: until SIGTERM or SIGINT), serving HTTP on
    `sock` (None: no HTTP server). The services, counted in the `metrics` the Application
    was built with, open once Telegram took the token, so a bot that cannot start leaves
    the store as it was; `tools`: None opens the toolbox AGENT_TOOLS chooses;
    `warm_drawing`: as Services.opened."""
    if stopping is None:
        stopping = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stopping.set)
    assert app.updater
    try:
        await app.initialize()
    except Exception:
        # PTB's shutdown skips the bot of an app that never initialized: its connections
        # (aiohttp sessions) would stay open and be reported at exit.
        await app.bot.shutdown()
        raise
    async with (app,  # (initialized already) … shutdown
                Services.opened(settings, metrics, tools,
                                warm_drawing=warm_drawing) as services,
                serving(app, services) as parts):
        if settings.webhook_url:
            await app.bot.set_webhook(
                settings.webhook_url, allowed_updates=Update.ALL_TYPES,
                secret_token=settings.webhook_secret.get_secret_value())
        else:
            await app.updater.start_polling(allowed_updates=Update.ALL_TYPES,
                                            timeout=poll_timeout_s,
                                            error_callback=_polling_error(app))
        await app.start()
        try:
            async with _http(services, sock, webhook_routes(app, settings, metrics),
                             leads=parts.admins.of_chat) as server:
                stop = asyncio.ensure_future(stopping.wait())
                await asyncio.wait({stop, *server}, return_when=asyncio.FIRST_COMPLETED)
                stop.cancel()
        finally:
            if app.updater.running:
                await app.updater.stop()
            await app.stop()


def _polling_error(app: App) -> Callable[[TelegramError], None]:
    """As run_polling does: an error fetching updates goes to the error handler."""
    def on_error(err: TelegramError) -> None:
        app.create_task(app.process_error(error=err, update=None))
    return on_error


class _Server(uvicorn.Server):
    """uvicorn without its own signal handling: `serve` owns SIGTERM and SIGINT."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@contextlib.asynccontextmanager
async def _http(services: Services, sock: socket.socket | None, others: Sequence[BaseRoute],
                leads: Leads) -> AsyncIterator[set[asyncio.Task[None]]]:
    """The HTTP server (web_app, with `others`' routes) running in the background (its
    task; none when HTTP_LISTEN is off); stopped on leaving: the boards' streams end at
    once, others get two seconds."""
    if sock is None:
        yield set()
        return
    settings = services.settings
    descriptors = raise_descriptor_limit()
    reserved = ["/healthz", *([webhook_path(settings)] if settings.webhook_url else [])]
    limits = ConnectionLimits.of(connection_cap(descriptors, settings.max_concurrent_runs),
                                 reserved)
    server = _Server(server_config(web_app(services, others, leads=leads),
                                   ConnectionCap(limits)))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    host, port = sock.getsockname()[:2]
    log.info("HTTP server on http://%s:%s (links use %s; at most %d connections of %d open "
             "files, %d per client address, the last %d for %s)", host, port,
             settings.base_url(), limits.cap, descriptors, limits.per_client, limits.reserve,
             " and ".join(reserved))
    try:
        yield {task}
    finally:
        services.hub.close()  # the boards' streams end now
        server.should_exit = True
        await asyncio.wait({task}, timeout=5)
        if task.done() and not task.cancelled() and task.exception() is not None:
            log.error("the HTTP server failed", exc_info=task.exception())
