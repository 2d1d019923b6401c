"""The model clients of a process, one for each named endpoint (agent/named_models.py): the
default model's, LLM_ANSWER_MODEL's, and the others a chat may choose or /compare may set
side by side. Names that lead to the same model at the same endpoint with the same key
share one client, so what auto mode learns about an endpoint is kept once."""

from __future__ import annotations

from collections.abc import Iterator

from agent.model.model_client import ModelClient
from agent.settings import AgentSettings


class ModelClients:
    """Clients by name; each one's `memory` is its endpoint's (EndpointMemory)."""

    def __init__(self, settings: AgentSettings) -> None:
        self.default_name = settings.default_model
        self.answer_name = settings.answer_model
        self._by_name: dict[str, ModelClient] = {}
        made: dict[tuple[str, str, str], ModelClient] = {}
        for name, point in settings.endpoints().items():
            key = (point.base_url, point.model, point.api_key.get_secret_value())
            if key not in made:
                made[key] = ModelClient(settings.model_copy(update={
                    "llm_model": point.model, "openai_base_url": point.base_url,
                    "openai_api_key": point.api_key}), name=name)
            self._by_name[name] = made[key]

    @property
    def names(self) -> list[str]:
        """Every model by name, the default first."""
        return [self.default_name, *(n for n in self._by_name if n != self.default_name)]

    @property
    def default(self) -> ModelClient:
        return self._by_name[self.default_name]

    @property
    def answer(self) -> ModelClient | None:
        """LLM_ANSWER_MODEL's client; None: each run's model answers."""
        return self._by_name[self.answer_name] if self.answer_name else None

    def get(self, name: str) -> ModelClient | None:
        """The client named `name` (any case), or None."""
        return self._by_name.get(name.strip().lower()) or self._by_name.get(name.strip())

    def __iter__(self) -> Iterator[ModelClient]:
        """Each client once, the default's first."""
        seen: set[int] = set()
        for name in self.names:
            client = self._by_name[name]
            if id(client) not in seen:
                seen.add(id(client))
                yield client

    async def close(self) -> None:
        for client in self:
            await client.close()
