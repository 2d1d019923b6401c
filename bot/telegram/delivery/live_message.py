"""The live message: one run's pages kept in sync with Telegram, edit by edit.

The run calls `show(pages)` as often as it likes; only the newest state is ever sent
(each API call takes the chat's next turn from the Pacer and sends what is newest then).
`pages` may be a function: it is called only when a turn comes, so a run that changes
forty times a second is rendered about once a second, not forty times.
`finish(pages)` delivers the final state whatever happens on the way: a 429 waits its
`retry_after`, "not modified" counts as done, entities Telegram cannot parse go again as
plain text, network errors are retried with backoff (a send only if it surely never reached
Telegram: see call_errors). Page 1 replies to the command; later pages reply to page 1.
The ⏹ button sits under the last page while the run is running; it comes with an edit,
never with a send, so a message whose id the bot never learnt cannot keep a dead ⏹.

A send whose reply was lost (Telegram may show the message; the bot does not know its id)
is never sent again: a second copy of a running page would be a duplicate. The page counts
as showing what was sent. While the run goes on, that message and the pages after it wait;
the final state then goes out as new messages if it differs from what was sent, so the
user sees the answer once, below a stale draft at worst (one that has no ⏹). A lost
reply is rare, and sending it again would leave a duplicate with a dead ⏹.

A page Telegram refuses (a 400 that does not say it is gone: call_errors.bad_request) holds
the pages after it back while the run goes on and is tried again when it changes; if the
final state's page is refused too, the pages after it go out without it. One page Telegram
would not take never swallows the rest of the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum, StrEnum, auto
from functools import lru_cache

from telegram import Bot, InputFile
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TelegramError

from bot.telegram.delivery.call_errors import (
    PageRejection,
    Refused,
    ReplyLost,
    bad_request,
    retry_after_s,
)
from bot.telegram.delivery.pacer import Pacer
from bot.telegram.delivery.priority import Priority
from bot.view.buttons import Keyboard
from bot.view.spans import to_plain
from wire.bot_api import call
from wire.limits import TELEGRAM_BACKOFF_S, TELEGRAM_RETRIES
from wire.telegram_request import describe, never_reached

log = logging.getLogger(__name__)

NO_PREVIEW = {"is_disabled": True}
"""LinkPreviewOptions: no link previews under a page."""


class Upload(StrEnum):
    """What a file is sent as: the Bot API field it goes in (its method is send + Field)."""

    DOCUMENT = "document"
    PHOTO = "photo"  # shown as a picture; Telegram makes its own smaller copies


class _End(Enum):
    """How a Bot API call that writes a message ended."""

    DONE = auto()
    """Telegram carried it out (or the message showed that already)."""
    GONE = auto()
    """The message to edit is gone: the page is sent again."""
    GAVE_UP = auto()
    """Not carried out, and not tried again: the chat is gone, the network failed past the
    retries, or Telegram's reply could not be read."""


@dataclass(frozen=True, slots=True)
class _Outcome:
    end: _End
    message_id: int | None = None
    """The id of the message a send created."""


_GAVE_UP = _Outcome(_End.GAVE_UP)


@dataclass(frozen=True, slots=True)
class _Shown:
    message_id: int | None
    """None: it was sent but the reply was lost; it may be on screen, it cannot be edited."""
    text: str
    buttons: Keyboard | None


class LiveMessage:
    def __init__(self, bot: Bot, pacer: Pacer, chat_id: int, reply_to: int | None, *,
                 button: Keyboard | None, on_gone: Callable[[], None] = lambda: None,
                 notice: bool = False) -> None:
        self.bot, self.pacer, self.chat_id, self.reply_to = bot, pacer, chat_id, reply_to
        self.button = button
        self._run_button = button
        """The buttons a running run shows (the ⏹); others (walkthrough's) await the asker."""
        self.notice = notice
        """The bot's own message (a reply to a command), not a run's: it waits behind runs."""
        self.on_gone = on_gone
        """Called when `gone` becomes true, at once (a run stops: no one would see the rest)."""
        self._final_buttons: Keyboard | None = None
        self._pages: list[str] = []
        self._source: Callable[[], list[str]] = list
        """Renders the newest state; called when a turn comes and the state changed."""
        self._stale = False
        self._shown: list[_Shown | None] = []
        """What each message shows now; None: it is gone and must be sent again."""
        self._refused: dict[int, str] = {}
        """Page index: the text Telegram refused to send there (not tried again as it is)."""
        self._running = True
        self._changed = asyncio.Event()
        self._first = asyncio.Event()
        """Set once page 1 is on screen, or never will be (gone, or the worker ended)."""
        self._worker: asyncio.Task[None] | None = None
        self._opened_at = 0.0
        self._retry: asyncio.TimerHandle | None = None
        """Wakes the worker when a skipped first message may go (see Pacer: groups)."""
        self.gone = False
        """Telegram refuses to write here any more (bot blocked or removed)."""

    @classmethod
    def editing(cls, bot: Bot, pacer: Pacer, chat_id: int, message_ids: list[int], *,
                notice: bool = False) -> LiveMessage:
        """A live message over messages sent earlier (by a process that has since ended)."""
        live = cls(bot, pacer, chat_id, None, button=None, notice=notice)
        live._shown = [_Shown(message_id, "", None) for message_id in message_ids]
        live._first.set()
        return live

    @property
    def message_ids(self) -> list[int]:
        return [s.message_id for s in self._shown if s is not None and s.message_id is not None]

    def show(self, pages: list[str] | Callable[[], list[str]]) -> None:
        """The newest running state (pages, or a function rendering them); sent when the
        chat's send rate allows."""
        self._source = pages if callable(pages) else (lambda fixed=list(pages): fixed)
        self._stale = True
        self._wake()

    def set_button(self, button: Keyboard | None) -> None:
        """Change the buttons under the last page while the run runs (walkthrough's choices
        while it waits for a decision, the ⏹ again after); sent in the chat's next turn."""
        self.button = button
        self._wake()

    def _wake(self) -> None:
        """Something to send changed: tell the worker, starting it the first time."""
        self._changed.set()
        if self._worker is None:
            self._worker = asyncio.create_task(self._sync())

    async def finish(self, pages: list[str], buttons: Keyboard | None = None) -> list[int]:
        """Deliver the final state and return the message ids. The ⏹ button goes;
        `buttons` (if any) are put under the last page."""
        self._running = False
        self._final_buttons = buttons
        self.show(pages)
        self.pacer.urgent(self.chat_id)  # a draft's turn sleeping for the send rate may burst now
        assert self._worker is not None
        await asyncio.shield(self._worker)
        return self.message_ids

    async def upload(self, kind: Upload, file: InputFile, caption: str) -> bool:
        """Upload a file (a document, or a photo; an HTML caption under it) in reply to
        `reply_to`, in the chat's turn, with the same 429 waits and network retries as the
        pages. Whether it was sent (or may have been: its reply was lost); False when the
        chat cannot be written to."""
        reply = _replying_to(self.reply_to)
        while not self.gone:
            async with self.pacer.turn(self.chat_id, self._priority) as turn:
                await turn.use()
                with contextlib.suppress(RetryAfter):  # the chat waits, then it goes again
                    try:
                        outcome = await self._call(
                            f"send{kind.value.title()}", creates=True, chat_id=self.chat_id,
                            caption=caption, parse_mode=ParseMode.HTML, reply_parameters=reply,
                            **{kind.value: file})
                    except ReplyLost as err:
                        log.warning("chat %s: the %s may have been delivered, but the reply "
                                    "was lost (%s); not sending it again", self.chat_id,
                                    kind.value, err)
                        return True
                    return outcome.end is _End.DONE
        return False

    async def first_sent(self) -> int | None:
        """Wait until page 1 is on screen; its message id (None if it could not be sent)."""
        await self._first.wait()
        return self._shown[0].message_id if self._shown and self._shown[0] else None

    def _priority(self) -> Priority:
        """A run's final state goes first (and buttons the run waits on the asker for, as
        walkthrough's: nothing else would show them), then its first message, its later
        drafts next, the bot's notices last."""
        if self.notice:
            return Priority.NOTICE
        if not self._running or self.button != self._run_button:
            return Priority.FINAL
        return Priority.DRAFT if self._shown else Priority.FIRST

    def _wanted(self, index: int) -> tuple[str, Keyboard | None]:
        if index < len(self._pages) - 1:
            return self._pages[index], None
        return self._pages[index], self.button if self._running else self._final_buttons

    def _next_page(self) -> int | None:
        """The first page whose message does not show what it should, if any. A page whose
        send lost its reply, or was refused, holds the running states back (see the module's
        docstring)."""
        for index in range(len(self._pages)):
            shown = self._shown[index] if index < len(self._shown) else None
            if self._refused.get(index) == self._pages[index]:
                if self._running:
                    return None
                continue  # the final state: the pages after it go on without it
            if shown is not None and shown.message_id is None and self._running:
                return None
            if shown is None or (shown.text, shown.buttons) != self._wanted(index):
                return index
        return len(self._pages) if len(self._shown) > len(self._pages) else None

    async def _sync(self) -> None:
        run = not self.notice
        if run:
            self.pacer.opened(self.chat_id)
        self._opened_at = time.monotonic()
        try:
            await self._sync_until_final()
        finally:
            self._first.set()
            if self._retry is not None:
                self._retry.cancel()
            if run:
                self.pacer.closed(self.chat_id)

    async def _sync_until_final(self) -> None:
        while not self.gone:
            await self._changed.wait()
            async with self.pacer.turn(self.chat_id, self._priority,
                                       self._opened_at) as turn:
                if not turn.allowed:  # no room for a draft here now: wait for the next change
                    self._changed.clear()
                    self._retry_at(turn.retry_at)
                    continue
                if self._stale:
                    self._pages, self._stale = self._source(), False
                index = self._next_page()
                if index is not None:
                    await turn.use()
                    with contextlib.suppress(RetryAfter):  # the chat waits; then the newest
                        try:
                            await self._deliver(index)
                            self._refused.pop(index, None)
                        except Refused as err:
                            self._refuse(index, err)
            if index is None:
                self._changed.clear()
                if not self._running:
                    return

    def _retry_at(self, when: float | None) -> None:
        """Try again at `when` (monotonic) even if nothing changes by then."""
        if when is None or when == math.inf:
            return
        if self._retry is not None:
            self._retry.cancel()
        self._retry = asyncio.get_running_loop().call_later(max(0.0, when - time.monotonic()),
                                                            self._changed.set)

    async def _deliver(self, index: int) -> None:
        """One API call that brings message `index` up to date (or removes a spare one)."""
        if index >= len(self._pages):
            spare = self._shown.pop()
            if spare is not None and spare.message_id is not None:
                try:
                    await self._call("deleteMessage", chat_id=self.chat_id,
                                     message_id=spare.message_id)
                except BadRequest as err:  # e.g. someone deleted it already
                    log.info("chat %s: a spare page was not deleted (%s)", self.chat_id,
                             err.message)
            return
        text, buttons = self._wanted(index)
        shown = self._shown[index] if index < len(self._shown) else None
        if shown is not None and shown.message_id is not None:
            edit = await self._write("editMessageText", text, chat_id=self.chat_id,
                                     message_id=shown.message_id,
                                     reply_markup=inline_keyboard(buttons))
            self._shown[index] = None if edit.end is _End.GONE else _Shown(
                shown.message_id, text, buttons)
            return
        if self._running:
            buttons = None  # the ⏹ comes with the next edit, once the message's id is known
        known = self.message_ids
        target = known[0] if index and known else self.reply_to
        try:
            sent = await self._write("sendMessage", text, creates=True, chat_id=self.chat_id,
                                     reply_markup=inline_keyboard(buttons),
                                     reply_parameters=_replying_to(target))
        except ReplyLost as err:
            log.warning("chat %s: page %d may be on screen, but Telegram's reply was lost (%s); "
                        "it is not sent again. %s", self.chat_id, index + 1, err,
                        "The final state follows as a new message." if self._running else
                        "It was the final state.")
            self._record(index, _Shown(None, text, buttons))
            return
        if sent.message_id is None:
            self._give_up()  # nothing to edit later
            return
        self._record(index, _Shown(sent.message_id, text, buttons))

    def _give_up(self) -> None:
        if not self.gone:
            self.gone = True
            self._first.set()
            self.on_gone()

    def _refuse(self, index: int, err: Refused) -> None:
        """Page `index` as it is now was refused: it is not tried again until it changes (a
        message it already has keeps showing the state before)."""
        log.error("chat %s: Telegram refused page %d (%s); %s", self.chat_id, index + 1, err,
                  "it is tried again when it changes" if self._running else
                  "the pages after it go on without it")
        self._refused[index] = self._pages[index]
        if index == len(self._shown):
            self._record(index, None)  # its place, kept for the pages after it

    def _record(self, index: int, shown: _Shown | None) -> None:
        if index < len(self._shown):
            self._shown[index] = shown
        else:
            self._shown.append(shown)
        if self._shown[0] is not None:
            self._first.set()

    async def _write(self, method: str, text: str, *, creates: bool = False,
                     **kw: object) -> _Outcome:
        """Send or edit with HTML, then as plain text if Telegram cannot parse it.
        Refused: Telegram answered some other 400, the page is not shown."""
        try:
            return await self._call(method, text=text, parse_mode=ParseMode.HTML,
                                    link_preview_options=NO_PREVIEW, creates=creates, **kw)
        except BadRequest as err:
            match bad_request(err):
                case PageRejection.REFUSED:
                    raise Refused(err.message) from err
                case PageRejection.NO_CHAT:
                    log.warning("chat %s: Telegram says there is no such chat", self.chat_id)
                    self._give_up()
                    return _GAVE_UP
                case PageRejection.DELETED:
                    return _Outcome(_End.GONE)
                case PageRejection.SHOWN:
                    return _Outcome(_End.DONE)
                case PageRejection.ENTITIES:
                    log.warning("Telegram could not parse a page's entities; sending it as "
                                "plain text")
        try:
            return await self._call(method, text=to_plain(text),
                                    link_preview_options=NO_PREVIEW, creates=creates, **kw)
        except BadRequest as err:
            raise Refused(f"even as plain text: {err.message}") from err

    async def _call(self, method: str, *, creates: bool = False, **kw: object) -> _Outcome:
        """Bot API call `method` (bot_api.call), retrying network errors with backoff. A
        call that `creates` a message is made again only if it surely never reached
        Telegram; if it may have, ReplyLost. A 429 penalises the chat and propagates, so the
        next turn sends the newest state rather than a stale one."""
        delay = TELEGRAM_BACKOFF_S
        for attempt in range(TELEGRAM_RETRIES + 1):
            try:
                result = await call(self.bot, method, **kw)
                return _Outcome(_End.DONE, result.get("message_id")
                                if isinstance(result, dict) else None)
            except RetryAfter as err:
                seconds = retry_after_s(err)
                log.info("chat %s: Telegram asks to wait %ss", self.chat_id, seconds)
                self.pacer.penalise(self.chat_id, seconds)
                raise
            except BadRequest:
                raise
            except Forbidden as err:
                log.warning("chat %s: cannot write there any more (%s)", self.chat_id, err)
                self._give_up()
                return _GAVE_UP
            except NetworkError as err:
                if creates and not never_reached(err):
                    raise ReplyLost(f"{method}: {describe(err)}") from err
                if attempt == TELEGRAM_RETRIES:
                    log.error("chat %s: giving up after network errors (%s)", self.chat_id,
                              describe(err))
                    return _GAVE_UP
                log.warning("chat %s: %s failed (%s); trying again in %.2f s", self.chat_id,
                            method, describe(err), delay)
                await asyncio.sleep(delay)
                delay *= 2
            except TelegramError as err:  # e.g. an unreadable reply: skip this call, go on
                log.error("chat %s: Telegram call failed (%s)", self.chat_id, err)
                return _GAVE_UP
        return _GAVE_UP



@lru_cache(maxsize=1024)
def inline_keyboard(buttons: Keyboard | None) -> str | None:
    """The view's buttons as an `InlineKeyboardMarkup`'s JSON (None: no buttons)."""
    if not buttons:
        return None
    return json.dumps({"inline_keyboard": [[{"text": b.label, "callback_data": b.data}
                                            for b in row] for row in buttons]},
                      ensure_ascii=False)


def _replying_to(message_id: int | None) -> dict[str, object] | None:
    """ReplyParameters: a reply to `message_id`, sent even if that message is gone."""
    if not message_id:
        return None
    return {"message_id": message_id, "allow_sending_without_reply": True}
