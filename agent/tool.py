"""The one interface every tool implements, and how the loop calls it.

A tool's JSON schema is generated from its pydantic `Args` model, never written twice.
A tool reports an expected failure by raising ToolError with a clear text (no such
city), or UpstreamError when a service it relies on let it down; the loop turns these,
and any other exception, into a failed Observation that says which it was.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from enum import StrEnum
from functools import cache
from typing import Any, ClassVar

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from wire.wire_errors import GlassboxError

RUN_LANG = "lang"
"""The argument Glassbox fills itself with the run's language (agent/tools/args.py); the
model never sees it."""


class ToolError(GlassboxError):
    """An expected failure whose message is fit to show the model and the student."""


class UpstreamError(ToolError):
    """A service the tool relies on failed or sent nothing usable (agent/tools/upstream.py
    raises it for every way a request can fail). `status` is the HTTP status of an error
    reply, 0 when there was none."""

    def __init__(self, text: str, status: int = 0, reason: str = "") -> None:
        super().__init__(text)
        self.status = status
        self.reason = reason
        """The service's own error text, if its body had one."""


class Source(StrEnum):
    """How a tool's result came to be: what /compare's judgement says the tools did."""

    CALCULATED = "calculated"
    LOOKED_UP = "looked up"
    READ_IN_NOTES = "read in the class notes"


class Tool(ABC):
    name: ClassVar[str]
    description: ClassVar[str]
    Args: ClassVar[type[BaseModel]]
    source: ClassVar[Source] = Source.LOOKED_UP

    @abstractmethod
    async def run(self, args: Any) -> str:
        """Do the work for validated `args` (an instance of `Args`); return the observation."""

    @classmethod
    def schema(cls) -> dict[str, Any]:
        """The OpenAI `tools` entry for this tool: the caller's own copy (pydantic's schema
        generation runs once per class, not in every run)."""
        return json.loads(_schema_text(cls))

    @classmethod
    def fields(cls) -> dict[str, FieldInfo]:
        """The arguments the model (or a person editing a call) fills, in their order:
        all but the run's language."""
        return {name: info for name, info in cls.Args.model_fields.items() if name != RUN_LANG}


@cache
def _schema_text(tool: type[Tool]) -> str:
    params = tool.Args.model_json_schema()
    params.pop("title", None)
    params.get("properties", {}).pop(RUN_LANG, None)
    if RUN_LANG in params.get("required", ()):
        params["required"].remove(RUN_LANG)
    return json.dumps({
        "type": "function",
        "function": {"name": tool.name, "description": tool.description, "parameters": params},
    }, ensure_ascii=False)
