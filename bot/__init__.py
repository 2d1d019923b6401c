"""Glassbox on Telegram: commands, the live message, rendering, transcripts in SQLite or
PostgreSQL, and the HTTP front ends beside it."""
