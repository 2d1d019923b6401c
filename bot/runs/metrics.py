"""What /metrics shows, in the Prometheus text format (prometheus-client).

One registry per Application (tests build several in one process). Runs are counted as a
run listener; Telegram calls by the request object every Bot API call goes through; the
pacer's waits by the pacer.
"""

from __future__ import annotations

import time
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from agent.events import (
    Action,
    Answer,
    Delta,
    Event,
    Observation,
    ObservationFailure,
    RunFinished,
    Thought,
)
from bot.store.kinds import Lane
from bot.store.records import RunRecord

CONTENT_TYPE = CONTENT_TYPE_LATEST
_FIRST_OUTPUT = (Thought, Delta, Answer, Action)


class Metrics:
    """The bot's counters; also a RunListener."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.runs = Counter("glassbox_runs", "Runs finished, by mode and status",
                            ["mode", "status"], registry=r)
        self.in_flight = Gauge("glassbox_runs_in_flight", "Runs running now", registry=r)
        self.first_token = Histogram(
            "glassbox_model_first_token_seconds",
            "From a lane's start to the model's first output (thought, text or tool call)",
            registry=r)
        self.lane_seconds = Histogram("glassbox_model_total_seconds",
                                      "A lane's whole run, model and tools, by mode",
                                      ["mode"], registry=r)
        self.tool_calls = Counter("glassbox_tool_calls", "Tool calls by tool and outcome",
                                  ["tool", "outcome"], registry=r)
        self.telegram_calls = Counter("glassbox_telegram_calls",
                                      "Bot API calls (not getUpdates) by method",
                                      ["method"], registry=r)
        self.telegram_429 = Counter("glassbox_telegram_429",
                                    "Bot API calls answered 429 (flood control) by method",
                                    ["method"], registry=r)
        self.updates_skipped = Counter(
            "glassbox_telegram_updates_skipped",
            "Updates python-telegram-bot could not read (a shape it does not know), skipped, "
            "by type", ["type"], registry=r)
        self._calls: dict[str, Any] = {}
        self.pacer_wait = Histogram("glassbox_pacer_wait_seconds",
                                    "Waiting for a chat's turn to call Telegram, by chat kind",
                                    ["chat_kind"], registry=r)
        self._group_waits = self.pacer_wait.labels("group")
        self._private_waits = self.pacer_wait.labels("private")
        """Labelled children found once (and `_calls` per method): `labels()` takes a lock and
        checks its values each time, and every Bot API call and pacer turn asks."""
        self._lanes_started: dict[tuple[int, str], float] = {}

    def telegram_call(self, method: str) -> None:
        """One Bot API call made (whatever its answer)."""
        calls = self._calls.get(method)
        if calls is None:
            calls = self._calls[method] = self.telegram_calls.labels(method)
        calls.inc()

    def exposition(self) -> bytes:
        return generate_latest(self.registry)

    # --- the pacer ---

    def waited(self, chat_id: int, seconds: float) -> None:
        (self._group_waits if chat_id < 0 else self._private_waits).observe(seconds)

    # --- a RunListener ---

    def run_started(self, record: RunRecord, remarks: bool) -> None:
        self.in_flight.inc()
        now = time.monotonic()
        for lane in Lane.of(record.mode):
            self._lanes_started[(record.id, lane)] = now

    def run_event(self, record: RunRecord, lane: str, event: Event) -> None:
        if isinstance(event, _FIRST_OUTPUT):
            started = self._lanes_started.pop((record.id, lane), None)
            if started is not None:
                self.first_token.observe(time.monotonic() - started)
        if isinstance(event, Observation):
            unknown = event.failure is ObservationFailure.UNKNOWN_TOOL
            outcome = "ok" if event.ok else (event.failure or "failed")
            self.tool_calls.labels("(unknown)" if unknown else event.tool, str(outcome)).inc()
        elif isinstance(event, RunFinished):
            self.lane_seconds.labels(record.mode).observe(event.duration_ms / 1000)

    def run_finished(self, record: RunRecord, status: str) -> None:
        self.in_flight.dec()
        self.runs.labels(record.mode, status).inc()
        for lane in Lane:
            self._lanes_started.pop((record.id, lane), None)
