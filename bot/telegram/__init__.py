"""The Telegram front end: handlers, delivery, the python-telegram-bot Application."""
