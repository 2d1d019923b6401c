"""The HTTP front ends beside Telegram, in the bot's process: the server (serve), the webhook,
/healthz and /metrics (routes), the class board (board) and the HTTP API (api)."""
