"""The names of the agent's tools, in the order they are offered to the model.

A leaf module (it imports nothing of Glassbox) so that agent.settings can check
AGENT_TOOLS without importing the tools themselves; agent.tools checks, when it is
imported, that its tool classes carry exactly these names.
"""

from __future__ import annotations

TOOL_NAMES: tuple[str, ...] = (
    "calculate", "get_time", "get_weather", "convert_currency", "search_notes",
    "search_wikipedia")
