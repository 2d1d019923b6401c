"""Helpers for the tools' tests: open a Toolbox on test settings, run a tool by name,
and run one tool call through the real ReAct loop with the fake model."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from agent import AgentSettings, ModelClient, Observation, run_react
from agent.tools import Toolbox
from agent.tools.notes_index import NotesIndex
from testkit.fakes.model import FakeModel, text_reply, tool_reply


@asynccontextmanager
async def open_toolbox(settings: AgentSettings,
                       notes: NotesIndex | None = None) -> AsyncIterator[Toolbox]:
    box = await Toolbox.open(settings, notes=notes)
    try:
        yield box
    finally:
        await box.aclose()


async def run_tool(box: Toolbox, name: str, **args: Any) -> str:
    """Validate `args` as the loop does, then run the tool named `name`."""
    tool = next(t for t in box.tools if t.name == name)
    return await tool.run(tool.Args.model_validate(args))


async def observe(fake_model: FakeModel, client: ModelClient, settings: AgentSettings,
                  box: Toolbox, question: str, name: str, args: dict[str, Any]) -> Observation:
    """Ask `question`; the model calls `name(args)`, then answers. The Observation event."""
    fake_model.push(tool_reply((name, args)), text_reply("OK."))
    events = [e async for e in run_react(question, client=client, settings=settings,
                                         tools=box.tools)]
    observations = [e for e in events if isinstance(e, Observation)]
    assert len(observations) == 1, events
    assert events[-1].status == "done", events[-1]  # type: ignore[attr-defined]
    tool_message = fake_model.bodies[-1]["messages"][-1]
    assert tool_message == {"role": "tool", "tool_call_id": observations[0].call_id,
                            "content": observations[0].text}
    return observations[0]
