"""Server-sent events read from a response body's pieces, as the openai SDK's SSEDecoder
reads them (WHATWG's rules: lines end with LF, CRLF or CR; a blank line ends an event;
`data` lines join with LF; comments and other fields are skipped), without the SDK's
layers of async generators and an object per event: a streamed model reply is some 90
events an answer, each of them costing CPU on the bot's one core.

`feed` returns the data of every event a piece completed, so a caller can handle all that
one network read brought at once."""

from __future__ import annotations


class SSEReader:
    def __init__(self) -> None:
        self._tail = b""
        """The start of a line whose end has not come yet."""
        self._data: list[bytes] = []

    def feed(self, piece: bytes) -> list[bytes]:
        """The data of each event that `piece` completes, in order."""
        lines = (self._tail + piece).splitlines(keepends=True)
        # A last line without its end waits for the next piece; so does one ending in CR,
        # whose LF may be the next piece's first byte.
        self._tail = lines.pop() if lines and not lines[-1].endswith(b"\n") else b""
        return self._events(lines)

    def close(self) -> list[bytes]:
        """The body ended: the data of an event its last line completed, if any."""
        tail, self._tail = self._tail, b""
        return self._events(tail.splitlines(keepends=True))

    def _events(self, lines: list[bytes]) -> list[bytes]:
        events: list[bytes] = []
        data = self._data
        for raw in lines:
            line = raw.rstrip(b"\r\n")
            if not line:
                if data:
                    events.append(b"\n".join(data))
                    data.clear()
                continue
            if line.startswith(b"data:"):
                value = line[5:]
                data.append(value[1:] if value.startswith(b" ") else value)
        return events
