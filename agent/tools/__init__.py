"""The tools the agent can call, and the Toolbox that opens them with their shared resources.

    toolbox = await Toolbox.open(settings)   # one HTTP client, a notes index in memory
    ...run_react(question, tools=toolbox.tools, ...)
    await toolbox.aclose()

A front end that keeps the notes index itself passes it: `Toolbox.open(settings, notes=...)`.
"""

from __future__ import annotations

from agent.settings import AgentSettings
from agent.tool import Tool
from agent.tool_names import TOOL_NAMES
from agent.tools.calculator import Calculate
from agent.tools.clock import GetTime
from agent.tools.currency import ConvertCurrency
from agent.tools.notes_index import NotesIndex, SqliteNotesIndex
from agent.tools.search_notes import SearchNotes
from agent.tools.weather import GetWeather
from agent.tools.wikipedia import SearchWikipedia
from wire.tools_client import HttpClient, make_client

TOOL_CLASSES: tuple[type[Tool], ...] = (
    Calculate, GetTime, GetWeather, ConvertCurrency, SearchNotes, SearchWikipedia)
if tuple(cls.name for cls in TOOL_CLASSES) != TOOL_NAMES:  # the names settings accepts
    raise RuntimeError("agent.tool_names.TOOL_NAMES is out of step with agent.tools.TOOL_CLASSES")


class Toolbox:
    """The tools chosen by AGENT_TOOLS, and what they share; close it with `aclose`."""

    def __init__(self, tools: list[Tool], http: HttpClient, notes: NotesIndex | None,
                 own_notes: SqliteNotesIndex | None) -> None:
        self.tools = tools
        self.http = http
        self.notes = notes
        self._own_notes = own_notes  # the index it opened itself, to close

    @classmethod
    async def open(cls, settings: AgentSettings, notes: NotesIndex | None = None) -> Toolbox:
        """`notes`: the index search_notes uses, kept and closed by the caller; None: one
        of the toolbox's own, in memory over NOTES_DIR."""
        names = settings.agent_tools or TOOL_NAMES
        http = make_client(settings.tool_http_timeout_s)
        own_notes = None
        if SearchNotes.name not in names:
            notes = None
        elif notes is None:
            try:
                notes = own_notes = await SqliteNotesIndex.in_memory(settings.notes_dir)
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
        return cls([build[name]() for name in TOOL_NAMES if name in names], http, notes,
                   own_notes)

    async def aclose(self) -> None:
        await self.http.aclose()
        if self._own_notes is not None:
            await self._own_notes.close()


__all__ = ["TOOL_NAMES", "Toolbox"]
