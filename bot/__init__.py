"""Glassbox on Telegram: commands, the live message, rendering, transcripts in SQLite."""

import os

# python-telegram-bot's next major makes durations such as `RetryAfter.retry_after` a
# timedelta; opting in now (read when the value is built, so before any Bot API call)
# means that major changes nothing here, and PTB stops warning about it.
os.environ["PTB_TIMEDELTA"] = "true"
