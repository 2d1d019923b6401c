"""DATABASE_URL as written. A generated password often holds '/', '?', '#' or '@', which a
URL must carry percent-encoded: left as they are, they end the host part early (or move it),
and the URL's parsers then quote a piece of the password in their errors. `check` refuses
such a URL at start in words that never quote it; `redact` and `secrets` find the password
as written, whatever the URL holds, for messages and the log filter."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated
from urllib.parse import parse_qs, unquote

from pydantic import AfterValidator, SecretStr

SCHEMES = ("postgresql://", "postgres://")
ENCODE = "percent-encode it ('/' as %2F, '?' as %3F, '#' as %23, '@' as %40, '%' as %25)"
PORT = re.compile(r"[0-9]{1,5}")
IPV6_HOST = re.compile(r"\[[^\]]+\](?::(.*))?")
PIECE_CUTS = re.compile(r"[/?#@]")
QUERY_PASSWORD = re.compile(r"[?&]password=([^&#]*)")
MIN_PIECE = 4
"""A piece of a password cut at '/', '?', '#' or '@' (where a parser may have cut it, and
quoted a piece) is blanked in the log from this length: a shorter one is common text."""


@dataclass(frozen=True)
class _Parts:
    head: str
    """`postgresql://`"""
    userinfo: str
    """`user:password` as written; empty without an '@'."""
    rest: str
    """Hosts, path, query and fragment."""


def _authority_end(rest: str) -> int:
    """Where the host part ends (RFC 3986): at the first '/', '?' or '#'."""
    return min((i for i in map(rest.find, "/?#") if i >= 0), default=len(rest))


def _late_at(rest: str, end: int) -> int:
    """Where an '@' after the host part ends a password cut short by a '/', '?' or '#' it
    holds; -1 if none does (an '@' after a '=' is a query's value: `?user=teacher@corp`)."""
    at = rest.find("@", end)
    return at if at >= 0 and "=" not in rest[end:at] else -1


def _split(url: str) -> _Parts | None:
    head, sep, rest = url.partition("://")
    if not sep:
        return None
    end = _authority_end(rest)
    at = rest.rfind("@", 0, end)
    if at < 0:
        at = _late_at(rest, end)
    if at < 0:
        return _Parts(head + sep, "", rest)
    return _Parts(head + sep, rest[:at], rest[at + 1:])


def check(url: str) -> None:
    """Raise ValueError, in words that never quote `url`, unless the PostgreSQL driver reads
    it as written: a postgresql:// URL whose user and password hold no '/', '?', '#' or '@'
    unencoded, with ports from 1 to 65535 and a query of name=value pairs."""
    if not url.startswith(SCHEMES):
        raise ValueError("expected a postgresql:// or postgres:// URL, or nothing")
    rest = url.partition("://")[2]
    end = _authority_end(rest)
    authority, tail = rest[:end], rest[end:]
    if "@" not in authority and _late_at(rest, end) >= 0:
        raise ValueError("its password (or user name) holds a '/', '?' or '#' as it is, so "
                         f"the host cannot be told from it; {ENCODE}")
    userinfo, _, hosts = authority.rpartition("@")
    if "@" in userinfo:
        raise ValueError(f"its password (or user name) holds an '@' as it is; {ENCODE}")
    for host in hosts.split(","):
        _check_port(host)
    query = tail.partition("#")[0].partition("?")[2]
    if query:
        try:
            parse_qs(query, strict_parsing=True)
        except ValueError:
            raise ValueError("its query (after '?') is not name=value pairs joined by '&'"
                             ) from None


def _check_port(host: str) -> None:
    if host.startswith("["):
        written = IPV6_HOST.fullmatch(host)
        if written is None:
            raise ValueError("an IPv6 host in it is not written as [address]:port")
        port = written.group(1) or ""
    else:
        port = host.partition(":")[2]
    if port and not (PORT.fullmatch(port) and 1 <= int(port) <= 65535):
        raise ValueError("its port must be a number from 1 to 65535")


def redact(url: str) -> str:
    """`url` with its password, as written, shown as ***."""
    parts = _split(url)
    if parts is None or ":" not in parts.userinfo:
        return url
    return f"{parts.head}{parts.userinfo.partition(':')[0]}:***@{parts.rest}"


def secrets(url: str) -> list[str]:
    """What of `url` a log line must never show, longest first: its password as written
    (before the host, or a query's `password=`), decoded, and its pieces between '/', '?',
    '#' and '@'."""
    parts = _split(url)
    if parts is None:
        return []
    passwords = {parts.userinfo.partition(":")[2], *QUERY_PASSWORD.findall(parts.rest)}
    found: set[str] = set()
    for password in passwords - {""}:
        found |= {password, unquote(password),
                  *(p for p in PIECE_CUTS.split(password) if len(p) >= MIN_PIECE)}
    return sorted(found, key=len, reverse=True)


def blank(text: str, url: str) -> str:
    """`text` with every secret of `url` shown as ***."""
    for secret in secrets(url):
        text = text.replace(secret, "***")
    return text


def _setting(value: SecretStr) -> SecretStr:
    url = value.get_secret_value().strip()
    if url:
        check(url)
    return SecretStr(url)


DatabaseUrl = Annotated[SecretStr, AfterValidator(_setting)]
"""DATABASE_URL as a setting: stripped, and checked when it is set."""
