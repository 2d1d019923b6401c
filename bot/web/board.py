"""The class board over HTTP: the page, its event stream and the runs it steps back through.

`/board/<token>` opens the chat whose token it is (a random secret per chat; `/board reset`
replaces it and the old link answers 404). The page's script reads `/board/<token>/events`,
server-sent events: `runs` (the chat's recent runs, newest first) and `run` (one run drawn
by bot.view.board_html, whole, each time it changed, at most every FRAME_S). Every event carries
the hub's number as its id; a browser reconnecting sends it back (Last-Event-ID) and is sent
only what changed since, each run whole again, so no step is lost or shown twice. Without it
(or after a restart of the bot) it gets a fresh snapshot.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from agent.lang import Lang
from bot.runs.hub import Hub
from bot.runs.services import Services
from bot.store.kinds import ConversationKind
from bot.store.records import Conversation, RunRecord, Scope, telegram_chat
from bot.view.board_html import board_page, board_run
from bot.view.transcript import View, replay
from bot.web.bodies import MAX_STORED_ID
from bot.web.shapes import sse

STATIC = Path(__file__).parent / "static"
LISTED = 15
"""Runs the board's list holds (← steps back through them; earlier ones: /history)."""
PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
                               "img-src 'self' data:; connect-src 'self'; base-uri 'none'; "
                               "form-action 'none'; frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
"""The board page runs only its own script and style, talks only to this server, and is
shown in no other site's frame."""
EVENT_NUMBER = re.compile(r"[0-9]{1,18}")
Leads = Callable[[int], Awaitable[frozenset[int]]]
"""A chat's id -> its admins' user ids."""
PING_S = 15.0
"""A comment line this often keeps an idle stream open through proxies."""
FRAME_S = 0.5
"""A board is sent at most one batch of changes this often, each changed run once in its
newest state. A streaming run changes up to five times a second
(wire.model_transport.STREAM_GATHER_S) and each change is a whole run drawn for every
board and laid out again by its browser: a class of 40 streaming at once, up to 200 a second
a board. Two a second still shows the
chain growing on a projector, and nothing is lost: the next batch has what came meanwhile."""


def board_routes(services: Services, leads: Leads | None = None) -> list[BaseRoute]:
    """`leads`: whose runs a chat's class board follows besides the link's asker (the chat's
    admins, co-teachers, as the chat front end knows them); None: nobody else."""
    hub = services.hub

    async def chat_of(request: Request) -> Conversation | None:
        chat_id = await services.store.boards.chat(request.path_params["token"])
        return None if chat_id is None else telegram_chat(chat_id)

    async def page(request: Request) -> Response:
        chat = await chat_of(request)
        if chat is None:
            return gone()
        hub.opened(chat)
        lead = request.query_params.get("lead", "")
        return HTMLResponse(board_page(request.path_params["token"], _lang(request),
                                       int(lead) if lead.isdigit() and len(lead) < 20 else None),
                            headers={"Cache-Control": "no-store", **PAGE_HEADERS})

    async def stored_run(request: Request) -> Response:
        chat = await chat_of(request)
        if chat is None:
            return gone()
        hub.opened(chat)
        n = request.path_params["n"]
        if n > MAX_STORED_ID:
            return JSONResponse({"error": "no such run"}, status_code=404)
        live = next((r for r in hub.live(chat) if r.record.n == n), None)
        if live is not None:
            return JSONResponse(_run_data(live.record, live.view, live.status, _lang(request),
                                          request.path_params["token"]))
        record = await services.store.get(Scope.of(chat), n)
        if record is None:
            return JSONResponse({"error": "no such run"}, status_code=404)
        remarks = (await services.chat_settings(chat)).remarks
        view = replay(record, await services.store.events(record.id), _lang(request),
                      remarks=remarks)
        return JSONResponse(_run_data(record, view, record.status, _lang(request),
                                      request.path_params["token"]))

    async def photo(request: Request) -> Response:
        """A photo a run of the chat was asked about, as kept with it (a JPEG)."""
        chat = await chat_of(request)
        if chat is None:
            return gone()
        n, number = request.path_params["n"], request.path_params["k"]
        record = None if n > MAX_STORED_ID else await services.store.get(Scope.of(chat), n)
        jpeg = None if record is None else await services.store.photos.get(record.id, number)
        if jpeg is None:
            return JSONResponse({"error": "no such photo"}, status_code=404)
        return Response(jpeg, media_type="image/jpeg",
                        headers={"Cache-Control": "private, max-age=3600", **PAGE_HEADERS})

    async def events(request: Request) -> Response:
        chat = await chat_of(request)
        if chat is None:
            return gone()
        token = request.path_params["token"]
        lang = _lang(request)
        after = _resume_from(request.headers.get("last-event-id", ""), hub)

        async def chat_leads() -> frozenset[int]:
            if leads is None or chat.kind != ConversationKind.TELEGRAM:
                return frozenset()
            return await leads(chat.id)

        async def stream() -> AsyncIterator[str]:
            with hub.watching(chat) as kept:
                async for part in board_stream(kept):
                    yield part

        async def board_stream(kept: bool) -> AsyncIterator[str]:
            nonlocal after
            if not kept:  # the hub did not keep the chat's changes: the number means nothing
                after = -1
            yield "retry: 1000\n\n"
            if after < 0:  # a fresh snapshot: the list, the newest run, every live one
                after = hub.seq
                listed = await services.store.history(Scope.of(chat), per_page=LISTED)
                yield sse(f"{hub.boot}:{after}", "runs", _list(listed.runs, await chat_leads()))
                live = {r.record.id: r for r in hub.live(chat)}
                if listed.runs and listed.runs[0].id not in live:
                    newest = listed.runs[0]
                    remarks = (await services.chat_settings(chat)).remarks
                    events = await services.store.events(newest.id)
                    view = replay(newest, events, lang, remarks=remarks)
                    yield sse(f"{hub.boot}:{after}", "run",
                              _run_data(newest, view, newest.status, lang, token))
                for run in live.values():
                    yield sse(f"{hub.boot}:{after}", "run",
                              _run_data(run.record, run.view, run.status, lang, token))
            while not hub.closed and hub.link_valid(chat, token):
                change = await hub.change_after(chat, after, PING_S)
                if not hub.link_valid(chat, token):
                    break  # /board reset: this link shows nothing more
                if change is None:
                    if not hub.closed:
                        yield ": ping\n\n"
                    continue
                after = change.seq
                if change.listed:
                    listed = await services.store.history(Scope.of(chat), per_page=LISTED)
                    yield sse(f"{hub.boot}:{after}", "runs", _list(listed.runs, await chat_leads()))
                for run in change.runs:
                    yield sse(f"{hub.boot}:{after}", "run",
                              _run_data(run.record, run.view, run.status, lang, token))
                await asyncio.sleep(FRAME_S)  # what changes meanwhile goes in the next batch

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store",
                                          "X-Accel-Buffering": "no"})

    return [
        Route("/board/{token}", page, methods=["GET"]),
        Route("/board/{token}/events", events, methods=["GET"]),
        Route("/board/{token}/runs/{n:int}", stored_run, methods=["GET"]),
        Route("/board/{token}/runs/{n:int}/photos/{k:int}", photo, methods=["GET"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]


def _resume_from(last_event_id: str, hub: Hub) -> int:
    """The hub's number a reconnecting board saw last; -1 (a fresh snapshot) for none, one
    of another run of the bot, or one this hub never gave (a number from the future would
    wait for changes that never come)."""
    boot, _, number = last_event_id.partition(":")
    if boot != hub.boot or not EVENT_NUMBER.fullmatch(number) or int(number) > hub.seq:
        return -1
    return int(number)


def _lang(request: Request) -> Lang:
    return "zh" if request.query_params.get("lang", "").startswith("zh") else "en"


def gone() -> Response:
    """What a link that was reset, or never made, answers (the course page's too)."""
    return HTMLResponse("<!DOCTYPE html><title>Glassbox</title><p>This board link does not "
                        "work (it was reset, or never existed). Send /board in the chat for "
                        "the current one.</p>", status_code=404, headers=PAGE_HEADERS)


def _run_data(record: RunRecord, view: View, status: str, lang: Lang,
              token: str) -> dict[str, Any]:
    photos = f"/board/{token}/runs/{record.n}/photos/"
    return {"n": record.n, "status": status,
            "html": board_run(record, view, status, lang, photos)}


def _list(runs: tuple[RunRecord, ...], leads: frozenset[int]) -> dict[str, Any]:
    """The runs for the board's list; `lead`: asked by one of the chat's admins, whose runs
    the board follows as it follows the link's asker's."""
    return {"runs": [{"n": r.n, "question": r.question[:120], "mode": r.mode,
                      "status": r.status, "user": r.user_name, "uid": r.user_id,
                      "lead": r.user_id in leads} for r in runs]}

