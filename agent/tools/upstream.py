"""An upstream service's JSON for a tool, or an UpstreamError.

Every networked tool asks for JSON through `get_json`; whatever goes wrong (no connection,
timeout, 4xx/5xx, a body that is not JSON, a redirect to another host) comes back as an
UpstreamError with a short text naming the service, never as an exception of the HTTP
library. The request itself is wire/tools_client.py's; a failure on the wire is named in
Glassbox's words (wire/wire_errors.py).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from agent.tool import UpstreamError
from agent.words import say
from wire.tools_client import HttpClient, RedirectRefusal, RedirectRefused, get
from wire.wire_errors import WireFailure, failure_of


async def get_json(
    http: HttpClient,
    url: str,
    params: Mapping[str, str | int | float],
    *,
    service: str,
    lang: str,
    headers: Mapping[str, str] | None = None,
) -> Any:
    """GET `url` and return its JSON body, or raise UpstreamError."""
    try:
        status, content = await get(http, url, params, headers)
    except RedirectRefused as refused:
        key = ("http_redirect_elsewhere" if refused.refusal is RedirectRefusal.ELSEWHERE
               else "http_too_many_redirects")
        raise UpstreamError(say(lang, key, service=service), refused.status) from None
    except Exception as exc:
        failure = failure_of(exc)
        if failure is None:
            raise
        if failure is WireFailure.TIMED_OUT or isinstance(exc, TimeoutError):
            raise UpstreamError(say(lang, "http_timed_out", service=service)) from None
        if failure is WireFailure.NOT_SENT:
            raise UpstreamError(say(lang, "http_not_reached", service=service)) from None
        raise UpstreamError(say(lang, "http_broke", service=service)) from None
    ok = 200 <= status < 300
    try:
        body = json.loads(content)
    except (json.JSONDecodeError, UnicodeDecodeError):
        body = None
        if ok:
            raise UpstreamError(say(lang, "http_not_json", service=service), status) from None
    if ok:
        return body
    reason = _reason(body)
    detail = f": {reason}" if reason else ""
    raise UpstreamError(say(lang, "http_error", service=service, status=status, detail=detail),
                        status, reason)


def _reason(body: Any) -> str:
    """The error text an upstream put in its JSON body (Open-Meteo `reason`,
    Frankfurter `message`, Wikimedia REST `detail`), bounded."""
    if not isinstance(body, dict):
        return ""
    for key in ("reason", "message", "detail"):
        value = body.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()[:200]
    return ""
