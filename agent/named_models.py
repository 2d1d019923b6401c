"""Named model endpoints, as the operator writes them in `.env`: a school's local model beside
a cloud one, each a base URL, a model name and a key, chosen by name (/settings, `/compare
local cloud …`, `/rerun 12 cloud`).

`LLM_MODELS__<NAME>__BASE_URL`, `…__MODEL` and `…__API_KEY` (or `LLM_MODELS` as one JSON
object) are read by pydantic-settings as a dict of `ModelSpec` by name; names are lowercase
(the environment's are lowercased). A spec's empty fields are OPENAI_BASE_URL, the name and
OPENAI_API_KEY. Pure data: the clients are made in agent/model/model_clients.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, SecretStr, field_validator

NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,31}")
"""A model's name as a person types it after /compare: one word, lowercase."""


class ModelSpec(BaseModel):
    """One named endpoint as written; empty fields are the main endpoint's."""

    model_config = ConfigDict(extra="forbid")

    base_url: str = ""
    """The OpenAI-compatible endpoint, ending in /v1 (empty: OPENAI_BASE_URL)."""
    model: str = ""
    """The name the server knows the model by (empty: the endpoint's name)."""
    api_key: SecretStr = SecretStr("")
    """Its key (empty: OPENAI_API_KEY); never shown, logged or stored."""

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str) -> str:
        value = value.strip()
        if value:
            check_url(value)
        return value


def check_url(value: str) -> None:
    """An endpoint's base URL must be http(s) with a host; the message never quotes it
    (it may hold a password)."""
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("expected an http(s) URL such as http://127.0.0.1:8080/v1")


def check_name(name: str) -> None:
    if not NAME.fullmatch(name):
        raise ValueError(f"the name {name[:40]!r} is not 1 to 32 of a-z 0-9 . _ - "
                         "(starting with a letter or digit)")


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A model by name, resolved: where it is, what it is called there, its key."""

    name: str
    base_url: str
    model: str
    api_key: SecretStr
