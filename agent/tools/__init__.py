"""The tools the agent can call, and the Toolbox that opens them with their shared resources.

    toolbox = await Toolbox.open(settings)   # one httpx client, the notes index
    ...run_react(question, tools=toolbox.tools, ...)
    await toolbox.aclose()
"""

from __future__ import annotations

import httpx

from agent.settings import AgentSettings
from agent.tool import Tool
from agent.tool_names import TOOL_NAMES
from agent.tools.calculator import Calculate
from agent.tools.clock import GetTime
from agent.tools.currency import ConvertCurrency
from agent.tools.http import make_client
from agent.tools.notes import SearchNotes
from agent.tools.notes_index import NotesIndex
from agent.tools.weather import GetWeather
from agent.tools.wikipedia import SearchWikipedia

TOOL_CLASSES: tuple[type[Tool], ...] = (
    Calculate, GetTime, GetWeather, ConvertCurrency, SearchNotes, SearchWikipedia)
if tuple(cls.name for cls in TOOL_CLASSES) != TOOL_NAMES:  # the names settings accepts
    raise RuntimeError("agent.tool_names.TOOL_NAMES is out of step with agent.tools.TOOL_CLASSES")


class Toolbox:
    """The tools chosen by AGENT_TOOLS, and what they share; close it with `aclose`."""

    def __init__(self, tools: list[Tool], http: httpx.AsyncClient,
                 notes: NotesIndex | None) -> None:
        self.tools = tools
        self.http = http
        self.notes = notes

    @classmethod
    async def open(cls, settings: AgentSettings) -> Toolbox:
        names = settings.agent_tools or TOOL_NAMES
        http = make_client(settings.tool_http_timeout_s)
        notes = None
        try:
            if SearchNotes.name in names:
                notes = await NotesIndex.open(settings.database_path, settings.notes_dir)
        except BaseException:
            await http.aclose()
            raise
        s = settings
        build = {
            Calculate.name: lambda: Calculate(),
            GetTime.name: lambda: GetTime(s.default_timezone),
            GetWeather.name: lambda: GetWeather(http, s.open_meteo_geocoding_url,
                                                s.open_meteo_forecast_url),
            ConvertCurrency.name: lambda: ConvertCurrency(http, s.frankfurter_url),
            SearchNotes.name: lambda: SearchNotes(notes),  # type: ignore[arg-type]
            SearchWikipedia.name: lambda: SearchWikipedia(http, s.wikipedia_api_url,
                                                          s.wikipedia_rest_url),
        }
        return cls([build[name]() for name in TOOL_NAMES if name in names], http, notes)

    async def aclose(self) -> None:
        await self.http.aclose()
        if self.notes is not None:
            await self.notes.close()


__all__ = ["TOOL_NAMES", "Toolbox"]
