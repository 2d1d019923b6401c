"""A benchmark figure (value, target, met?), the table they print as, and the statistics."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Figure:
    name: str
    value: str
    target: str = "—"
    met: bool | None = None
    """None: the figure has no target."""


def table(figures: Sequence[Figure]) -> str:
    """The figures as one Markdown table."""
    lines = ["| Figure | Value | Target | Met? |", "|---|---|---|---|"]
    for f in figures:
        met = "—" if f.met is None else ("yes" if f.met else "**no**")
        lines.append(f"| {f.name} | {f.value} | {f.target} | {met} |")
    return "\n".join(lines)


def percentile(values: Sequence[float], p: float) -> float:
    """The p-th percentile (0–100), interpolated between the nearest ranks."""
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    at = (len(ordered) - 1) * p / 100
    low = int(at)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


def median(values: Sequence[float]) -> float:
    return statistics.median(values)
