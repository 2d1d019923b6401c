"""The question as the model is given it when the student sent photos: their words, then
what Glassbox read from each photo, marked as read by OCR (so the model knows it may hold
misreadings) and never as the student's own words."""

from __future__ import annotations

from collections.abc import Sequence

from agent.events import InputRead, ReadFailure

_FAILED = {
    ReadFailure.NO_TEXT: "no text was found in it",
    ReadFailure.TIME: "it could not be read in time",
    ReadFailure.MEMORY: "it was too large to read",
    ReadFailure.UNREADABLE: "it could not be read",
}


def with_reads(question: str, reads: Sequence[InputRead]) -> str:
    """`question` followed by each photo's text as read (or why there is none)."""
    if not reads:
        return question
    parts = [question]
    for read in reads:
        name = "the photo" if read.of == 1 else f"photo {read.number} of {read.of}"
        if read.failure is ReadFailure.NONE:
            parts.append(f"[Text read from {name} by OCR; it may contain misreadings]\n"
                         f"{read.text}")
        else:
            parts.append(f"[The student sent {name}; {_FAILED[read.failure]}]")
    return "\n\n".join(parts)
