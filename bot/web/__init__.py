"""The HTTP front ends beside Telegram, in the bot's process (bot/serve.py runs the server):
the application and /healthz and /metrics (routes), the class board (board) and its course
page (course_routes), the HTTP API (api, its bodies, the images it takes (api_images),
shapes and OpenAPI schema), and what keeps the server up against slow or greedy clients
(guard, connection_cap)."""
