"""Every request the process sends, and its words for what went wrong on the way.

Three clients, one stack (aiohttp: a C parser and an O(1) pool, docs/scaling.md says why):
- the model's: the openai SDK's httpx client on an aiohttp transport (model_transport.py),
  its stream read by our own SSE reader (sse.py);
- Telegram's: python-telegram-bot's request class on aiohttp (telegram_request.py), and Bot
  API calls made through it without `Bot`'s objects (bot_api.py);
- the tools': GETs of JSON from public services (tools_client.py).
All of them open their sessions one way (http_session.py), are bounded one way (limits.py:
timeouts, retries, connections) and name a failure in one vocabulary (wire_errors.py).
Nothing here imports agent/ or bot/; no module outside it imports aiohttp or builds an
httpx client (tests/test_layout.py).
"""
