"""The one interface every tool implements, and how the loop calls it.

A tool's JSON schema is generated from its pydantic `Args` model, never written twice.
A tool reports an expected failure (no such city, upstream down) by raising ToolError
with a clear text; the loop turns it, and any other exception, into an Observation.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

from pydantic import BaseModel


class ToolError(Exception):
    """An expected failure whose message is fit to show the model and the student."""


class Tool(ABC):
    name: ClassVar[str]
    description: ClassVar[str]
    Args: ClassVar[type[BaseModel]]

    @abstractmethod
    async def run(self, args: Any) -> str:
        """Do the work for validated `args` (an instance of `Args`); return the observation."""

    @classmethod
    def schema(cls) -> dict[str, Any]:
        """The OpenAI `tools` entry for this tool."""
        params = cls.Args.model_json_schema()
        params.pop("title", None)
        return {
            "type": "function",
            "function": {"name": cls.name, "description": cls.description, "parameters": params},
        }
