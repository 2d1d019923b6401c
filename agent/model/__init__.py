"""The model: the client of any OpenAI-compatible server (its transport, SSE reader, errors
and endpoint memory), a question's photos given to it as images (whether they go, and the
call again as text when its endpoint refuses them), one model call read as a round's events,
and the answer model."""
