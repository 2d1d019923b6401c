"""What Glassbox has learned about one model endpoint, kept in one named place.

AGENT_MODE=auto learns from how an endpoint behaves: it rejected `tools`, its model writes
tool calls as text (or describes them instead of making them), it refused
`stream_options`. Every run with that endpoint's client reads and updates its
`EndpointMemory` (`ModelClient.memory`); the bot keeps it in its store, so a restart does
not make a class wait through the same lesson again (bot/store/endpoints.py).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any
from urllib.parse import urlsplit, urlunsplit


def endpoint_key(base_url: str, model: str) -> str:
    """The endpoint a memory belongs to: the server's address (no user, password, query
    or fragment: nothing secret is kept) and the model's name there."""
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return f"{urlunsplit((parts.scheme, host, parts.path.rstrip('/'), '', ''))} {model}"


@dataclass(slots=True)
class EndpointMemory:
    """What auto mode learned about one endpoint; the defaults are what it assumes of an
    endpoint it has not seen."""

    endpoint: str
    """`endpoint_key(base_url, model)`."""
    tools_rejected: bool = False
    """The endpoint answered a request with `tools` by refusing tools: runs speak the text
    protocol (agent/loop.py)."""
    calls_as_text: bool = False
    """The model wrote its tool calls into its text, or described a call instead of making
    it, although `tools` were accepted: runs start in the text protocol
    (agent/protocols/auto_rounds.py)."""
    usage_option: bool = True
    """Whether to ask for `stream_options: {"include_usage": true}`; False once the endpoint
    refused it (its token counts are then estimated, agent/model/model_client.py)."""

    def learned(self) -> dict[str, bool]:
        """What differs from an unseen endpoint's defaults (empty: nothing learned)."""
        fresh = EndpointMemory(self.endpoint)
        return {name: value for name, value in asdict(self).items()
                if name != "endpoint" and value != getattr(fresh, name)}

    @classmethod
    def restored(cls, endpoint: str, learned: dict[str, Any]) -> EndpointMemory:
        """The memory of `endpoint` from its `learned()`; keys this version does not know
        (a newer version wrote them) and values that are not booleans are left out."""
        known = {f.name for f in fields(cls)} - {"endpoint"}
        return cls(endpoint, **{name: value for name, value in learned.items()
                                if name in known and isinstance(value, bool)})
