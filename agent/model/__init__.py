"""The model: the client of any OpenAI-compatible server (its transport, SSE reader, errors
and endpoint memory), one model call read as a round's events, and the answer model."""
