"""Glassbox's own words for a request that failed on the wire, shared by the model's client,
Telegram's delivery and the tools: was it surely not sent, maybe sent, did it time out, or
did the server refuse it?

Whoever makes a request again needs exactly this: a request that surely never reached the
server may be made again without doing anything twice; one that may have reached it (the
connection broke, or no answer came in time) may have been carried out. The libraries
underneath (aiohttp, asyncio, the OS) each name these events their own way; they are
translated here, once, at the boundary (`failure_of`), and nothing above them reads a
library's exception types to find out.
"""

from __future__ import annotations

from enum import StrEnum

import aiohttp


class GlassboxError(Exception):
    """The root of every exception Glassbox raises itself (a library's own go up as they
    are, or are read into one of these at the boundary). It stands here because wire/ is
    the bottom of the import graph: agent/ and bot/ both import it, it imports neither.

    - the wire: WireError (a request that failed on the way), wire.tools_client.
      RedirectRefused (a service's redirect not followed);
    - the model: agent.model.model_errors.ModelError (a failed call, classified);
    - the tools: agent.tool.ToolError (a failure fit to show the model and the student; its
      UpstreamError when a service failed, and weather's PlaceNotFound),
      agent.tools.calculator.CalcError, agent.tools.documents.DocumentError;
    - what was sent: agent.inputs.images.ImageRefused (a picture not read);
    - the run: agent.settings.SettingsError, agent.classroom.confirm.StopRun (a person
      stopped it) and EditError (an edit of a call that does not fit);
    - delivery: bot.telegram.delivery.call_errors.Refused (a page Telegram refused) and
      ReplyLost (a send whose reply never came);
    - the store: bot.store.db.DatabaseUnreachable and StoreUnavailable,
      bot.store.copy.TargetInUse, bot.store.connection_turns.NoneOpen;
    - the course page: bot.course.drawing.AlreadyDrawing, TooBusy and DrawingFailed (a
      chart not drawn), bot.web.course_routes's _Gone (no such board link);
    - voice questions: bot.voice.audio.TooLong and NotAudio (a sound not decoded within the
      cap), bot.voice.transcriber.NotHeard (a message not heard, and why);
    - worker processes: bot.worker_process.WorkerFailed (the process died or ran out of
      time) and WorkerError (the request raised in it);
    - the front ends: bot.web.bodies.ApiError (the API's answer to a bad request),
      bot.serve.PortInUse.
    tests/test_layout.py checks that every exception class of agent/, bot/ and wire/
    derives from it.
    """


class WireFailure(StrEnum):
    NOT_SENT = "surely not sent"
    """No connection was made (refused, unreachable, no such host, no TLS, a connect or pool
    timeout): not a byte of the request was written."""
    MAYBE_SENT = "maybe sent"
    """The request may have gone out, and then the connection broke (a reset, a server that
    closed it, a body cut short, an answer that is not HTTP)."""
    TIMED_OUT = "timed out"
    """The request went out and no answer came within the read timeout: it may have been
    carried out."""
    REFUSED = "refused"
    """The server answered that it did not carry the request out (an error status)."""

    @property
    def may_have_happened(self) -> bool:
        """Whether the server may have carried the request out."""
        return self in (WireFailure.MAYBE_SENT, WireFailure.TIMED_OUT)


class WireError(GlassboxError):
    """A request that failed on the wire. `str()` names the kind and the library's exception
    type, never its text (aiohttp's may hold the URL, and Telegram's URL holds the token)."""

    def __init__(self, kind: WireFailure, cause: BaseException | None = None) -> None:
        self.kind = kind
        super().__init__(f"{kind} ({type(cause).__name__})" if cause is not None else str(kind))


def failure_of(err: BaseException) -> WireFailure | None:
    """What `err`, or an exception it was raised from, says about the request; None if none
    of them is a failure of the wire (a bug, or an answer the caller reads itself)."""
    seen: BaseException | None = err
    for _ in range(8):  # a chain of causes is short; never loop on a cyclic one
        if seen is None:
            return None
        kind = seen.kind if isinstance(seen, WireError) else _kind(seen)
        if kind is not None:
            return kind
        seen = seen.__cause__
    return None


def _kind(err: BaseException) -> WireFailure | None:
    if isinstance(err, aiohttp.ConnectionTimeoutError):  # waiting for a pool slot or connecting
        return WireFailure.NOT_SENT
    if isinstance(err, TimeoutError):  # aiohttp's socket read timeout among them
        return WireFailure.TIMED_OUT
    if isinstance(err, aiohttp.ClientConnectorError | aiohttp.InvalidURL):
        return WireFailure.NOT_SENT
    if isinstance(err, aiohttp.ClientError | ConnectionError):  # after connecting
        return WireFailure.MAYBE_SENT
    return None
