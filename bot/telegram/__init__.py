"""The Telegram front end: handlers, their context (the services and the front end's own
parts), delivery, the python-telegram-bot Application."""
