"""The one shared HTTP client of the tools, and how an upstream's failures become UpstreamErrors.

Every networked tool asks for JSON through `get_json`; whatever goes wrong (no connection,
timeout, 4xx/5xx, a body that is not JSON, a redirect to another host) comes back as an
UpstreamError with a short text naming the service, never as an httpx exception.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import httpx

from agent.http_transport import AiohttpTransport
from agent.lang import pick
from agent.tool import UpstreamError

USER_AGENT = "Glassbox/0.1 (a teaching bot for class chats)"
MAX_REDIRECTS = 5


def make_client(timeout_s: float) -> httpx.AsyncClient:
    """The tools' shared client: bounded timeouts, an honest User-Agent. Redirects are not
    followed here: `get_json` follows them only on the same scheme, host and port."""
    return httpx.AsyncClient(
        timeout=httpx.Timeout(timeout_s, connect=min(timeout_s, 5.0)),
        headers={"User-Agent": USER_AGENT},
        follow_redirects=False,
        transport=AiohttpTransport(),
    )


async def _get(http: httpx.AsyncClient, url: str, params: Mapping[str, str | int | float],
               headers: Mapping[str, str] | None, service: str, lang: str) -> httpx.Response:
    """GET, following redirects that stay on the same origin: a misbehaving upstream must
    not point the bot at 127.0.0.1 or an internal address."""
    response = await http.get(url, params=params, headers=headers)
    origin = response.request.url
    hops = 0
    while (target := response.next_request) is not None:
        if (target.url.scheme, target.url.host, target.url.port) != \
                (origin.scheme, origin.host, origin.port):
            raise UpstreamError(pick(lang, f"{service} 返回了指向别处的重定向，未跟随。",
                                     f"{service} answered with a redirect elsewhere; "
                                     f"not followed."), response.status_code)
        if hops == MAX_REDIRECTS:
            raise UpstreamError(pick(lang, f"{service} 重定向次数过多。",
                                     f"{service} answered with too many redirects."),
                                response.status_code)
        hops += 1
        response = await http.send(target)
    return response


async def get_json(
    http: httpx.AsyncClient,
    url: str,
    params: Mapping[str, str | int | float],
    *,
    service: str,
    lang: str,
    headers: Mapping[str, str] | None = None,
) -> Any:
    """GET `url` and return its JSON body, or raise UpstreamError."""
    try:
        response = await _get(http, url, params, headers, service, lang)
    except httpx.TimeoutException:
        raise UpstreamError(pick(lang, f"{service} 没有及时响应，请稍后再试。",
                                 f"{service} did not answer in time. Try again later.")) from None
    except httpx.HTTPError as exc:
        raise UpstreamError(pick(
            lang, f"无法连接 {service}（{type(exc).__name__}）。",
            f"Could not reach {service} ({type(exc).__name__}).")) from None
    try:
        body = response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        body = None
        if response.is_success:
            raise UpstreamError(pick(lang, f"{service} 返回的内容无法解析（不是 JSON）。",
                                     f"{service} sent a reply that is not JSON."),
                                response.status_code) from None
    if response.is_success:
        return body
    reason = _reason(body)
    detail = f": {reason}" if reason else ""
    raise UpstreamError(pick(lang, f"{service} 返回错误 {response.status_code}{detail}",
                             f"{service} answered with error {response.status_code}{detail}"),
                        response.status_code, reason)


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
